// The run journal and the object leases, as plain data. Pure: src/journal/store.ts writes them.
//
// Journal: before the apply, kguard writes the pre-apply copy of every object the apply holds to
// the cluster, as a Secret (the copies may hold Secrets, so the journal gets exactly a Secret's
// protection: whoever may read Secrets in that namespace). After the apply it adds the objects as
// the apply left them. A run that ends cleanly deletes it; a run killed half-way leaves it for
// `kguard rollback RUN`; journals expire after a day.
//
// Leases: before its snapshot a run holds one coordination.k8s.io/v1 Lease per object it may
// change (the Kubernetes way to say "mine for now", as leader election does), so a second run on
// the same object waits instead of recording the first run's unverified state as its "before".
// A Lease names its holder and lasts as long as the run may (apply + watch + restore), so the
// Lease of a run that died expires on its own.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { JournalTooLargeError } from '../errors.js';
import type { ObjectChange } from '../model/result.js';
import { canonicalJson, changeOf, sameContent } from '../objects/compare.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import { JOURNAL_LABEL, JOURNAL_TYPE, MANAGED_BY, MANAGED_BY_LABEL } from './labels.js';

export const JOURNAL_VERSION = 'v1';
/** A journal older than this is an abandoned run: `kguard status` says so and runs delete it. */
export const JOURNAL_TTL_MS = 24 * 60 * 60 * 1000;
/** The API server refuses Secrets over 1 MiB (apimachinery validation: MaxSecretSize). */
const MAX_SECRET_BYTES = 1024 * 1024;

export type JournalState = 'applying' | 'applied' | 'restoring';

export interface JournalEntry {
  ref: ObjectRef;
  /** The object before the apply; null when it did not exist. */
  before: KubeObject | null;
  /** The object as the apply left it; undefined until the apply is done (null: it deleted it). */
  applied?: KubeObject | null;
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

// --- Leases ---------------------------------------------------------------------------------

/** One Lease per object, in the object's namespace (cluster-scoped objects: the journal's). */
export function leaseName(ref: ObjectRef): string {
  return `kguard-lock-${createHash('sha256').update(objectKey(ref)).digest('hex').slice(0, 20)}`;
}

export function leaseNamespace(ref: ObjectRef, home: string): string {
  return ref.namespace || home;
}

export function leaseFor(ref: ObjectRef, home: string, runId: string, durationSeconds: number, now: Date): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: leaseName(ref),
      namespace: leaseNamespace(ref, home),
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: { 'kguard.dev/object': objectKey(ref) },
    },
    spec: {
      holderIdentity: runId,
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(now),
      renewTime: microTime(now),
    },
  };
}

/** A Lease whose holder stopped renewing it longer ago than its duration is free to take. */
export function leaseExpired(lease: KubeObject, now: Date): boolean {
  const spec = (lease as { spec?: { renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number } }).spec ?? {};
  const since = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (Number.isNaN(since)) return true;
  return now.getTime() > since + (spec.leaseDurationSeconds ?? 0) * 1000;
}

export function leaseHolder(lease: KubeObject): string {
  return (lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? 'an unknown holder';
}

/** metav1.MicroTime as the API server writes it: RFC 3339 with microseconds. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
