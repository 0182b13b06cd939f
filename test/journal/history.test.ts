// A run's history record (journal/history.ts): its Secret, and which records go beyond --history.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  asJournal,
  beyondKeep,
  historySecret,
  readHistorySecret,
  type HistoryRecord,
} from '../../src/journal/history.js';
import { headOf, oldestBeyond } from '../../src/journal/history-store.js';
import type { KubeObject } from '../../src/objects/model.js';

const web = (image: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: { template: { spec: { containers: [{ name: 'web', image }] } } },
});
const record: HistoryRecord = {
  runId: 'kguard-mx7-aaaaaa',
  namespace: 'shop',
  startedAt: '2026-05-01T10:00:00.000Z',
  finishedAt: '2026-05-01T10:00:09.000Z',
  user: 'ci-deployer',
  context: 'prod',
  command: 'kguard apply -f web.yaml',
  inputsDigest: `sha256:${'0'.repeat(64)}`,
  outcome: 'succeeded',
  objects: [
    {
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
      change: 'configured',
      before: web('nginx:1.25'),
      applied: web('nginx:1.26'),
    },
  ],
};

describe('history records', () => {
  it('are Secrets of their own type, labelled for kguard history, that read back whole', () => {
    const packed = historySecret(record)!;
    expect(packed.secret.metadata).toMatchObject({
      name: 'kguard-mx7-aaaaaa-history',
      namespace: 'shop',
      labels: {
        'kguard.dev/history': 'v1',
        'app.kubernetes.io/managed-by': 'kguard',
        'kguard.dev/run': 'kguard-mx7-aaaaaa',
      },
    });
    expect(packed.secret['type']).toBe('kguard.dev/history');
    expect(readHistorySecret(packed.secret)).toEqual(record);
    expect(packed.bytes).toBeLessThan(1024);
  });

  it('are written in gzip members of a few hundred KiB (a series gunzip reads as one) at about the size of one', () => {
    const many: HistoryRecord = {
      ...record,
      objects: Array.from({ length: 1000 }, (_, index) => ({
        ...record.objects[0]!,
        ref: { ...record.objects[0]!.ref, name: `web-${index}` },
        before: { ...web(`registry.example.com/web:${index}`), data: { notes: `${index} `.repeat(200) } } as KubeObject,
      })),
    };
    const packed = historySecret(many)!;
    const bytes = Buffer.from((packed.secret as unknown as { data: { history: string } }).data.history, 'base64');
    // More than one member: each starts with gzip's magic bytes and deflate's method.
    const members = bytes.toString('latin1').split('\x1f\x8b\x08').length - 1;
    expect(members).toBeGreaterThanOrEqual(3);
    expect(readHistorySecret(packed.secret)).toEqual(many);
    const whole = gzipSync(JSON.stringify(many)).toString('base64').length;
    expect(packed.bytes).toBeLessThan(whole * 1.1);
  });

  it('are not kept when they would not fit in a Secret', () => {
    const noise = Array.from({ length: 200_000 }, (_, index) => `${index}-${Math.random()}`).join(',');
    const huge = {
      ...record,
      objects: [{ ...record.objects[0]!, before: { ...web('x'), data: noise } as KubeObject }],
    };
    expect(historySecret(huge)).toBeUndefined();
  });

  it('beyond --history are the oldest; 0 keeps none', () => {
    const runs = ['2026-05-01T10:00:00Z', '2026-05-03T10:00:00Z', '2026-05-02T10:00:00Z'].map((finishedAt, index) => ({
      runId: `kguard-${index}`,
      finishedAt,
    }));
    expect(beyondKeep(runs, 2).map((run) => run.runId)).toEqual(['kguard-0']);
    expect(beyondKeep(runs, 10)).toEqual([]);
    expect(beyondKeep(runs, 0)).toHaveLength(3);
  });

  it('undo as a journal that the apply finished: the same restore reads it', () => {
    expect(asJournal(record)).toMatchObject({
      runId: record.runId,
      namespace: 'shop',
      state: 'applied',
      objects: [{ before: record.objects[0]!.before, applied: record.objects[0]!.applied }],
    });
  });
});

describe('letting the oldest records go', () => {
  // As a list answers: the Secrets' metadata only is read; their data is never unpacked for it.
  const listed = (runId: string, finishedAt: string): KubeObject => ({
    ...historySecret({ ...record, runId, finishedAt })!.secret,
    metadata: { ...historySecret({ ...record, runId, finishedAt })!.secret.metadata, uid: `uid-${runId}` },
    data: { history: 'not gzip at all' },
  });

  it('keeps the newest, the record just written counted whether or not the list already held it', () => {
    const older = [
      listed('kguard-a1', '2026-05-01T09:00:00.000Z'),
      listed('kguard-a2', '2026-05-01T09:30:00.000Z'),
      listed('kguard-a3', '2026-05-01T09:45:00.000Z'),
    ];
    const goes = (secrets: KubeObject[]) => oldestBeyond(secrets, record, 2).map((head) => head.name);
    expect(goes(older)).toEqual(['kguard-a2-history', 'kguard-a1-history']);
    expect(goes([...older, listed(record.runId, record.finishedAt)])).toEqual([
      'kguard-a2-history',
      'kguard-a1-history',
    ]);
    expect(oldestBeyond(older, record, 2)[0]).toMatchObject({ uid: 'uid-kguard-a2', namespace: 'shop' });
  });

  it('never lets the record just written go, and leaves a Secret without kguard metadata alone', () => {
    const future = listed('kguard-z9', '2027-01-01T00:00:00.000Z');
    expect(oldestBeyond([future], record, 1)).toEqual([]);
    const stranger = { ...future, metadata: { ...future.metadata, annotations: {} } };
    expect(headOf(stranger)).toEqual([]);
  });
});
