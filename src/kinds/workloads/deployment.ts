// Deployment: the pods of its new ReplicaSet (the one running its current template) are the new
// ones; it is done when `kubectl rollout status deployment/NAME` says so (kubectl
// pkg/polymorphichelpers/rollout_status.go, DeploymentStatusViewer); the deployment controller's
// own ProgressDeadlineExceeded or ReplicaFailure of this rollout fails it, as do its new pods.
import { conditionRuleFor } from '../../classify/table.js';
import { conditionOf, revisionOf, type Condition, type Deployment, type ReplicaSet } from '../../kube.js';
import type { WorkloadSnapshot } from '../../model/snapshot.js';
import type { Expectation, Progress, Verdict } from '../../model/verdict.js';
import type { KubeObject } from '../../objects/model.js';
import type { ConditionCause, RolloutRules } from '../engine.js';
import { objectsControlledBy, podsControlledBy } from '../look-index.js';
import { newReplicaSetFor } from './template.js';

export const deploymentRules: RolloutRules<Deployment> = {
  controller: 'deployment controller',
  readsOwnedOnly: true,
  servingPods: true,
  observed: (deployment) => (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0),
  newPods(deployment, snapshot) {
    const newReplicaSet = newReplicaSetIn(deployment, snapshot);
    return newReplicaSet ? podsControlledBy(newReplicaSet, snapshot.pods) : [];
  },
  wait: (deployment, snapshot) =>
    rolloutWait(deployment, readyNewPods(newReplicaSetIn(deployment, snapshot), snapshot)),
  failure: (deployment, snapshot, expected) =>
    deploymentCause(deployment, expected, newReplicaSetIn(deployment, snapshot)?.metadata.name),
  progress: (deployment, snapshot) => progressOf(deployment, newReplicaSetIn(deployment, snapshot), snapshot),
  revision: (before) => revisionOf(before),
};

/**
 * A paused Deployment (spec.paused) rolls nothing out: the deployment controller only scales it
 * (sync.go, `if d.Spec.Paused { return dc.sync(ctx, d, rsList) }`) and `kubectl rollout resume`
 * starts the staged change. As an OnDelete StatefulSet or a suspended Job, it is applied with
 * nothing to watch; Argo CD calls it Suspended (gitops-engine health_deployment.go).
 */
export function unwatchedDeployment(applied: Deployment): Verdict | undefined {
  if (applied.spec?.paused !== true) return undefined;
  const namespace = applied.metadata.namespace ? ` -n ${applied.metadata.namespace}` : '';
  return {
    state: 'applied',
    detail: `spec.paused is true: the change is staged and rolls out once kubectl rollout resume deployment/${applied.metadata.name}${namespace} starts it, so there is nothing to watch`,
  };
}

function newReplicaSetIn(deployment: Deployment, snapshot: WorkloadSnapshot): ReplicaSet | undefined {
  return newReplicaSetFor(deployment, objectsControlledBy<ReplicaSet>(deployment, snapshot, 'apps/v1', 'ReplicaSet'));
}

/** What `kubectl rollout status` would still wait for, or undefined when the rollout is complete. */
export function rolloutWait(deployment: Deployment, readyNew = 0): string | undefined {
  // A paused Deployment never progresses: say so rather than wait silently (kubectl does wait).
  if (deployment.spec?.paused)
    return `the Deployment is paused: kubectl rollout resume deployment/${deployment.metadata.name}`;
  return viewerWait(deployment, readyNew);
}

/**
 * kubectl's DeploymentStatusViewer.Status once the generation is observed: its progress-deadline
 * error (the deployment controller's TimedOutReason, ProgressDeadlineExceeded), then its counts.
 * What a Deployment left alone still waits for (workloads/unsettled.ts); the tracker's `wait` is
 * `rolloutWait`, its failure the row's conditions.
 */
export function deploymentStatusWait(deployment: Deployment): string | undefined {
  if (conditionOf(deployment, 'Progressing')?.reason === 'ProgressDeadlineExceeded')
    return 'its rollout exceeded its progress deadline';
  return viewerWait(deployment, 0);
}

/** DeploymentStatusViewer's counts, in its order; `readyNew` (kguard's count of ready new pods) only words the last. */
function viewerWait(deployment: Deployment, readyNew: number): string | undefined {
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const total = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated < desired) return `${updated} out of ${desired} new replicas have been updated`;
  if (total > updated) return `${total - updated} old replicas are pending termination`;
  if (available < updated) {
    // The progress line counts ready pods of the new ReplicaSet; "available" is the Deployment's
    // count, which trails readiness by minReadySeconds and by the controller's next status
    // update. Say which, rather than print "2/2 ready: 0 of 2 available" as a contradiction.
    if (readyNew >= updated) {
      const minReady = deployment.spec?.minReadySeconds ?? 0;
      return minReady > 0
        ? `${available} of ${updated} updated replicas are available: ready pods count as available after minReadySeconds (${minReady}s)`
        : `${available} of ${updated} updated replicas counted available so far: waiting for the deployment controller to count the ready pods`;
    }
    return `${available} of ${updated} updated replicas are available`;
  }
  return undefined;
}

function progressOf(
  deployment: Deployment,
  newReplicaSet: ReplicaSet | undefined,
  snapshot: WorkloadSnapshot,
): Progress {
  const observed = (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  return {
    revision: newReplicaSet ? revisionOf(newReplicaSet) : undefined,
    newReplicaSet: newReplicaSet?.metadata.name,
    desired: deployment.spec?.replicas ?? 1,
    updated: observed ? (deployment.status?.updatedReplicas ?? 0) : 0,
    ready: readyNewPods(newReplicaSet, snapshot),
    available: newReplicaSet?.status?.availableReplicas ?? 0,
  };
}

/**
 * Ready pods of the new ReplicaSet as kguard sees them: the ReplicaSet's own count trails its pods
 * (the replicaset controller's next status write), and neither the progress line nor the wait may
 * contradict the pod count kguard prints.
 */
function readyNewPods(newReplicaSet: ReplicaSet | undefined, snapshot: WorkloadSnapshot): number {
  const pods = newReplicaSet
    ? podsControlledBy(newReplicaSet, snapshot.pods).filter((pod) => !pod.metadata.deletionTimestamp)
    : [];
  if (pods.length === 0) return newReplicaSet?.status?.readyReplicas ?? 0;
  return pods.filter((pod) => conditionOf(pod, 'Ready')?.status === 'True').length;
}

function failingCondition(deployment: Deployment): Condition | undefined {
  const progressing = conditionOf(deployment, 'Progressing');
  const replicaFailure = conditionOf(deployment, 'ReplicaFailure');
  return progressing?.status === 'False' ? progressing : replicaFailure?.status === 'True' ? replicaFailure : undefined;
}

function deploymentCause(
  deployment: Deployment,
  expected: Expectation,
  newReplicaSet: string | undefined,
): ConditionCause | undefined {
  const condition = failingCondition(deployment);
  const rule = condition?.reason ? conditionRuleFor(condition.reason, condition.message) : undefined;
  if (!condition?.reason || !rule || !belongsToRollout(condition, expected, newReplicaSet, deployment.metadata.name))
    return undefined;
  return { source: 'condition', reason: condition.reason, message: condition.message ?? '', rule };
}

/**
 * Whether a Deployment condition is about this rollout, not one before it: the controller keeps a
 * ProgressDeadlineExceeded until it has something new to say, and copies an old ReplicaSet's
 * ReplicaFailure when the new one has none (deployment/progress.go getReplicaFailures). Its message
 * names the ReplicaSet (`ReplicaSet "web-7d9c6b8f4d" has timed out progressing.`) or a pod of it
 * (`pods "web-7d9c6b8f4d-v6b9c" is forbidden: …`); otherwise its time must not be older than the apply.
 */
export function belongsToRollout(
  condition: Condition,
  expected: Expectation,
  newReplicaSet: string | undefined,
  deploymentName: string,
): boolean {
  const message = condition.message ?? '';
  if (newReplicaSet && (message.includes(`"${newReplicaSet}"`) || message.includes(`"${newReplicaSet}-`))) return true;
  const namesReplicaSet = /[Rr]eplica ?[Ss]et "[^"]+"/.test(message) || message.includes(`"${deploymentName}-`);
  if (namesReplicaSet) return false;
  const appliedAt = appliedTime(expected.applied);
  const changedAt = condition.lastUpdateTime ?? condition.lastTransitionTime;
  return appliedAt === undefined || changedAt === undefined || changedAt >= appliedAt;
}

/**
 * When the apply wrote the Deployment, in the API server's clock: the newest managedFields time of
 * the main resource, leaving out the controller's own writes (its revision annotation, status).
 */
function appliedTime(applied: KubeObject): string | undefined {
  const entries = (applied.metadata.managedFields ?? []) as Array<{
    manager?: string;
    time?: string;
    subresource?: string;
  }>;
  const times = entries
    .filter(
      (entry) => !entry.subresource && entry.manager !== 'kube-controller-manager' && typeof entry.time === 'string',
    )
    .map((entry) => entry.time as string)
    .sort();
  return times[times.length - 1];
}
