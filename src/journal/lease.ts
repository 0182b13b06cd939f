// The Leases that keep two runs off the same objects, as plain data. Pure: leases.ts takes,
// renews and lets them go.
//
// A run holds one coordination.k8s.io/v1 Lease per namespace it touches (cluster-scoped objects:
// in its home namespace), not one per object: the Lease lists the run's objects of that
// namespace (`group/Kind/namespace/name`) in one annotation, so a 1,000-object apply in one
// namespace writes one Lease, and one `kubectl get leases -l kguard.dev/lease=v1` reads every
// claim of a namespace. The Lease names its holder (the run id) and is renewed while the run
// lives; a run that died stops renewing, and the others see it stand still.
import { gunzipSync, gzipSync } from 'node:zlib';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import { holderAnnotations, type RunHolder } from './holder.js';
import { LEASE_LABEL, MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL } from './labels.js';

export const LEASE_VERSION = 'v1';
export const OBJECTS_ANNOTATION = 'kguard.dev/objects';
/** A run that had to wait takes a ticket: its place in the line of the runs that want its objects. */
export const TICKET_ANNOTATION = 'kguard.dev/ticket';
/** Where the run's journal is (or will be): a dead holder without one left nothing to restore. */
export const JOURNAL_NAMESPACE_ANNOTATION = 'kguard.dev/journal-namespace';
/** The selector of every kguard Lease of this format in a namespace. */
export const LEASE_SELECTOR = `${LEASE_LABEL}=${LEASE_VERSION}`;
/**
 * How long a Lease holds without renewal; the run renews it every third of that. Short enough
 * that a run that died blocks the next one for about two minutes (well within the default
 * --lock-timeout of 5m); long enough that a renewal queued behind a big restore's writes in the
 * process pool still lands in time.
 */
export const LEASE_DURATION_SECONDS = 120;

/** Up to this size the objects are plain JSON, readable in `kubectl get lease -o yaml`. */
const PLAIN_KEYS_BYTES = 16 * 1024;
/**
 * The API server refuses an object whose annotations add up to more than 256 KiB (apimachinery
 * ValidateAnnotationsSize, TotalAnnotationSizeLimitB): one Lease carries at most this much of
 * objects; more go into further Leases of the same run.
 */
const MAX_KEYS_BYTES = 200 * 1024;
const GZIP_PREFIX = 'gzip,base64:';

export function leaseNamespace(ref: ObjectRef, home: string): string {
  return ref.namespace || home;
}

/** The run's objects by the namespace of their Lease, each under its key. */
export function claimsOf(refs: readonly ObjectRef[], home: string): Map<string, Map<string, ObjectRef>> {
  const claims = new Map<string, Map<string, ObjectRef>>();
  for (const ref of refs) {
    const namespace = leaseNamespace(ref, home);
    let keys = claims.get(namespace);
    if (!keys) claims.set(namespace, (keys = new Map()));
    keys.set(objectKey(ref), ref);
  }
  return claims;
}

/** The first Lease of a run in a namespace is named after the run; further ones get -2, -3... */
export function runLeaseName(runId: string, index: number): string {
  return index === 0 ? runId : `${runId}-${index + 1}`;
}

/** The Leases of one run in one namespace: as many as its keys need (almost always one). */
export function runLeases(
  runId: string,
  namespace: string,
  keys: readonly string[],
  durationSeconds: number,
  now: Date,
  owner: { holder?: RunHolder; journalNamespace?: string; nameBase?: string } = {},
): KubeObject[] {
  return chunksOf([...keys].sort()).map((chunk, index) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: runLeaseName(owner.nameBase ?? runId, index),
      namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [LEASE_LABEL]: LEASE_VERSION, [RUN_LABEL]: runId },
      annotations: {
        [OBJECTS_ANNOTATION]: encodeKeys(chunk),
        ...holderAnnotations(owner.holder),
        ...(owner.journalNamespace ? { [JOURNAL_NAMESPACE_ANNOTATION]: owner.journalNamespace } : {}),
      },
    },
    spec: {
      holderIdentity: runId,
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(now),
      renewTime: microTime(now),
    },
  }));
}

/** The same Lease, renewed now; its resourceVersion makes the write conditional. */
export function renewed(lease: KubeObject, now: Date): KubeObject {
  const spec = (lease as { spec?: Record<string, unknown> }).spec ?? {};
  return { ...lease, spec: { ...spec, renewTime: microTime(now) } };
}

export function encodeKeys(keys: readonly string[]): string {
  const json = JSON.stringify(keys);
  if (Buffer.byteLength(json) <= PLAIN_KEYS_BYTES) return json;
  return `${GZIP_PREFIX}${gzipSync(json).toString('base64')}`;
}

/** The keys an annotation lists; undefined when it cannot be read (another format, damaged). */
export function decodeKeys(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  try {
    const json = value.startsWith(GZIP_PREFIX)
      ? gunzipSync(Buffer.from(value.slice(GZIP_PREFIX.length), 'base64')).toString('utf8')
      : value;
    const keys: unknown = JSON.parse(json);
    return Array.isArray(keys) && keys.every((key) => typeof key === 'string') ? keys : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which of `wanted` a Lease holds. A kguard Lease whose objects cannot be read holds all of them:
 * a run never goes ahead on a claim it cannot read.
 */
export function heldOf(lease: KubeObject, wanted: ReadonlyMap<string, ObjectRef>): ObjectRef[] {
  const keys = decodeKeys(lease.metadata.annotations?.[OBJECTS_ANNOTATION]);
  if (!keys) return [...wanted.values()];
  return keys.flatMap((key) => {
    const ref = wanted.get(key);
    return ref ? [ref] : [];
  });
}

/** A waiting run's place in line; undefined before it has one (it is choosing, or it went straight in). */
export function ticketOf(lease: KubeObject): number | undefined {
  const ticket = Number(lease.metadata.annotations?.[TICKET_ANNOTATION] ?? NaN);
  return Number.isSafeInteger(ticket) && ticket > 0 ? ticket : undefined;
}

export function withTicket(lease: KubeObject, ticket: number): KubeObject {
  return {
    ...lease,
    metadata: {
      ...lease.metadata,
      annotations: { ...lease.metadata.annotations, [TICKET_ANNOTATION]: String(ticket) },
    },
  };
}

/**
 * Whether another run's Lease goes before this run. Without a ticket of its own this run goes
 * after every Lease; a Lease without a ticket goes before every run (its holder may be inside).
 * Tickets go in order, equal tickets by run id: one order all runs agree on.
 */
export function goesBefore(lease: KubeObject, mine: { ticket: number | undefined; runId: string }): boolean {
  const theirs = ticketOf(lease);
  if (theirs === undefined || mine.ticket === undefined) return true;
  return theirs < mine.ticket || (theirs === mine.ticket && leaseHolder(lease) < mine.runId);
}

export function leaseHolder(lease: KubeObject): string {
  return (lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? 'an unknown holder';
}

function durationMsOf(lease: KubeObject): number {
  const seconds = (lease as { spec?: { leaseDurationSeconds?: unknown } }).spec?.leaseDurationSeconds;
  return (
    (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : LEASE_DURATION_SECONDS) * 1000
  );
}

/**
 * What this run has seen of other runs' Leases: since when, by this run's own clock, each one has
 * had the resourceVersion it has. A Lease is expired only when this run has seen it stand still
 * for longer than its leaseDurationSeconds: its holder stopped renewing it. Its renewTime is never
 * compared with this machine's wall clock, which may be minutes off the holder's.
 */
export class LeaseObservations {
  private readonly seen = new Map<string, { resourceVersion: string; since: number }>();

  /** Records a Lease as listed at `now` (clock milliseconds). */
  see(lease: KubeObject, now: number): void {
    const id = identityOf(lease);
    const resourceVersion = lease.metadata.resourceVersion ?? '';
    if (this.seen.get(id)?.resourceVersion !== resourceVersion) this.seen.set(id, { resourceVersion, since: now });
  }

  expired(lease: KubeObject, now: number): boolean {
    const seen = this.seen.get(identityOf(lease));
    if (!seen || seen.resourceVersion !== (lease.metadata.resourceVersion ?? '')) return false;
    return now - seen.since > durationMsOf(lease);
  }
}

function identityOf(lease: KubeObject): string {
  return `${lease.metadata.namespace ?? ''}/${lease.metadata.name}/${lease.metadata.uid ?? ''}`;
}

/** Splits sorted keys into as few parts as keep each part's annotation within MAX_KEYS_BYTES. */
function chunksOf(keys: readonly string[]): string[][] {
  for (let parts = 1; ; parts *= 2) {
    const size = Math.ceil(keys.length / parts);
    const chunks = Array.from({ length: Math.ceil(keys.length / size) || 1 }, (_, index) =>
      keys.slice(index * size, (index + 1) * size),
    );
    if (size <= 1 || chunks.every((chunk) => encodeKeys(chunk).length <= MAX_KEYS_BYTES)) return chunks;
  }
}

/** metav1.MicroTime as the API server writes it: RFC 3339 with microseconds. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
