// Deployment status and the Progressing / Available / ReplicaFailure conditions, ported from
// sync.go (calculateStatus) and progress.go (syncRolloutStatus) of the real deployment controller.

import type { KubeObject } from '../../types.js';
import {
  MINIMUM_REPLICAS_AVAILABLE,
  MINIMUM_REPLICAS_UNAVAILABLE,
  NEW_RS_AVAILABLE_REASON,
  RS_UPDATED_REASON,
  TIMED_OUT_REASON,
  actualReplicaCount,
  availableReplicaCount,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  desiredReplicas,
  getCondition,
  hasProgressDeadline,
  maxUnavailable,
  newCondition,
  readyReplicaCount,
  removeCondition,
  replicaCount,
  setCondition,
  type DeploymentCondition,
  type DeploymentStatus,
} from './util.js';

/** calculateStatus. Zero counts are left out, as the API's omitempty fields are. */
export function calculateStatus(
  allSets: KubeObject[],
  newRS: KubeObject | undefined,
  d: KubeObject,
  now: string,
): DeploymentStatus {
  const availableReplicas = availableReplicaCount(allSets);
  const totalReplicas = replicaCount(allSets);
  const unavailableReplicas = Math.max(0, totalReplicas - availableReplicas);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 1,
    replicas: actualReplicaCount(allSets),
    updatedReplicas: newRS ? actualReplicaCount([newRS]) : 0,
    readyReplicas: readyReplicaCount(allSets),
    availableReplicas,
    unavailableReplicas,
    collisionCount: d.status?.collisionCount,
    conditions: structuredClone(d.status?.conditions ?? []),
  };
  if (availableReplicas >= desiredReplicas(d) - maxUnavailable(d)) {
    setCondition(
      status,
      newCondition('Available', 'True', MINIMUM_REPLICAS_AVAILABLE, 'Deployment has minimum availability.', now),
    );
  } else {
    setCondition(
      status,
      newCondition(
        'Available',
        'False',
        MINIMUM_REPLICAS_UNAVAILABLE,
        'Deployment does not have minimum availability.',
        now,
      ),
    );
  }
  return status;
}

/** syncRolloutStatus: the status to write, including the Progressing verdict and ReplicaFailure. */
export function rolloutStatus(
  allSets: KubeObject[],
  newRS: KubeObject | undefined,
  d: KubeObject,
  now: Date,
  nowIso: string,
): DeploymentStatus {
  const newStatus = calculateStatus(allSets, newRS, d, nowIso);
  if (!hasProgressDeadline(d)) removeCondition(newStatus, 'Progressing');
  const current = getCondition(d.status ?? {}, 'Progressing');
  const isCompleteDeployment =
    (newStatus.replicas ?? 0) === (newStatus.updatedReplicas ?? 0) && current?.reason === NEW_RS_AVAILABLE_REASON;
  if (hasProgressDeadline(d) && !isCompleteDeployment) {
    const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
    if (deploymentComplete(d, newStatus)) {
      setCondition(
        newStatus,
        newCondition('Progressing', 'True', NEW_RS_AVAILABLE_REASON, `${subject} has successfully progressed.`, nowIso),
      );
    } else if (deploymentProgressing(d, newStatus)) {
      const condition = newCondition('Progressing', 'True', RS_UPDATED_REASON, `${subject} is progressing.`, nowIso);
      // Progress refreshes lastUpdateTime (which the deadline counts from) but not lastTransitionTime.
      if (current && current.status === 'True') {
        condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(newStatus, 'Progressing');
      }
      setCondition(newStatus, condition);
    } else if (deploymentTimedOut(d, newStatus, now)) {
      setCondition(
        newStatus,
        newCondition('Progressing', 'False', TIMED_OUT_REASON, `${subject} has timed out progressing.`, nowIso),
      );
    }
  }
  const replicaFailure = replicaFailureOf(allSets, newRS);
  if (replicaFailure) setCondition(newStatus, replicaFailure);
  else removeCondition(newStatus, 'ReplicaFailure');
  return newStatus;
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition first, then any old one's. */
function replicaFailureOf(allSets: KubeObject[], newRS: KubeObject | undefined): DeploymentCondition | undefined {
  const ordered = newRS ? [newRS, ...allSets.filter((rs) => rs !== newRS)] : allSets;
  for (const rs of ordered) {
    const condition = (rs.status?.conditions ?? []).find((c: { type: string }) => c.type === 'ReplicaFailure');
    if (condition) {
      return {
        type: 'ReplicaFailure',
        status: condition.status,
        lastUpdateTime: condition.lastTransitionTime,
        lastTransitionTime: condition.lastTransitionTime,
        reason: condition.reason,
        message: condition.message,
      };
    }
  }
  return undefined;
}

/** The status as the API serves it: zero counts and a missing collisionCount are omitted. */
export function serializeStatus(status: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const key of [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'collisionCount',
  ] as const) {
    const value = status[key];
    if (value) out[key] = value;
  }
  if (status.conditions && status.conditions.length > 0) out.conditions = status.conditions;
  return out;
}

/** When the current Progressing condition will time out, if it can (requeueStuckDeployment). */
export function progressDeadlineAt(d: KubeObject, status: DeploymentStatus): number | undefined {
  if (!hasProgressDeadline(d)) return undefined;
  const condition = getCondition(status, 'Progressing');
  if (!condition || condition.reason === NEW_RS_AVAILABLE_REASON || condition.reason === TIMED_OUT_REASON)
    return undefined;
  if (deploymentComplete(d, status)) return undefined;
  return Date.parse(condition.lastUpdateTime) + (d.spec?.progressDeadlineSeconds ?? 600) * 1000;
}
