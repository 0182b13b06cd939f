// Is a run alive? Pure: the caller lists the journal and the run's Leases, and probes the process.
//
// A run on this machine is alive while its process runs (holder.ts). A run elsewhere is alive
// while its Leases are renewed: it renews them every third of their leaseDurationSeconds
// (held-leases.ts), so a Lease not renewed for a whole duration belongs to a dead run. That one
// compares the Lease's renewTime with this machine's clock, the only clock a one-shot command has:
// the line says so.
import type { KubeObject } from '../objects/model.js';
import { holderOfAnnotations, type HolderProbe, type RunHolder } from './holder.js';
import type { Journal } from './journal.js';
import { LEASE_DURATION_SECONDS } from './lease.js';

export type RunLiveness =
  | { state: 'live'; why: string }
  /** `diedBy`: the latest the run can have died (epoch ms): its in-flight requests end by then plus their timeout. */
  | { state: 'dead'; why: string; diedBy: number }
  | { state: 'finished'; why: string }
  /** No process to probe and no Lease to read: nothing tells. */
  | { state: 'unknown'; why: string };

export function livenessOf(
  journal: Journal | undefined,
  leases: readonly KubeObject[],
  now: number,
  probe: HolderProbe,
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
    const renewed = Date.parse(leaseSpec(lease).renewTime ?? '');
    return Number.isFinite(renewed)
      ? [{ renewed, durationMs: (leaseSpec(lease).leaseDurationSeconds ?? LEASE_DURATION_SECONDS) * 1000 }]
      : [];
  });
  if (renewals.length === 0) {
    return {
      state: 'unknown',
      why: holder
        ? `it ran on ${holder.host} and holds no Lease that would say whether it lives`
        : 'it holds no Lease that would say whether it lives',
    };
  }
  const last = renewals.reduce((newest, renewal) => (renewal.renewed > newest.renewed ? renewal : newest));
  const ago = formatAgo(now - last.renewed);
  const where = holder ? ` on ${holder.host}` : '';
  if (now - last.renewed <= last.durationMs)
    return { state: 'live', why: `it renewed its Lease ${ago} ago${where} (by this machine's clock)` };
  // It renews every third of the duration: it was alive at its last renewal and dead a third later.
  return {
    state: 'dead',
    why: `its Lease has not been renewed for ${ago}${where} (by this machine's clock)`,
    diedBy: last.renewed + last.durationMs / 3,
  };
}

function leaseSpec(lease: KubeObject): { renewTime?: string; leaseDurationSeconds?: number } {
  return (lease as { spec?: { renewTime?: string; leaseDurationSeconds?: number } }).spec ?? {};
}

function formatAgo(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}
