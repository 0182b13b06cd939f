// `kguard rollback [RUN]` and `kguard status`: finish a run that could not finish itself (killed,
// or it needed a person), from its journal in the cluster. The same restore as an apply's, with
// the same rule: someone else's change wins.
import type { ObjectChange } from '../../model/result.js';
import { InputError } from '../../errors.js';
import { isChangeKind } from '../../objects/compare.js';
import type { Clock } from '../../clock.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { Journal } from '../../journal/journal.js';
import { changesNow } from '../../journal/journalled.js';
import { leaseNamespace } from '../../journal/lease.js';
import { releaseLeftLeases } from '../../journal/leases.js';
import { removeJournal } from '../../journal/store.js';
import { removeHistoryOf } from '../../journal/history-store.js';
import type { HolderProbe } from '../../journal/holder.js';
import type { RunLiveness } from '../../journal/liveness.js';
import { DEFAULTS } from '../../model/options.js';
import { listRuns, pickRun, type RunRecord } from '../../journal/runs.js';
import { stopLiveRun } from './stop-live.js';
import { objectKey, typeArg } from '../../objects/model.js';
import { restoreObjects } from '../../restore/entry.js';
import { writtenBack } from '../../restore/written-back.js';
import type { RestoreDeps } from '../../restore/context.js';
import type { RestoreResult } from '../../model/result.js';
import type { Reporter } from '../../model/events.js';

export interface RollbackDeps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  keepCopy: RestoreDeps['keepCopy'];
  probe: HolderProbe;
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
  /** The run was live and was asked to stop: it restored itself (answered), or was restored here once dead. */
  stopped?: 'answered' | 'dead';
  /** Nothing to do: no unfinished run has this --run-label (it finished, or restored itself). */
  nothing?: string;
}

/**
 * Restores a run that could not finish itself, from its journal: the one named, or the only
 * unfinished run that is not alive. A live run is refused unless `force` (runs.ts). A run that
 * died during its apply may have left a request in flight: it can land up to the run's request
 * timeout after the death, so the restore waits that out first, and reads the objects again
 * after it before calling the run restored.
 */
export async function runRollback(
  options: { runId?: string; runLabel?: string; namespace?: string; deadlineMs: number; force?: boolean },
  deps: RollbackDeps,
): Promise<RollbackResult> {
  const listed = await listRuns(deps.kubectl, options.namespace, Date.now(), deps.probe);
  const runs = options.runLabel === undefined ? listed : labelled(listed, options.runLabel);
  if (runs.length === 0 && options.runLabel !== undefined && options.runId === undefined)
    return nothingToDo(
      `no unfinished kguard run is labelled ${JSON.stringify(options.runLabel)}${options.namespace ? ` in namespace ${options.namespace}` : ''}: it finished or restored itself, or never wrote a journal. Nothing to roll back (kguard history lists finished runs; kguard undo undoes one).`,
    );
  let run = pickRun(runs, options.runId, 'rollback', options.force ?? false, true);
  let stopped: RollbackResult['stopped'];
  if (run.liveness.state === 'live' && !options.force) {
    stopped = (await stopLiveRun(run, options.deadlineMs, deps)).ended;
    // What the run left: nothing when it restored everything; its journal when a person must look, or it died.
    const after = (await listRuns(deps.kubectl, options.namespace, Date.now(), deps.probe)).find(
      (candidate) => candidate.runId === run.runId && candidate.journal,
    );
    if (!after) return { ...nothingToDo(''), runId: run.runId, stopped };
    run = after;
  }
  const journal = run.journal!;
  // A journal is restored whole: a Secret of it that could not be read holds objects this would leave as they are.
  if (run.missing.length > 0 && !options.force) {
    throw new InputError(
      `kguard cannot read the whole journal of run ${run.runId}: its Secrets in namespace ${run.missing.join(', ')} are missing or unreadable, so some objects of the run would be left as they are. Next: run kguard rollback ${run.runId} with credentials that may read Secrets there, or add --force to restore what the rest of the journal holds (the journal then stays).`,
    );
  }
  await waitOutTheApply(journal, run.liveness, deps);
  const { changes } = await changesNow(journal, deps);
  const { results } = await restoreObjects(
    changes,
    {
      mode: 'all',
      keepCreated: false,
      wholeRun: true,
      deadlineMs: options.deadlineMs,
      stages: new Map(
        journal.objects.flatMap((entry) =>
          entry.stage === undefined ? [] : [[objectKey(entry.ref), entry.stage] as const],
        ),
      ),
    },
    deps,
  );
  // Read again: a late write (of a run that was not quite dead) would show here, not be called restored.
  const late = (await changesNow(journal, deps)).changes.filter(({ ref, change }) => {
    const status = results.get(objectKey(ref))?.status;
    return isChangeKind(change.change) && !ownersMovedOnly(change) && status !== 'kept' && status !== 'failed';
  });
  for (const { ref } of late) {
    results.set(objectKey(ref), {
      status: 'failed',
      reason:
        'it changed again after the restore (a late write of the run, or someone else): look at it, then kguard rollback again',
      commands: [
        deps.kubectl.commandLine([
          'get',
          typeArg(ref),
          ...(ref.namespace ? ['-n', ref.namespace] : []),
          ref.name,
          '-o',
          'yaml',
        ]),
      ],
    });
  }
  const needsPerson = [...results.values()].filter((result) => !writtenBack(result)).length;
  if (needsPerson === 0) {
    // Nothing is left to do: the journal and the run's leases go.
    if (run.missing.length === 0) await removeJournal(deps.kubectl, run.secrets, options.deadlineMs);
    // A healthy run of a fleet kept a history record; undone, it is no run for `kguard undo` to offer.
    await Promise.all([
      releaseLeasesOf(journal, options.deadlineMs, deps),
      removeHistoryOf(deps.kubectl, journal.runId, options.deadlineMs).catch(() => undefined),
    ]);
  }
  return {
    runId: journal.runId,
    ...(stopped ? { stopped } : {}),
    restored: [...results.values()].filter(writtenBack).length,
    untouched: changes.filter(({ change }) => !isChangeKind(change.change)).length,
    needsPerson,
    results,
  };
}

/** The unfinished runs whose journal carries `label` (--run-label). */
function labelled(runs: readonly RunRecord[], label: string): RunRecord[] {
  return runs.filter((run) => run.journal?.runLabel === label && run.liveness.state !== 'finished');
}

function nothingToDo(nothing: string): RollbackResult {
  return { runId: '', restored: 0, untouched: 0, needsPerson: 0, results: new Map(), nothing };
}

/** The grace a request gets beyond its timeout= before the API server has surely answered it. */
const LANDING_MARGIN_MS = 2_000;

/** A run killed during its apply: wait until any request it had in flight has ended. */
async function waitOutTheApply(journal: Journal, liveness: RunLiveness, deps: RollbackDeps): Promise<void> {
  if (journal.state !== 'applying') return;
  const diedBy = liveness.state === 'dead' ? liveness.diedBy : Date.now();
  const until = diedBy + (journal.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs) + LANDING_MARGIN_MS;
  const waitMs = until - Date.now();
  if (waitMs <= 0) return;
  deps.reporter.emit({ kind: 'rollback-wait', runId: journal.runId, waitMs });
  await deps.clock.sleep(waitMs);
}

/** The leases a killed run left, in each namespace it touched: only those it still holds. */
async function releaseLeasesOf(journal: Journal, deadlineMs: number, deps: RollbackDeps): Promise<void> {
  const clusterNamespace = journal.clusterNamespace ?? journal.namespace;
  const namespaces = [
    journal.namespace,
    ...Object.keys(journal.pieces ?? {}),
    ...journal.objects.map(({ ref }) => leaseNamespace(ref, clusterNamespace)),
  ];
  await releaseLeftLeases(deps.kubectl, journal.runId, namespaces, deadlineMs, deps.reporter);
}

/**
 * The values are back and only the field owners differ from the journal's copy: a controller
 * wrote its own entry after the restore (the deployment controller's status and revision
 * annotation carry a new time on a real cluster), which is no late write of the run.
 */
function ownersMovedOnly(change: ObjectChange): boolean {
  return (
    change.change === 'configured' &&
    change.paths.length > 0 &&
    change.paths.every((path) => path === 'metadata.managedFields')
  );
}
