// Which changed objects kguard can judge, and how: every object gets an outcome. Deployments are
// tracked to a verdict; a workload kind kguard cannot track yet is "unverified" (never "rolled
// out"); an object with no status to judge (ConfigMap, Service, RBAC) is "applied".
import type { Diagnosis } from '../classify/diagnosis.js';
import { groupOf, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { Deployment } from '../kube.js';
import type { ObjectVerdict } from '../run/result.js';
import { trackRollouts, type TrackDeps, type TrackOptions } from './tracker.js';
import { expectationOf } from './verdict.js';
import { revisionOf } from '../kube.js';

export interface WorkloadTarget {
  ref: ObjectRef;
  /** The object as the apply (or the restore) left it. */
  applied: KubeObject;
  /** Its pre-apply copy, if it existed. */
  before: KubeObject | undefined;
}

export interface TrackedOutcome {
  tracked: boolean;
  verdict: ObjectVerdict;
  diagnosis?: Diagnosis;
  elapsedMs: number;
}

/** Kinds that run pods: an apply that changes one is not done until its pods are judged. */
const POD_RUNNING_KINDS = new Set(['apps/StatefulSet', 'apps/DaemonSet', 'apps/ReplicaSet', 'batch/Job', 'batch/CronJob', '/Pod']);

export async function trackWorkloads(
  targets: readonly WorkloadTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, TrackedOutcome>> {
  const outcomes = new Map<string, TrackedOutcome>();
  const deployments = targets.filter((target) => target.ref.kind === 'Deployment' && groupOf(target.ref.apiVersion) === 'apps');
  for (const target of targets) {
    if (deployments.includes(target)) continue;
    const groupKind = `${groupOf(target.ref.apiVersion)}/${target.ref.kind}`;
    const verdict: ObjectVerdict = POD_RUNNING_KINDS.has(groupKind)
      ? { state: 'unverified', detail: `kguard does not track ${target.ref.kind} rollouts yet` }
      : { state: 'applied' };
    outcomes.set(objectKey(target.ref), { tracked: false, verdict, elapsedMs: 0 });
    if (options.phase === 'rollout' && verdict.state === 'unverified') {
      deps.reporter.emit({ kind: 'unverified', workload: target.ref, detail: verdict.detail ?? '' });
    }
  }
  if (deployments.length === 0) return outcomes;
  if (options.phase === 'rollout') {
    for (const target of deployments) {
      deps.reporter.emit({
        kind: 'tracking',
        workload: target.ref,
        fromRevision: target.before ? revisionOf(target.before as unknown as Deployment) : undefined,
        detail: target.before ? 'changed by this apply' : 'created by this apply',
      });
    }
  }
  const tracked = await trackRollouts(
    deployments.map((target) => ({ workload: target.ref, expected: expectationOf(target.applied as unknown as Deployment) })),
    options,
    deps,
  );
  for (const target of deployments) {
    const outcome = tracked.get(objectKey(target.ref));
    if (!outcome) continue;
    outcomes.set(objectKey(target.ref), { tracked: true, verdict: outcome.verdict, diagnosis: outcome.diagnosis, elapsedMs: outcome.elapsedMs });
  }
  return outcomes;
}
