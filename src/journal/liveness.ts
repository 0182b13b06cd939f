// Is a run alive? Pure: the caller lists the journal and the run's Leases, and probes the process.
//
// A run on this machine is alive while its process runs (holder.ts). A run elsewhere is alive
// while its Leases are renewed: it renews them every third of their leaseDurationSeconds
// (held-leases.ts), so a Lease not renewed for a whole duration belongs to a dead run. How long
// it has stood still is told by the API server's clock alone: each renewal changes spec.renewTime,
// so the API server stamps the writer's managedFields entry with its own time
// (apimachinery managedfieldsupdater.go: `managed.Times()[manager] = &metav1.Time{Time: time.Now().UTC()}`
// when the operation changed a field), and the caller reads the server's "now" from an object it
// stamps (server-clock.ts). The renewTime is the writer's clock and this machine's clock is
// another: a run on a machine a day ahead would call every other run dead, and one a day behind
// would keep a dead one alive (#45). No server time: nothing tells, and the run is `unknown`.
import type { KubeObject } from '../objects/model.js';
import { holderOfAnnotations, type HolderProbe, type RunHolder } from './holder.js';
import { JOURNAL_TTL_MS, type Journal } from './journal.js';
import { LEASE_DURATION_SECONDS } from './lease.js';

export type RunLiveness =
  | { state: 'live'; why: string }
  /** `diedBy`: the latest the run can have died (epoch ms, this machine's clock): its in-flight requests end by then plus their timeout. */
  | { state: 'dead'; why: string; diedBy: number }
  | { state: 'finished'; why: string }
  /** No process to probe and no Lease to read: nothing tells. */
  | { state: 'unknown'; why: string };

/**
 * `now`: this machine's clock (for `diedBy` only). `serverNow`: the API server's clock at the
 * listing (server-clock.ts), against which the Leases' server-stamped renewals are timed.
 */
export function livenessOf(
  journal: Journal | undefined,
  leases: readonly KubeObject[],
  now: number,
  probe: HolderProbe,
  serverNow?: number,
): RunLiveness {
  if (journal?.state === 'finished')
    return { state: 'finished', why: 'it ended; only its journal could not be deleted' };
  const holder: RunHolder | undefined =
    journal?.holder ?? leases.map((lease) => holderOfAnnotations(lease.metadata.annotations)).find(Boolean);
  const found = holder ? probe(holder) : 'elsewhere';
  if (holder && found === 'running')
    return { state: 'live', why: `its process ${holder.pid} is running on this machine` };
  if (holder && found === 'gone')
    return { state: 'dead', why: `its process ${holder.pid} on this machine has ended`, diedBy: now };
  const renewals = leases.flatMap((lease) => {
    const renewed = serverRenewedAt(lease);
    return renewed === undefined
      ? []
      : [{ renewed, durationMs: (leaseSpec(lease).leaseDurationSeconds ?? LEASE_DURATION_SECONDS) * 1000 }];
  });
  const where = holder ? ` on ${holder.host}` : '';
  if (renewals.length === 0 || serverNow === undefined) {
    return {
      state: 'unknown',
      why:
        renewals.length > 0
          ? `it ran${where} and the API server's clock could not be read to time its Lease`
          : holder
            ? `it ran on ${holder.host} and holds no Lease that would say whether it lives`
            : 'it holds no Lease that would say whether it lives',
    };
  }
  const last = renewals.reduce((newest, renewal) => (renewal.renewed > newest.renewed ? renewal : newest));
  const stillMs = Math.max(0, serverNow - last.renewed);
  const ago = formatAgo(stillMs);
  if (stillMs <= last.durationMs)
    return { state: 'live', why: `it renewed its Lease ${ago} ago${where} (by the API server's clock)` };
  // It renews every third of the duration: it was alive at its last renewal and dead a third later.
  return {
    state: 'dead',
    why: `its Lease has not been renewed for ${ago}${where} (by the API server's clock)`,
    diedBy: now - stillMs + last.durationMs / 3,
  };
}

/**
 * When the API server last stamped a write of the Lease: the newest time of its managedFields
 * entries (a renewal changes spec.renewTime, so its writer's entry moves), else its creation.
 * Never spec.renewTime: that is the writer's clock.
 */
export function serverRenewedAt(lease: KubeObject): number | undefined {
  const times = (lease.metadata.managedFields ?? [])
    .map((entry) => Date.parse((entry as { time?: string }).time ?? ''))
    .filter(Number.isFinite);
  if (times.length > 0) return Math.max(...times);
  const created = Date.parse(lease.metadata.creationTimestamp ?? '');
  return Number.isFinite(created) ? created : undefined;
}

function leaseSpec(lease: KubeObject): { leaseDurationSeconds?: number } {
  return (lease as { spec?: { leaseDurationSeconds?: number } }).spec ?? {};
}

function formatAgo(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}

// When an unfinished journal may be deleted without asking anyone (#45).
//
// A journal holds the only pre-apply copies of a run's objects: it goes only when its run is known
// to be over and it is older than JOURNAL_TTL_MS by the API server's clock (its Secret's
// creationTimestamp against the server's "now", server-clock.ts). Over: it ended itself (marked
// finished), its process on this machine has ended, its Lease has stood still for its whole
// duration by the server's clock (liveness.ts), or it holds no Lease at all (a run keeps its Lease
// from before its journal is written until after it is deleted). The writer's
// `kguard.dev/expires-at` is its clock: a machine 25 h ahead once deleted a live run's journal by it.
export interface ExpiryFacts {
  journal?: Journal;
  /** When the API server created the journal's first Secret. */
  createdAt?: number;
  leases: readonly unknown[];
  liveness: RunLiveness;
}

/** The run is known to be over: nothing will write its journal or its objects again. */
export function runIsOver({ leases, liveness }: Pick<ExpiryFacts, 'leases' | 'liveness'>): boolean {
  if (liveness.state === 'finished' || liveness.state === 'dead') return true;
  return liveness.state !== 'live' && leases.length === 0;
}

/** Expired: over, and older than a day by the API server's clock. No server time: never. */
export function journalExpired(facts: ExpiryFacts, serverNow: number | undefined): boolean {
  if (!facts.journal || facts.createdAt === undefined || serverNow === undefined) return false;
  return serverNow - facts.createdAt > JOURNAL_TTL_MS && runIsOver(facts);
}
