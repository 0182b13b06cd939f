// The one restore entry, for the apply (run/apply/restore-step.ts), `kguard rollback` and `kguard
// undo`: the plan from the pre-apply copies (plan.ts) and its writes round by round (restore.ts).
// The workloads written back (written-back.ts) are then tracked until healthy again
// (trackWrittenBack), judged against their state before the apply (kinds/before.ts).
import { failingBeforeApply } from '../kinds/before.js';
import { verdictText } from '../kinds/engine.js';
import type { TrackOptions } from '../model/options.js';
import type { ObjectResult, RestoreResult, RollbackMode } from '../model/result.js';
import type { Verdict } from '../model/verdict.js';
import { kubectlName, namespaceArgs, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { TrackDeps } from '../track/tracker.js';
import { trackWorkloads } from '../track/workloads.js';
import { planRestore, type PlannedObject } from './plan.js';
import type { RestoreDeps } from './context.js';
import { executeRestore } from './restore.js';
import type { RestoreStep } from './steps.js';
import { writtenBack } from './written-back.js';

export interface RestoreRequest {
  /** --rollback: every object the apply changed, only the failing ones, or none. */
  mode: RollbackMode;
  keepCreated: boolean;
  /** The run was cancelled: the apply is restored whatever its verdicts. */
  cancelled?: boolean;
  /** A check or the bake failed: the apply failed as a unit. */
  failedAsUnit?: boolean;
  /** `kguard rollback` and `kguard undo`: a whole run, with no verdicts (plan.ts planWholeRestore). */
  wholeRun?: boolean;
  /** --rollback-timeout. */
  deadlineMs: number;
  /** Phase positions of a phased apply: later phases are restored first. */
  stages?: ReadonlyMap<string, number>;
  /** Plan only (`kguard undo --dry-run`): nothing is written. */
  dryRun?: boolean;
  /** --analysis could not judge it and no journal keeps the run: every change kept, with its commands (plan.ts). */
  inconclusive?: boolean;
}

/** Plans the restore and carries it out; each object's result by its key (none for a dry run). */
export async function restoreObjects(
  objects: readonly PlannedObject[],
  request: RestoreRequest,
  deps: RestoreDeps,
): Promise<{ steps: RestoreStep[]; results: Map<string, RestoreResult> }> {
  const { mode, keepCreated, cancelled, failedAsUnit, wholeRun, inconclusive, deadlineMs, stages } = request;
  const steps = planRestore(objects, mode, { keepCreated, cancelled, failedAsUnit, wholeRun, inconclusive });
  if (steps.length === 0 || request.dryRun) return { steps, results: new Map() };
  return { steps, results: await executeRestore(steps, { deadlineMs, stages }, deps) };
}

/** A workload written back and what its tracking said, with the event that said it. */
export type AfterRestore = NonNullable<ObjectResult['afterRestore']> & {
  said: 'rolled-back' | 'restored-failing-before' | 'rollback-unhealthy';
};

/**
 * Tracks each workload written back until healthy again, and says how each ended: healthy
 * (rolled-back), failing as its pre-apply copy failed (restored all the same), or not healthy (a
 * person looks). `before`: the copy it is judged against (none: never judged so). `cancelled`:
 * the run's cancellation, after which a workload not healthy yet is not waited for nor reported.
 */
export async function trackWrittenBack(
  objects: ReadonlyArray<{ ref: ObjectRef; result: RestoreResult | undefined; before?: KubeObject }>,
  options: { track: TrackOptions; cancelled?: AbortSignal },
  deps: TrackDeps & { kubectl: { commandLine(args: readonly string[]): string } },
): Promise<Map<string, AfterRestore>> {
  const targets = objects.flatMap(({ ref, result, before }) =>
    writtenBack(result) && result && 'restored' in result && result.restored
      ? [{ ref, applied: result.restored, before: undefined, judgedAgainst: before }]
      : [],
  );
  const outcomes = await trackWorkloads(targets, options.track, deps);
  const ended = new Map<string, AfterRestore>();
  for (const { ref, judgedAgainst } of targets) {
    const outcome = outcomes.get(objectKey(ref));
    if (!outcome?.tracked) continue;
    // A signal while the restored pods start: the writes are done, and a cancelled run does not
    // wait for health. Not healthy yet is not a failed restore.
    if (options.cancelled?.aborted && outcome.verdict.state !== 'healthy') continue;
    const why = outcome.diagnosis?.summary ?? verdictText(outcome.verdict) ?? `it ended ${outcome.verdict.state}`;
    // Judged against the state before the apply: failing as it failed then is restored, not worse.
    const failingBefore =
      outcome.verdict.state === 'healthy'
        ? undefined
        : failingBeforeApply(ref, judgedAgainst, options.track.healthRules);
    const said = sayEnd(ref, outcome.verdict, why, failingBefore, outcome.elapsedMs, deps);
    ended.set(objectKey(ref), {
      state: outcome.verdict.state,
      summary: outcome.diagnosis?.summary,
      elapsedMs: outcome.elapsedMs,
      ...(failingBefore === undefined ? {} : { failingBefore }),
      said,
    });
  }
  return ended;
}

function sayEnd(
  ref: ObjectRef,
  verdict: Verdict,
  why: string,
  failingBefore: string | undefined,
  elapsedMs: number,
  deps: Pick<TrackDeps, 'reporter'> & { kubectl: { commandLine(args: readonly string[]): string } },
): AfterRestore['said'] {
  const commandLine = (...verb: string[]) =>
    deps.kubectl.commandLine([...verb, kubectlName(ref), ...namespaceArgs(ref)]);
  if (failingBefore !== undefined) {
    deps.reporter.emit({
      kind: 'restored-failing-before',
      workload: ref,
      before: failingBefore,
      now: why,
      command: commandLine('describe'),
    });
    return 'restored-failing-before';
  }
  if (verdict.state === 'healthy' && verdict.progress) {
    deps.reporter.emit({ kind: 'rolled-back', workload: ref, progress: verdict.progress, elapsedMs });
    return 'rolled-back';
  }
  deps.reporter.emit({
    kind: 'rollback-unhealthy',
    workload: ref,
    reason: why,
    commands: [commandLine('rollout', 'status'), commandLine('describe')],
  });
  return 'rollback-unhealthy';
}
