// The CI retry story: a job killed during its run (a job timeout, a SIGKILL cancellation, the OOM
// killer) leaves its journal in the cluster, and the same job runs again. Before the new run reads
// its own "before", it finishes every dead run whose unfinished journal holds one of its objects,
// as `kguard rollback` would (someone else's change wins), so the new run's "before" is the true
// one and an unchanged apply is not called done while the dead run's change is live.
// A live run is not touched: the new run waits for its Leases as before.
import { InterruptedError, UnfinishedRunError } from '../../errors.js';
import type { Reporter } from '../../model/events.js';
import type { RecoveredRun } from '../../model/result.js';
import { objectKey, type ObjectRef } from '../../objects/model.js';
import { heldOf } from '../../journal/lease.js';
import { claimRun } from './claim.js';
import type { JournalSecretRef } from '../../journal/store.js';
import { listRuns, type RunRecord } from '../../journal/runs.js';
import { restoreRunNamed, type RecoveryDeps } from './from-journal.js';

/** The runs of one namespace, listed ahead (lookAhead). */
export interface DeadRunLook {
  namespace: string;
  runs: Promise<RunRecord[]>;
}

/**
 * The look of finishDeadRuns in the namespace an apply most likely writes to (its -n, else its
 * context's), started beside the server dry run through the run's proxy, before the dry run names
 * the objects: the look is then done when the dry run answers, and the proxy's connection to the
 * API server is open for the live read. Another namespace is looked at as before.
 */
export function lookAhead(namespace: string, deps: Pick<RecoveryDeps, 'kubectl' | 'probe'>): DeadRunLook {
  const runs = listRuns(deps.kubectl, namespace, Date.now(), deps.probe);
  runs.catch(() => undefined);
  return { namespace, runs };
}

/**
 * The runs this apply must finish first, newest first (an older dead run's copies are the truer
 * "before" and are written last): dead (liveness.ts: its process gone on this machine, or its Lease
 * unrenewed for its whole duration), with a journal that is neither finished nor expired, holding
 * at least one of `refs`.
 */
export function deadRunsOn(runs: readonly RunRecord[], refs: readonly ObjectRef[]): RunRecord[] {
  const wanted = new Set(refs.map(objectKey));
  return runs
    .filter(
      (run) =>
        run.journal !== undefined &&
        !run.expired &&
        run.liveness.state === 'dead' &&
        run.journal.state !== 'finished' &&
        run.journal.objects.some((entry) => wanted.has(objectKey(entry.ref))),
    )
    .sort((left, right) => right.journal!.startedAt.localeCompare(left.journal!.startedAt));
}

/**
 * The Secrets of each expired journal, namespace by namespace as listed (each namespace's are
 * deleted by the run that journals there): what a journalled run deletes as it starts.
 */
export function expiredJournals(
  listed: ReadonlyArray<{ namespace: string; runs: readonly RunRecord[] }>,
): JournalSecretRef[][] {
  return listed.flatMap(({ namespace, runs }) =>
    runs
      .filter((run) => run.expired && run.journal !== undefined)
      .map((run) => run.secrets.filter((secret) => secret.namespace === namespace))
      .filter((secrets) => secrets.length > 0),
  );
}

/** Keys of `refs` a live run holds: in its journal, or listed on one of its Leases. */
export function heldByLiveRuns(runs: readonly RunRecord[], refs: readonly ObjectRef[]): Set<string> {
  const wanted = new Map(refs.map((ref) => [objectKey(ref), ref]));
  const held = new Set<string>();
  for (const run of runs.filter((candidate) => candidate.liveness.state === 'live')) {
    for (const entry of run.journal?.objects ?? [])
      if (wanted.has(objectKey(entry.ref))) held.add(objectKey(entry.ref));
    for (const lease of run.leases) for (const ref of heldOf(lease, wanted)) held.add(objectKey(ref));
  }
  return held;
}

/**
 * Finishes the dead runs on `refs`, looking in each namespace where this run journals (pieces.ts
 * puts each object's copy in its own namespace). A journal that cannot be listed (no right to
 * list Secrets there) is not looked at: the run goes on as before. A dead run that leaves an
 * object for a person stops this run before anything is applied (exit 4), with the commands.
 */
export async function finishDeadRuns(
  refs: readonly ObjectRef[],
  namespaces: readonly string[],
  options: { deadlineMs: number },
  deps: RecoveryDeps & { looked?: DeadRunLook; signal?: AbortSignal },
): Promise<{ recovered: RecoveredRun[]; heldByLive: Set<string>; expired: JournalSecretRef[][] }> {
  const listed = await Promise.all(
    namespaces.map(async (namespace) => ({
      namespace,
      runs: await (deps.looked?.namespace === namespace
        ? deps.looked.runs
        : listRuns(deps.kubectl, namespace, Date.now(), deps.probe)
      ).catch(() => [] as RunRecord[]),
    })),
  );
  const found = new Map<string, { run: RunRecord; namespace: string }>();
  for (const { namespace, runs } of listed)
    for (const run of deadRunsOn(runs, refs)) if (!found.has(run.runId)) found.set(run.runId, { run, namespace });
  const order = [...found.values()].sort((left, right) =>
    right.run.journal!.startedAt.localeCompare(left.run.journal!.startedAt),
  );
  const recovered: RecoveredRun[] = [];
  const heldByLive = heldByLiveRuns(
    listed.flatMap(({ runs }) => runs),
    refs,
  );
  for (const { run, namespace } of order) {
    const objects = run.journal!.objects.map((entry) => entry.ref);
    // One kguard at a time finishes it: another retry that claimed it first is waited for.
    const claim = await claimRun(run, options.deadlineMs, deps, (by) =>
      deps.reporter.emit({ kind: 'recovering-run', runId: run.runId, why: run.liveness.why, objects, by }),
    ).catch((error: unknown) => {
      if (deps.signal?.aborted) throw error;
      throw new UnfinishedRunError(
        `run ${run.runId} died (${run.liveness.why}) and left its journal on objects of this apply, and kguard could not take it over to finish it: ${error instanceof Error ? error.message : String(error)}. Nothing was applied. Next: kguard status shows it; kguard rollback ${run.runId} once the other kguard has ended, then run again.`,
      );
    });
    if (!claim.claimed) {
      deps.reporter.emit({
        kind: 'recovered-run',
        runId: run.runId,
        restored: 0,
        untouched: objects.length,
        by: claim.by,
      });
      recovered.push({ runId: run.runId, restored: 0, untouched: objects.length });
      continue;
    }
    deps.reporter.emit({ kind: 'recovering-run', runId: run.runId, why: run.liveness.why, objects });
    const result = await restoreDeadRun(run, namespace, options.deadlineMs, deps);
    deps.reporter.emit({
      kind: 'recovered-run',
      runId: run.runId,
      restored: result.restored,
      untouched: result.untouched,
    });
    recovered.push({ runId: run.runId, restored: result.restored, untouched: result.untouched });
  }
  // Expired journals seen here go while this run journals (apply.ts): no second list for them.
  return { recovered, heldByLive, expired: expiredJournals(listed) };
}

/**
 * Restores the dead run `run`, claimed by this process. Before the apply a signal ends every
 * kubectl call at once, writes included (run/apply/apply.ts): a signal stops this restore part way.
 * What its killed kubectl calls answered is no refusal of the API server and is not said as one;
 * the dead run's journal stays, and the error says so, with the command that finishes it (exit 130).
 */
async function restoreDeadRun(
  run: RunRecord,
  namespace: string,
  deadlineMs: number,
  deps: RecoveryDeps & { signal?: AbortSignal },
) {
  const interrupted = (signal: AbortSignal) =>
    new InterruptedError(
      `${typeof signal.reason === 'string' ? signal.reason : 'cancelled'} while kguard restored run ${run.runId} (it died: ${run.liveness.why}) from its journal, before this apply: that restore stopped part way, and its journal is kept. Nothing was applied by this run. Next: kguard rollback ${run.runId} finishes it (or run this command again: it finishes that run first).`,
    );
  const reporter = sayingNoFailureOnceStopped(deps.reporter, deps.signal);
  const result = await restoreRunNamed(run.runId, namespace, deadlineMs, { ...deps, reporter }).catch(
    (error: unknown) => {
      if (deps.signal?.aborted) throw interrupted(deps.signal);
      throw new UnfinishedRunError(
        `run ${run.runId} died (${run.liveness.why}) and left its journal on objects of this apply, and kguard could not finish it: ${error instanceof Error ? error.message : String(error)} Nothing was applied. Next: kguard rollback ${run.runId} (or kguard forget ${run.runId} to keep its objects as they are), then run again.`,
      );
    },
  );
  if (result.needsPerson > 0) {
    if (deps.signal?.aborted) throw interrupted(deps.signal);
    throw new UnfinishedRunError(
      `run ${run.runId} died (${run.liveness.why}); kguard restored ${result.restored} of its objects, but ${result.needsPerson} need a person (said above). Nothing was applied: this run's "before" would be that run's half-applied state. Next: finish them as said above, or kguard forget ${run.runId} to keep them as they are, then run again.`,
    );
  }
  return result;
}

/** `reporter`, but once `signal` has aborted an object's restore that failed or was kept is not said: its kubectl was killed. */
function sayingNoFailureOnceStopped(reporter: Reporter, signal: AbortSignal | undefined): Reporter {
  if (!signal) return reporter;
  return {
    emit: (event) => {
      if (signal.aborted && (event.kind === 'restore-failed' || event.kind === 'restore-kept')) return;
      reporter.emit(event);
    },
    close: () => reporter.close(),
  };
}
