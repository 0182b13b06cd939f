// An apply the API server says changes nothing: nothing is applied, leased or journalled, but a
// rollout someone left unfinished on these objects is judged, not called unchanged.
import type { ApplyOptions } from '../../../model/options.js';
import type { ObjectResult, RunResult } from '../../../model/result.js';
import type { ObjectRef } from '../../../objects/model.js';
import { judgeUnsettled } from '../changes.js';
import type { Deps } from '../deps.js';
import { withOutcome } from '../result.js';
import type { Reading } from './reading.js';

/**
 * Whether the run ends before its apply because nothing would change: every object stays as it is
 * and nothing is pruned, so `kubectl apply` would write nothing. Checks asked for (--verify,
 * --verify-job) still need the apply's run; a preview shows what it would do.
 */
export function changesNothingAtAll(reading: Pick<Reading, 'unchanged'>, options: ApplyOptions): boolean {
  return !options.dryRun && reading.unchanged && options.verifyJobs.length === 0 && options.verifyCommands.length === 0;
}

export async function nothingToChange(
  { understood, heldByLive, target, recovered }: Reading,
  options: ApplyOptions,
  deps: Deps,
  startedAt: number,
): Promise<RunResult> {
  deps.reporter.emit({ kind: 'nothing-to-change', objects: understood.refs });
  const judged = await judgeUnsettled(understood.refs, understood.current, heldByLive, options, deps);
  const unchanged = unchangedResult(understood.refs, target, options, deps, startedAt);
  return {
    ...(judged ? withOutcome({ ...unchanged, objects: judged }) : unchanged),
    ...(recovered.length > 0 ? { recoveredRuns: recovered } : {}),
  };
}

/** The run of an apply that changes nothing: every object as it is, nothing applied or watched. */
function unchangedResult(
  refs: readonly ObjectRef[],
  target: RunResult['target'],
  options: ApplyOptions,
  deps: Pick<Deps, 'clock' | 'kubectl'>,
  startedAt: number,
): RunResult {
  return withOutcome({
    mode: 'apply',
    target,
    objects: refs.map((ref): ObjectResult => ({ ref, changeKind: 'unchanged', changedFields: [] })),
    applied: [],
    rollbackMode: options.rollback,
    applyMs: 0,
    totalMs: deps.clock.now() - startedAt,
    kubectlProcesses: deps.kubectl.spawned,
  });
}
