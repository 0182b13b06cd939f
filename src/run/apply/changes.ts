// After the apply: what it changed (from the copies before and after), and the tracking of every
// changed object to a verdict, one line per verdict.
import type { Pod } from '../../kube.js';
import type { Diagnosis } from '../../model/findings.js';
import { changeOf, isChange } from '../../objects/compare.js';
import type { ObjectChange } from '../../model/result.js';
import { objectKey, type KubeObject, type ObjectRef } from '../../objects/model.js';
import { trackWorkloads, type TrackedOutcome } from '../../track/workloads.js';
import type { ObjectResult } from '../../model/result.js';
import type { ApplyOptions } from '../../model/options.js';
import { cancelReason, type Deps } from './deps.js';
import type { RunEvent } from '../../model/events.js';
import { trackOptionsFor } from './track-options.js';
import { rowFor } from '../../kinds/table.js';

/**
 * An object on its way through the run: its result so far, its copies, its new pods at its verdict
 * (where a bake starts), and `stage`, the position of its phase in a phased apply (run/apply/phases.ts):
 * the restore undoes later phases first.
 */
export type PendingObject = ObjectResult & { change: ObjectChange; newPods?: Pod[]; stage?: number };

export function detectChanges(
  refs: readonly ObjectRef[],
  before: Map<string, KubeObject>,
  after: Map<string, KubeObject>,
  deps: Pick<Deps, 'reporter'>,
): PendingObject[] {
  const objects = refs.map((ref): PendingObject => {
    const key = objectKey(ref);
    const change = changeOf(before.get(key), after.get(key));
    return {
      ref,
      change,
      changeKind: change.change,
      changedFields: change.change === 'configured' ? change.paths : [],
    };
  });
  deps.reporter.emit({
    kind: 'changes',
    objects: objects.map(({ ref, changeKind, changedFields }) => ({ ref, change: changeKind, changedFields })),
  });
  return objects;
}

/** Tracks every changed object that has something to judge; records each one's verdict. */
export async function track(
  objects: PendingObject[],
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter' | 'signal'>,
) {
  const changed = objects.filter((object) => isChange(object) && 'after' in object.change);
  const outcomes = await trackWorkloads(
    changed.map((object) => ({
      ref: object.ref,
      applied: (object.change as { after: KubeObject }).after,
      before: beforeOf(object.change),
    })),
    trackOptionsFor(options, 'rollout'),
    deps,
  );
  const stopped = stoppedWatching(options, deps.signal);
  for (const object of objects) {
    const outcome = outcomes.get(objectKey(object.ref));
    recordOutcome(object, outcome);
    if (outcome?.tracked) reportVerdict(object, outcome, deps, stopped);
  }
}

/** Why a rollout still in progress was no longer watched: the run was cancelled, or another workload failed. */
type StoppedWatching = Pick<Extract<RunEvent, { kind: 'interrupted' }>, 'cause' | 'reason' | 'restoring'>;

function stoppedWatching(options: Pick<ApplyOptions, 'rollback'>, signal: AbortSignal | undefined): StoppedWatching {
  if (!signal?.aborted) return { cause: 'another-failed' };
  // A cancelled run undoes the apply as a unit unless --rollback none (restore/plan.ts).
  return { cause: 'cancelled', reason: cancelReason(signal), restoring: options.rollback !== 'none' };
}

/** The one line that says where a tracked workload's rollout ended. */
export function reportVerdict(
  object: PendingObject,
  outcome: TrackedOutcome,
  deps: Pick<Deps, 'reporter'>,
  stopped: StoppedWatching,
) {
  const { verdict, elapsedMs } = outcome;
  const workload = object.ref;
  switch (verdict.state) {
    case 'healthy':
      if (verdict.progress)
        deps.reporter.emit({
          kind: 'healthy',
          workload,
          progress: verdict.progress,
          elapsedMs,
          detail: verdict.detail,
        });
      return;
    case 'failed':
    case 'timed-out':
      // The tracker says it, with the logs it read, when it reaches the verdict (track/tracker.ts).
      return;
    case 'conflict':
    case 'gone':
      // The restore step names what to do by hand; this line says what happened.
      deps.reporter.emit({ kind: verdict.state, workload, detail: verdict.detail ?? '', commands: [] });
      return;
    case 'progressing':
      if (verdict.progress) {
        deps.reporter.emit({
          kind: 'interrupted',
          workload,
          progress: verdict.progress,
          waitingFor: verdict.waitingFor ?? '',
          ...stopped,
        });
      }
      return;
  }
}

export function beforeOf(change: ObjectChange): KubeObject | undefined {
  return 'before' in change ? change.before : undefined;
}

export function recordOutcome(object: PendingObject, outcome: TrackedOutcome | undefined) {
  if (!outcome) return;
  object.verdict = outcome.verdict;
  object.diagnosis = outcome.diagnosis as Diagnosis | undefined;
  object.verdictAfterMs = outcome.elapsedMs;
  object.tracked = outcome.tracked;
  object.newPods = outcome.newPods;
}

/**
 * An apply that changes nothing: each of its workloads whose last rollout is not complete
 * (its kind's row says so from the object: kubectl rollout status's rules), unless a live run
 * holds it, is judged as a rollout from where it stands. Undefined when none is unsettled.
 */
export async function judgeUnsettled(
  refs: readonly ObjectRef[],
  current: ReadonlyMap<string, KubeObject>,
  heldByLive: ReadonlySet<string>,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter' | 'signal'>,
): Promise<PendingObject[] | undefined> {
  const unsettled = refs.flatMap((ref) => {
    const live = current.get(objectKey(ref));
    const why = live && !heldByLive.has(objectKey(ref)) ? rowFor(ref).unsettled?.(live) : undefined;
    return live && why
      ? [
          {
            ref,
            applied: live,
            before: live,
            why: `unchanged by this apply, but its last rollout is not complete: ${why}`,
          },
        ]
      : [];
  });
  if (unsettled.length === 0) return undefined;
  const outcomes = await trackWorkloads(unsettled, trackOptionsFor(options, 'rollout'), deps);
  // Nothing of this run is there to restore, cancelled or not.
  const stopped = stoppedWatching({ rollback: 'none' }, deps.signal);
  return refs.map((ref) => {
    const live = current.get(objectKey(ref));
    const object: PendingObject = {
      ref,
      change: live ? { change: 'unchanged', before: live, after: live } : { change: 'absent' },
      changeKind: 'unchanged',
      changedFields: [],
    };
    const outcome = outcomes.get(objectKey(ref));
    recordOutcome(object, outcome);
    if (outcome?.tracked) reportVerdict(object, outcome, deps, stopped);
    return object;
  });
}
