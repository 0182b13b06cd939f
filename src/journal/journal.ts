// The run journal, as plain data. Pure: src/journal/store.ts writes it (the leases that keep two
// runs apart are in lease.ts and leases.ts).
//
// Journal: before the apply, kguard writes the pre-apply copy of every object the apply holds to
// the cluster, as Secrets in the object's own namespace (the copies may hold Secrets, so the
// journal gets exactly their protection: whoever may read Secrets in that namespace; pieces.ts).
// After the apply it adds the objects as the apply left them. A run that ends cleanly deletes it;
// a run killed half-way leaves it for `kguard rollback RUN`; journals expire after a day.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { FleetRun } from '../model/fleet.js';
import type { ObjectChange } from '../model/result.js';
import { canonicalJson, changeOf, sameContent } from '../objects/compare.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { RunHolder } from './holder.js';
import { JOURNAL_LABEL, JOURNAL_TYPE, MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL } from './labels.js';

export const JOURNAL_VERSION = 'v1';
/** A journal older than this is an abandoned run: `kguard status` says so and runs delete it. */
export const JOURNAL_TTL_MS = 24 * 60 * 60 * 1000;

/** `finished`: the run ended and needs no one, but its journal could not be deleted. */
export type JournalState = 'applying' | 'applied' | 'restoring' | 'finished';

export interface JournalEntry {
  ref: ObjectRef;
  /** The object before the apply; null when it did not exist. */
  before: KubeObject | null;
  /** The object as the apply left it; undefined until the apply is done (null: it deleted it). */
  applied?: KubeObject | null;
  /** The position of its phase in a phased apply: a restore puts later phases back first. */
  stage?: number;
}

export interface Journal {
  runId: string;
  startedAt: string;
  expiresAt: string;
  /**
   * Where this journal Secret lives. A run's journal is several Secrets (pieces.ts): the copies of
   * each namespace's objects in that namespace; read back whole, the run's home namespace.
   */
  namespace: string;
  /** The run's home: where its first journal Secret is (its Leases name it), and the last one deleted. */
  home?: string;
  /** Where every journal Secret of the run is: namespace → how many. */
  pieces?: Record<string, number>;
  /** Where the run journals and leases its cluster-scoped objects (--journal-namespace). */
  clusterNamespace?: string;
  state: JournalState;
  /** kguard's command line, for `kguard status`. */
  command: string;
  /** The process running the run: `kguard status` and `rollback` tell a live run from a dead one. */
  holder?: RunHolder;
  /**
   * kubectl's per-request deadline in this run (`timeout=` on every request): a request of a run
   * killed during its apply can land up to this long after the kill, so `kguard rollback` waits it out.
   */
  requestTimeoutMs?: number;
  /** --run-label: the CD tool's name for the run (PipeCD's SR_DEPLOYMENT_ID, GitHub's run id); `kguard rollback --run-label` finds it. */
  runLabel?: string;
  objects: JournalEntry[];
  /** A fleet's cluster: the fleet run and its contexts (`kguard status/rollback --contexts` read it). */
  fleet?: FleetRun;
}

/** kguard-<time>-<random>: sorts by start time, fits a Secret and a Lease holder name. */
export function newRunId(now: Date, random: string): string {
  return `kguard-${now.getTime().toString(36)}-${random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 6)}`;
}

/** fleet-<time>-<random>: one id for a fleet run, journalled in each cluster it changes. */
export function newFleetRunId(now: Date, random: string): string {
  return newRunId(now, random).replace(/^kguard-/, 'fleet-');
}

/** A run's journal Secrets: `<run>-journal`, then `<run>-journal-2`… in each namespace (pieces.ts). */
export function journalName(runId: string, index = 0): string {
  return index === 0 ? `${runId}-journal` : `${runId}-journal-${index + 1}`;
}

/** A journal as a Secret holds it: gzip-compressed JSON (of a journal, or of a part of one, to measure it). */
export function pack(journal: unknown): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(journal)));
}

/**
 * One journal Secret: gzip-compressed JSON under data.journal, labelled with the journal format and
 * the run. pieces.ts decides what each one holds and keeps each under the API server's limit.
 */
export function journalSecret(
  journal: Journal,
  options: { index?: number; packed?: Buffer; resourceVersion?: string } = {},
): KubeObject {
  const packed = (options.packed ?? pack(journal)).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: JOURNAL_TYPE,
    metadata: {
      name: journalName(journal.runId, options.index),
      namespace: journal.namespace,
      labels: { [JOURNAL_LABEL]: JOURNAL_VERSION, [MANAGED_BY_LABEL]: MANAGED_BY, [RUN_LABEL]: journal.runId },
      annotations: {
        'kguard.dev/run': journal.runId,
        'kguard.dev/state': journal.state,
        'kguard.dev/started-at': journal.startedAt,
        'kguard.dev/expires-at': journal.expiresAt,
        'kguard.dev/objects': String(journal.objects.length),
        ...(journal.fleet ? { 'kguard.dev/fleet-run': journal.fleet.runId } : {}),
      },
      ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
    },
    data: { journal: packed },
  };
}

export function readJournalSecret(secret: KubeObject): Journal {
  const data = (secret as { data?: { journal?: string } }).data?.journal;
  if (!data) throw new Error(`secret ${secret.metadata.name} holds no kguard journal`);
  return JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as Journal;
}

/**
 * What a restore of the run puts back (`kguard rollback`, `kguard undo`): each journalled object compared with the cluster now.
 * Known as applied: the restore checks it still is (someone else's change wins). Not known (the
 * run died during the apply): the live object stands in for it, the one guess a journal cannot avoid.
 */
export function changesToRestore(
  journal: Journal,
  live: ReadonlyMap<string, KubeObject | undefined>,
): Array<{ ref: ObjectRef; change: ObjectChange }> {
  return journal.objects.map((entry) => {
    const now = live.get(objectKey(entry.ref));
    // Gone is gone: an object the run created that no longer exists has nothing to restore.
    if (!entry.before && !now) return { ref: entry.ref, change: { change: 'absent' } };
    // Equal is equal: a person who put the object back exactly (even as a new object) finished it.
    if (entry.before && now && now.metadata.uid !== entry.before.metadata.uid && sameContent(entry.before, now)) {
      return { ref: entry.ref, change: { change: 'unchanged', before: entry.before, after: now } };
    }
    // Killed mid-restore: the values are back already (the first write landed); what may be
    // left is the second write, of the field owners, from the live object.
    if (entry.before && now && now.metadata.uid === entry.before.metadata.uid && sameContent(entry.before, now)) {
      const owners =
        canonicalJson(entry.before.metadata.managedFields ?? []) === canonicalJson(now.metadata.managedFields ?? []);
      const change: ObjectChange = owners
        ? { change: 'unchanged', before: entry.before, after: now }
        : { change: 'configured', before: entry.before, after: now, paths: ['metadata.managedFields'] };
      return { ref: entry.ref, change };
    }
    const applied = entry.applied === undefined ? now : (entry.applied ?? undefined);
    const change = changeOf(entry.before ?? undefined, applied);
    return { ref: entry.ref, change };
  });
}
