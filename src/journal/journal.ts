// The run journal, as plain data. Pure: src/journal/store.ts writes it (the leases that keep two
// runs apart are in lease.ts and leases.ts).
//
// Journal: before the apply, kguard writes the pre-apply copy of every object the apply holds to
// the cluster, as a Secret (the copies may hold Secrets, so the journal gets exactly a Secret's
// protection: whoever may read Secrets in that namespace). After the apply it adds the objects as
// the apply left them. A run that ends cleanly deletes it; a run killed half-way leaves it for
// `kguard rollback RUN`; journals expire after a day.
import { gunzipSync, gzipSync } from 'node:zlib';
import { JournalTooLargeError } from '../errors.js';
import type { ObjectChange } from '../model/result.js';
import { canonicalJson, changeOf, sameContent } from '../objects/compare.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { RunHolder } from './holder.js';
import { JOURNAL_LABEL, JOURNAL_TYPE, MANAGED_BY, MANAGED_BY_LABEL } from './labels.js';

export const JOURNAL_VERSION = 'v1';
/** A journal older than this is an abandoned run: `kguard status` says so and runs delete it. */
export const JOURNAL_TTL_MS = 24 * 60 * 60 * 1000;
/** The API server refuses Secrets over 1 MiB (apimachinery validation: MaxSecretSize). */
const MAX_SECRET_BYTES = 1024 * 1024;

/** `finished`: the run ended and needs no one, but its journal could not be deleted. */
export type JournalState = 'applying' | 'applied' | 'restoring' | 'finished';

export interface JournalEntry {
  ref: ObjectRef;
  /** The object before the apply; null when it did not exist. */
  before: KubeObject | null;
  /** The object as the apply left it; undefined until the apply is done (null: it deleted it). */
  applied?: KubeObject | null;
  /** The position of its phase in a phased apply: `kguard rollback` undoes later phases first. */
  stage?: number;
}

export interface Journal {
  runId: string;
  startedAt: string;
  expiresAt: string;
  /** Where the journal Secret lives. */
  namespace: string;
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
  objects: JournalEntry[];
}

/** kguard-<time>-<random>: sorts by start time, fits a Secret and a Lease holder name. */
export function newRunId(now: Date, random: string): string {
  return `kguard-${now.getTime().toString(36)}-${random.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 6)}`;
}

export function journalName(runId: string): string {
  return `${runId}-journal`;
}

/**
 * The journal as the Secret that holds it: gzip-compressed JSON under data.journal. Too big for a
 * Secret: JournalTooLargeError.
 */
export function journalSecret(journal: Journal, resourceVersion?: string): KubeObject {
  const packed = gzipSync(Buffer.from(JSON.stringify(journal))).toString('base64');
  if (packed.length > MAX_SECRET_BYTES) throw new JournalTooLargeError(packed.length, MAX_SECRET_BYTES, journal.objects.length, journal.namespace);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: JOURNAL_TYPE,
    metadata: {
      name: journalName(journal.runId),
      namespace: journal.namespace,
      labels: { [JOURNAL_LABEL]: JOURNAL_VERSION, [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: {
        'kguard.dev/run': journal.runId,
        'kguard.dev/state': journal.state,
        'kguard.dev/started-at': journal.startedAt,
        'kguard.dev/expires-at': journal.expiresAt,
        'kguard.dev/objects': String(journal.objects.length),
      },
      ...(resourceVersion ? { resourceVersion } : {}),
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
 * What `kguard rollback` puts back: each journalled object compared with the cluster now.
 * Known as applied: the restore checks it still is (someone else's change wins). Not known (the
 * run died during the apply): the live object stands in for it, the one guess a journal cannot avoid.
 */
export function changesToUndo(journal: Journal, live: ReadonlyMap<string, KubeObject | undefined>): Array<{ ref: ObjectRef; change: ObjectChange }> {
  return journal.objects.map((entry) => {
    const now = live.get(objectKey(entry.ref));
    // Gone is gone: an object the run created that no longer exists has nothing to undo.
    if (!entry.before && !now) return { ref: entry.ref, change: { change: 'absent' } };
    // Equal is equal: a person who put the object back exactly (even as a new object) finished it.
    if (entry.before && now && now.metadata.uid !== entry.before.metadata.uid && sameContent(entry.before, now)) {
      return { ref: entry.ref, change: { change: 'unchanged', before: entry.before, after: now } };
    }
    // Killed mid-restore: the values are back already (the first write landed); what may be
    // left is the second write, of the field owners, from the live object.
    if (entry.before && now && now.metadata.uid === entry.before.metadata.uid && sameContent(entry.before, now)) {
      const owners = canonicalJson(entry.before.metadata.managedFields ?? []) === canonicalJson(now.metadata.managedFields ?? []);
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
