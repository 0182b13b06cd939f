// When an unfinished journal may be deleted without asking anyone (#45). Pure.
//
// A journal holds the only pre-apply copies of a run's objects: it goes only when its run is known
// to be over and it is older than JOURNAL_TTL_MS by the API server's clock (its Secret's
// creationTimestamp against the server's "now", server-clock.ts). Over: it ended itself (marked
// finished), its process on this machine has ended, its Lease has stood still for its whole
// duration by the server's clock (liveness.ts), or it holds no Lease at all (a run keeps its Lease
// from before its journal is written until after it is deleted). The writer's
// `kguard.dev/expires-at` is its clock: a machine 25 h ahead once deleted a live run's journal by it.
import { JOURNAL_TTL_MS, type Journal } from './journal.js';
import type { RunLiveness } from './liveness.js';

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
