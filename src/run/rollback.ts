// `kguard rollback [RUN]` and `kguard status`: finish a run that could not finish itself (killed,
// or it needed a person), from its journal in the cluster. The same restore as an apply's, with
// the same rule: someone else's change wins.
import { isChangeKind } from '../objects/compare.js';
import type { Clock } from '../clock.js';
import { InputError } from '../errors.js';
import { readObjects } from '../kubectl/read-objects.js';
import type { Kubectl } from '../kubectl/types.js';
import { changesToUndo, type Journal } from '../journal/journal.js';
import { leaseNamespace } from '../journal/lease.js';
import { releaseLeftLeases } from '../journal/leases.js';
import { listJournals, removeJournal, type JournalListing } from '../journal/store.js';
import { objectKey, typeArg, type KubeObject } from '../objects/model.js';
import { planRestore } from '../rollback/plan.js';
import { executeRestore, type RestoreDeps } from '../rollback/restore.js';
import type { RestoreResult } from '../model/result.js';
import type { Reporter } from '../model/events.js';

export interface RollbackDeps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  keepCopy: RestoreDeps['keepCopy'];
}

export interface RollbackResult {
  runId: string;
  /** Objects written back, deleted or created again. */
  restored: number;
  /** Objects already as they were before the run. */
  untouched: number;
  /** Objects a person must look at (someone else's change, a refused write). */
  needsPerson: number;
  results: Map<string, RestoreResult>;
}

/** The run to roll back: the one named, or the only unfinished one. */
export function pickJournal(listings: readonly JournalListing[], runId: string | undefined): Journal {
  if (runId) {
    const found = listings.find(({ journal }) => journal.runId === runId);
    if (!found) throw new InputError(`no journal of run ${runId} found (kguard status lists the unfinished runs); it may have finished or expired.`);
    return found.journal;
  }
  if (listings.length === 1) return listings[0]!.journal;
  if (listings.length === 0) throw new InputError('there is no unfinished kguard run to roll back (no journal found).');
  throw new InputError(`${listings.length} unfinished kguard runs: name one (${listings.map(({ journal }) => journal.runId).join(', ')}).`);
}

export async function runRollback(
  options: { runId?: string; namespace?: string; deadlineMs: number },
  deps: RollbackDeps,
): Promise<RollbackResult> {
  const journal = pickJournal(await listJournals(deps.kubectl, options.namespace), options.runId);
  // One list per namespace; an object of a namespace that could not be listed is read alone.
  const read = await readObjects(deps.kubectl, journal.objects.map((entry) => entry.ref));
  const live = new Map<string, KubeObject | undefined>(journal.objects.map((entry) => [objectKey(entry.ref), read.live.get(objectKey(entry.ref))]));
  await Promise.all(read.unread.map(async ({ ref }) => live.set(objectKey(ref), await deps.kubectl.getObject(typeArg(ref), ref.namespace, ref.name))));
  const changes = changesToUndo(journal, live);
  const steps = planRestore(
    changes.map(({ ref, change }) => ({ ref, change, verdict: 'failed' as const })),
    'all',
    { keepCreated: false },
  );
  const results = await executeRestore(steps, { deadlineMs: options.deadlineMs }, deps);
  const statuses = [...results.values()].map((result) => result.status);
  const needsPerson = statuses.filter((status) => status === 'failed' || status === 'kept').length;
  if (needsPerson === 0) {
    // Nothing is left to do: the journal and the run's leases go.
    await removeJournal(deps.kubectl, journal.namespace, journal.runId, options.deadlineMs);
    await releaseLeasesOf(journal, options.deadlineMs, deps);
  }
  return {
    runId: journal.runId,
    restored: statuses.filter((status) => status === 'restored' || status === 'deleted' || status === 'recreated' || status === 'replaced').length,
    untouched: changes.filter(({ change }) => !isChangeKind(change.change)).length,
    needsPerson,
    results,
  };
}

/** The leases a killed run left, in each namespace it touched: only those it still holds. */
async function releaseLeasesOf(journal: Journal, deadlineMs: number, deps: RollbackDeps): Promise<void> {
  const namespaces = [journal.namespace, ...journal.objects.map(({ ref }) => leaseNamespace(ref, journal.namespace))];
  await releaseLeftLeases(deps.kubectl, journal.runId, namespaces, deadlineMs, deps.reporter);
}

/** `kguard status`: one line per unfinished run. */
export function statusLines(listings: readonly JournalListing[], now: Date): string[] {
  if (listings.length === 0) return ['no unfinished kguard runs'];
  return listings.map(({ journal, expired }) => {
    const ageMinutes = Math.max(0, Math.round((now.getTime() - Date.parse(journal.startedAt)) / 60_000));
    const left = journal.state === 'applying' ? 'killed during the apply' : journal.state === 'applied' ? 'applied, not verified or restored' : 'restoring';
    return (
      `${journal.runId}  namespace ${journal.namespace}  ${journal.objects.length} object(s)  started ${ageMinutes}m ago  ${left}` +
      `${expired ? '  (expired: deleted by the next run)' : ''}  →  kguard rollback ${journal.runId}`
    );
  });
}
