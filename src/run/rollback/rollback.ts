// `kguard rollback [RUN]`: finish a run that could not finish itself (killed, or it needed a
// person), from its journal in the cluster: pick it, ask it to stop while it lives, restore it
// (restore/recovery/: the same restore as an apply's, with the same rule: someone else's change wins).
import { journalName } from '../../journal/journal.js';
import { listRuns, pickRun, type RunRecord } from '../../journal/runs.js';
import { restoreFromJournal, type RecoveryDeps, type RunRestored } from '../../restore/recovery/from-journal.js';
import { claimRun } from '../../restore/recovery/claim.js';
import { stopLiveRun } from './stop-live.js';

export type RollbackDeps = RecoveryDeps;

export interface RollbackResult extends RunRestored {
  /** The run was live and was asked to stop: it restored itself (answered), or was restored here once dead. */
  stopped?: 'answered' | 'dead';
  /** Nothing to do: no unfinished run has this --run-label (it finished, or restored itself). */
  nothing?: string;
  /** Another kguard (host and pid: a retry of the run's apply) finished the run while this one waited. */
  finishedBy?: string;
}

/**
 * Restores a run that could not finish itself, from its journal (restore/recovery/from-journal.ts):
 * the one named, or the only unfinished run that is not alive. A live run is asked to stop
 * (stop-live.ts), or restored as it runs with `force` (runs.ts).
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
  // One kguard at a time restores a run (restore/recovery/claim.ts): a retry of its apply that is
  // restoring it already is waited for, and one that comes later waits for this command.
  const claimed = await claimTheRun(run, options, deps);
  if ('finishedBy' in claimed)
    return {
      ...nothingToDo(
        `run ${run.runId} was finished by ${claimed.finishedBy === ANOTHER ? ANOTHER : `another kguard, ${claimed.finishedBy},`} while this one waited: it restored the run from its journal and removed it; nothing is left to roll back`,
      ),
      runId: run.runId,
      finishedBy: claimed.finishedBy,
      ...(stopped ? { stopped } : {}),
    };
  const restored = await restoreFromJournal(claimed.run, options, deps);
  return { ...restored, ...(stopped ? { stopped } : {}) };
}

/** The unfinished runs whose journal carries `label` (--run-label). */
function labelled(runs: readonly RunRecord[], label: string): RunRecord[] {
  return runs.filter((run) => run.journal?.runLabel === label && run.liveness.state !== 'finished');
}

function nothingToDo(nothing: string): RollbackResult {
  return { runId: '', restored: 0, untouched: 0, needsPerson: 0, results: new Map(), nothing };
}

/** Who finished a run when no claimer was seen (claim.ts says so too). */
const ANOTHER = 'another kguard';

/**
 * Claims `run` on its home journal Secret, waiting while another kguard holds it; then the run as
 * its journal stands now (the claim moved the Secret's resourceVersion; the holder may have restored
 * part of it). A journal whose home Secret is not among those read (--force over missing Secrets)
 * has nothing to claim on: it is restored as it is.
 */
async function claimTheRun(
  run: RunRecord,
  options: { namespace?: string; deadlineMs: number },
  deps: RollbackDeps,
): Promise<{ run: RunRecord } | { finishedBy: string }> {
  // A live run (--force) holds no claim, and its own journal writes are conditional: not claimed.
  if (run.liveness.state === 'live') return { run };
  const home = run.journal!.home ?? run.journal!.namespace;
  if (!run.secrets.some((secret) => secret.namespace === home && secret.name === journalName(run.runId)))
    return { run };
  const claim = await claimRun(run, options.deadlineMs, deps, (by) =>
    deps.reporter.emit({ kind: 'rollback-claimed', runId: run.runId, by }),
  );
  if (!claim.claimed) return { finishedBy: claim.by };
  const now = (await listRuns(deps.kubectl, options.namespace, Date.now(), deps.probe)).find(
    (candidate) => candidate.runId === run.runId && candidate.journal,
  );
  return now ? { run: now } : { finishedBy: ANOTHER };
}
