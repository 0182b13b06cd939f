// The run journal across Secrets: each namespace's copies in that namespace, cut into Secrets well
// under the API server's 1 MiB, read back whole; one object too big for any Secret is refused
// before the apply.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ExitCode, JournalTooLargeError } from '../../src/errors.js';
import type { Kubectl } from '../../src/kubectl/types.js';
import { readJournalSecret, type Journal, type JournalEntry } from '../../src/journal/journal.js';
import {
  journalPieces,
  MAX_SECRET_BYTES,
  mergePieces,
  PIECE_BYTES,
  type JournalPlacement,
} from '../../src/journal/pieces.js';
import { RunJournal } from '../../src/journal/store.js';
import { type KubeObject, refOf } from '../../src/objects/model.js';

/** A ConfigMap whose data does not compress: random bytes, base64-encoded (as a manifest would carry them). */
function bigConfigMap(name: string, bytes: number, namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-${name}` },
    data: { blob: randomBytes(bytes).toString('base64') },
  } as KubeObject;
}

function entryOf(object: KubeObject): JournalEntry {
  return {
    ref: refOf(object),
    before: object,
  };
}

function journalOf(objects: KubeObject[], namespace = 'shop'): Journal {
  return {
    runId: 'kguard-test-run',
    startedAt: '2024-05-01T10:00:00.000Z',
    expiresAt: '2024-05-02T10:00:00.000Z',
    namespace,
    state: 'applying',
    command: 'kguard apply -f big/',
    objects: objects.map(entryOf),
  };
}

const placement: JournalPlacement = { clusterNamespace: 'kube-system', created: new Set() };

/** Records the writes; every one succeeds. */
function recordingKubectl(): {
  kubectl: Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>;
  writes: string[];
  live: Map<string, KubeObject>;
} {
  const writes: string[] = [];
  const live = new Map<string, KubeObject>();
  let version = 0;
  const written = (verb: string) => async (object: KubeObject) => {
    writes.push(`${verb} ${object.metadata.namespace}/${object.metadata.name}`);
    const stored = {
      ...object,
      metadata: { ...object.metadata, uid: `u-${object.metadata.name}`, resourceVersion: String((version += 1)) },
    };
    live.set(`${object.metadata.namespace}/${object.metadata.name}`, stored);
    return { ok: true as const, object: stored };
  };
  return {
    writes,
    live,
    kubectl: {
      create: written('create'),
      replace: written('replace'),
      deleteExact: async (path: string) => {
        const [, namespace, , name] = /namespaces\/([^/]+)\/(secrets)\/([^/?]+)/.exec(path)!.slice(0);
        writes.push(`delete ${namespace}/${name}`);
        live.delete(`${namespace}/${name}`);
        return { ok: true as const };
      },
      getObject: async () => undefined,
      listLabelled: async () => [...live.values()],
    } as unknown as Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>,
  };
}

describe('journalPieces', () => {
  it('cuts 30 ConfigMaps of 100 KB of random data into several Secrets, each well under 1 MiB, every copy in exactly one', () => {
    const objects = Array.from({ length: 30 }, (_, index) => bigConfigMap(`big-${index}`, 100 * 1024));
    const pieces = journalPieces(journalOf(objects), placement);
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    for (const piece of pieces) {
      expect(piece.packed.length).toBeLessThanOrEqual(PIECE_BYTES);
      expect(piece.journal.pieces).toEqual({ shop: pieces.length });
      // What the Secret holds is what was measured.
      expect(JSON.parse(gunzipSync(piece.packed).toString('utf8'))).toEqual(piece.journal);
    }
    expect(pieces.map((piece) => piece.index)).toEqual(pieces.map((_, index) => index));
    expect(pieces.flatMap((piece) => piece.journal.objects.map((entry) => entry.ref.name))).toEqual(
      objects.map((object) => object.metadata.name),
    );
  });

  it('journals each namespace in itself, cluster-scoped objects in the journal namespace, nothing for a namespace the apply creates', () => {
    const secret = (name: string, namespace: string): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace },
        data: { password: 'c2VjcmV0' },
      }) as KubeObject;
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
    } as KubeObject;
    const journal = journalOf(
      [secret('db', 'shop'), secret('db', 'billing'), crd, secret('fresh', 'new-team')],
      'kube-system',
    );
    const pieces = journalPieces(journal, { clusterNamespace: 'kube-system', created: new Set(['new-team']) });
    const where = Object.fromEntries(
      pieces.map((piece) => [
        piece.namespace,
        piece.journal.objects.map((entry) => `${entry.ref.kind}/${entry.ref.namespace}/${entry.ref.name}`),
      ]),
    );
    expect(where).toEqual({
      shop: ['Secret/shop/db'],
      billing: ['Secret/billing/db'],
      'kube-system': ['CustomResourceDefinition//widgets.example.com'],
    });
    // Every piece knows where the others are and which is the run's home.
    for (const piece of pieces)
      expect(piece.journal).toMatchObject({
        namespace: piece.namespace,
        home: 'kube-system',
        pieces: { shop: 1, billing: 1, 'kube-system': 1 },
      });
  });

  it("refuses one object whose copy alone passes a Secret's 1 MiB, naming it (exit 2)", () => {
    const journal = journalOf([bigConfigMap('small', 100), bigConfigMap('huge', 1100 * 1024)]);
    let refusal: unknown;
    try {
      journalPieces(journal, placement);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(JournalTooLargeError);
    const error = refusal as JournalTooLargeError;
    expect(error.exitCode).toBe(ExitCode.ClusterError);
    expect(error.bytes).toBeGreaterThan(MAX_SECRET_BYTES);
    expect(error.message).toMatch(
      /^kguard cannot journal this apply: the pre-apply copy of configmap\/huge \(namespace shop\) is \d{4} KiB compressed, more than a Secret may hold \(1024 KiB/,
    );
    expect(error.message).toContain('Next: run with --no-journal');
  });
});

describe('mergePieces', () => {
  it('reads a journal back whole from its pieces, and says which namespace is short of one', () => {
    const journal = journalOf([
      ...Array.from({ length: 12 }, (_, index) => bigConfigMap(`big-${index}`, 100 * 1024)),
      bigConfigMap('db', 10, 'billing'),
    ]);
    const pieces = journalPieces(journal, placement).map((piece) => piece.journal);
    const whole = mergePieces(pieces);
    expect(whole.missing).toEqual([]);
    expect(whole.journal.namespace).toBe('shop');
    expect(whole.journal.objects.map((entry) => entry.ref.name).sort()).toEqual(
      journal.objects.map((entry) => entry.ref.name).sort(),
    );
    const short = mergePieces(
      pieces.filter(
        (piece) => !(piece.namespace === 'shop' && piece.objects.some((entry) => entry.ref.name === 'big-0')),
      ),
    );
    expect(short.missing).toEqual(['shop']);
  });

  it('takes the state of the least advanced piece: one still applying makes kguard rollback wait out the apply', () => {
    const pieces = journalPieces(journalOf([bigConfigMap('a', 10), bigConfigMap('b', 10, 'billing')]), placement).map(
      (piece) => piece.journal,
    );
    expect(
      mergePieces([
        { ...pieces[0]!, state: 'applied' },
        { ...pieces[1]!, state: 'applying' },
      ]).journal.state,
    ).toBe('applying');
    expect(mergePieces(pieces.map((piece) => ({ ...piece, state: 'finished' as const }))).journal.state).toBe(
      'finished',
    );
  });
});

describe('RunJournal', () => {
  it('writes its Secrets before the apply (the home one first), grows and shrinks them as the journal does, and deletes them all at the end, the home one last', async () => {
    const { kubectl, writes, live } = recordingKubectl();
    const small = journalOf([bigConfigMap('a', 10), bigConfigMap('b', 10, 'billing')]);
    const journal = await RunJournal.start(kubectl, small, placement, 10_000);
    expect(writes).toEqual(['create shop/kguard-test-run-journal', 'create billing/kguard-test-run-journal']);
    expect(journal.pieces).toEqual({ shop: 1, billing: 1 });

    // After the apply the copies grow past one Secret: more Secrets in shop.
    writes.length = 0;
    const grown = Array.from({ length: 10 }, (_, index) => bigConfigMap(`big-${index}`, 100 * 1024));
    await journal.update({ state: 'applied', objects: [...small.objects, ...grown.map(entryOf)] });
    expect(journal.pieces.shop).toBeGreaterThan(1);
    expect(writes.filter((write) => write.startsWith('create'))).not.toEqual([]);
    expect(readJournalSecret(live.get('shop/kguard-test-run-journal')!).state).toBe('applied');

    // Smaller again: the Secrets no longer needed go.
    writes.length = 0;
    await journal.update({ objects: small.objects });
    expect(journal.pieces).toEqual({ shop: 1, billing: 1 });
    expect(writes.filter((write) => write.startsWith('delete')).length).toBeGreaterThan(0);

    writes.length = 0;
    await journal.finish();
    expect(writes).toEqual(['delete billing/kguard-test-run-journal', 'delete shop/kguard-test-run-journal']);
    expect(live.size).toBe(0);
  });

  it('writes nothing when one copy is too big for any Secret', async () => {
    const { kubectl, writes } = recordingKubectl();
    await expect(
      RunJournal.start(kubectl, journalOf([bigConfigMap('huge', 1100 * 1024)]), placement, 10_000),
    ).rejects.toBeInstanceOf(JournalTooLargeError);
    expect(writes).toEqual([]);
  });

  it('after the apply, fails the update with a message that does not say nothing was applied', async () => {
    const { kubectl } = recordingKubectl();
    const started = await RunJournal.start(kubectl, journalOf([bigConfigMap('one', 100)]), placement, 10_000);
    const update = started.update({ state: 'applied', objects: journalOf([bigConfigMap('one', 1100 * 1024)]).objects });
    await expect(update).rejects.toThrow(
      /^kguard could not update its run journal: the copies of configmap\/one \(namespace shop\) would be \d{4} KiB compressed, more than the 1024 KiB a Secret may hold$/,
    );
  });
});

describe('a fleet run in the journal', () => {
  it('records the fleet run id and its contexts in every piece, and names the fleet run on the Secret', async () => {
    const { journalSecret, newFleetRunId } = await import('../../src/journal/journal.js');
    const fleetRunId = newFleetRunId(new Date('2026-12-03T12:00:00Z'), 'A1-b2c3d4');
    expect(fleetRunId).toMatch(/^fleet-[a-z0-9]+-a1b2c3$/);
    const journal: Journal = {
      runId: 'kguard-x-1',
      startedAt: '2026-12-03T12:00:00Z',
      expiresAt: '2026-12-04T12:00:00Z',
      namespace: 'shop',
      state: 'applying',
      command: 'kguard apply',
      objects: [
        { ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a' }, before: null },
        { ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'web', name: 'b' }, before: null },
      ],
      fleet: { runId: fleetRunId, contexts: ['staging', 'eu-1'] },
    };
    const pieces = journalPieces(journal, { clusterNamespace: 'kube-system', created: new Set() });
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      const secret = journalSecret(piece.journal, { index: piece.index, packed: piece.packed });
      expect(secret.metadata.annotations?.['kguard.dev/fleet-run']).toBe(fleetRunId);
      expect(readJournalSecret(secret).fleet).toEqual({ runId: fleetRunId, contexts: ['staging', 'eu-1'] });
    }
  });
});
