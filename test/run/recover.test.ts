// Which dead runs an apply finishes before it reads its own "before" (restore/recovery/dead-runs.ts).
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal.js';
import type { RunLiveness } from '../../src/journal/liveness.js';
import type { ObjectRef } from '../../src/objects/model.js';
import { deadRunsOn, expiredJournals, finishDeadRuns, lookAhead } from '../../src/restore/recovery/dead-runs.js';
import type { RecoveryDeps } from '../../src/restore/recovery/from-journal.js';
import type { RunRecord } from '../../src/journal/runs.js';

const web: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const settings: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' };
const other: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'cart' };

const dead: RunLiveness = { state: 'dead', why: 'its process 4242 on this machine has ended', diedBy: 0 };

function run(runId: string, objects: ObjectRef[], overrides: Partial<RunRecord> = {}, journal: Partial<Journal> = {}) {
  const record: RunRecord = {
    runId,
    journal: {
      runId,
      startedAt: `2026-03-01T10:0${runId.at(-1)}:00.000Z`,
      expiresAt: '2026-03-02T10:00:00.000Z',
      namespace: 'shop',
      state: 'applied',
      command: 'kguard apply -f app.yaml',
      holder: { host: 'ci-runner-7', pid: 4242 },
      objects: objects.map((ref) => ({ ref, before: null })),
      ...journal,
    },
    secrets: [{ namespace: 'shop', name: `${runId}-journal` }],
    missing: [],
    expired: false,
    leases: [],
    liveness: dead,
    ...overrides,
  };
  return record;
}

describe('deadRunsOn', () => {
  it('picks the dead runs whose journal holds one of the objects, newest first', () => {
    const runs = [run('kguard-a1', [web]), run('kguard-a3', [settings, other]), run('kguard-a2', [other])];
    expect(deadRunsOn(runs, [web, settings]).map((found) => found.runId)).toEqual(['kguard-a3', 'kguard-a1']);
  });

  it('leaves a live run to the Leases, and a run whose life cannot be told to a person', () => {
    const live = run('kguard-a1', [web], { liveness: { state: 'live', why: 'its process 4242 is running' } });
    const unknown = run('kguard-a2', [web], { liveness: { state: 'unknown', why: 'it holds no Lease' } });
    expect(deadRunsOn([live, unknown], [web])).toEqual([]);
  });

  it('leaves finished and expired journals (the next journalled run deletes expired ones)', () => {
    const finished = run('kguard-a1', [web], {}, { state: 'finished' });
    const expired = run('kguard-a2', [web], { expired: true });
    expect(deadRunsOn([finished, expired], [web])).toEqual([]);
  });

  it('hands the expired journals it listed to the run, each namespace its own Secrets, none of a live or unexpired one', () => {
    const expired = run('kguard-a1', [web], {
      expired: true,
      secrets: [
        { namespace: 'shop', name: 'kguard-a1-journal', uid: 'u1' },
        { namespace: 'cart', name: 'kguard-a1-journal', uid: 'u2' },
      ],
    });
    const current = run('kguard-a2', [web]);
    const leasesOnly = { ...run('kguard-a3', [web], { expired: true }), journal: undefined };
    expect(
      expiredJournals([
        { namespace: 'shop', runs: [expired, current, leasesOnly] },
        { namespace: 'cart', runs: [expired] },
      ]),
    ).toEqual([
      [{ namespace: 'shop', name: 'kguard-a1-journal', uid: 'u1' }],
      [{ namespace: 'cart', name: 'kguard-a1-journal', uid: 'u2' }],
    ]);
  });

  it('leaves Leases without a journal to the Leases (nothing to restore)', () => {
    const leasesOnly = { ...run('kguard-a1', [web]), journal: undefined };
    expect(deadRunsOn([leasesOnly], [web])).toEqual([]);
  });
});

describe('lookAhead', () => {
  /** A cluster with no runs: it notes which namespace each labelled list was of. */
  function listingKubectl() {
    const listed: string[] = [];
    const kubectl = {
      listLabelled: async (type: string, namespace: string | undefined) => {
        listed.push(`${type} in ${namespace}`);
        return [];
      },
    } as unknown as RecoveryDeps['kubectl'];
    const deps = { kubectl, probe: () => 'unknown' } as unknown as RecoveryDeps;
    return { listed, deps };
  }

  it('lists the runs of its namespace once: the look after the dry run takes them, and lists only the other namespaces', async () => {
    const { listed, deps } = listingKubectl();
    const looked = lookAhead('shop', deps);
    expect(listed.sort()).toEqual(['leases.coordination.k8s.io in shop', 'secrets in shop']);
    listed.length = 0;
    const found = await finishDeadRuns([web], ['shop', 'cart'], { deadlineMs: 1000 }, { ...deps, looked });
    expect(found.recovered).toEqual([]);
    expect(listed.sort()).toEqual(['leases.coordination.k8s.io in cart', 'secrets in cart']);
  });
});
