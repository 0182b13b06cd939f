// Pure helpers ported from kubernetes/pkg/controller/deployment/util/deployment_util.go: revision
// annotations, surge/unavailable arithmetic, replica counting and deployment conditions.

import type { KubeObject } from '../../types.js';
import { scaledValue } from '../quantity.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';

// Condition reasons and messages, from deployment_util.go.
export const NEW_RS_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const RS_UPDATED_REASON = 'ReplicaSetUpdated';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const PAUSED_REASON = 'DeploymentPaused';
export const RESUMED_REASON = 'DeploymentResumed';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const MINIMUM_REPLICAS_AVAILABLE = 'MinimumReplicasAvailable';
export const MINIMUM_REPLICAS_UNAVAILABLE = 'MinimumReplicasUnavailable';

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

// Defaults the API server would have filled in (apps/v1 SetDefaults_Deployment).
export const desiredReplicas = (d: KubeObject): number => d.spec?.replicas ?? 1;
export const isRollingUpdate = (d: KubeObject): boolean =>
  (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
export const revisionHistoryLimit = (d: KubeObject): number => d.spec?.revisionHistoryLimit ?? 10;
export const progressDeadlineSeconds = (d: KubeObject): number | undefined =>
  d.spec?.progressDeadlineSeconds === undefined ? 600 : (d.spec.progressDeadlineSeconds ?? undefined);
export const minReadySeconds = (d: KubeObject): number => d.spec?.minReadySeconds ?? 0;
/** HasProgressDeadline: set and not MaxInt32. */
export const hasProgressDeadline = (d: KubeObject): boolean => {
  const deadline = progressDeadlineSeconds(d);
  return deadline !== undefined && deadline !== 2147483647;
};

/** ResolveFenceposts: surge rounds up, unavailable rounds down, and both 0 means unavailable 1. */
export function resolveFenceposts(d: KubeObject): { surge: number; unavailable: number } {
  const desired = desiredReplicas(d);
  const rollingUpdate = d.spec?.strategy?.rollingUpdate ?? {};
  const surge = scaledValue(rollingUpdate.maxSurge, desired, true, '25%');
  let unavailable = scaledValue(rollingUpdate.maxUnavailable, desired, false, '25%');
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: KubeObject): number {
  if (!isRollingUpdate(d)) return 0;
  return resolveFenceposts(d).surge;
}

export function maxUnavailable(d: KubeObject): number {
  if (!isRollingUpdate(d) || desiredReplicas(d) === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desiredReplicas(d));
}

export const specReplicas = (rs: KubeObject): number => rs.spec?.replicas ?? 0;
/** GetReplicaCountForReplicaSets: sum of spec.replicas. */
export const replicaCount = (sets: KubeObject[]): number => sets.reduce((sum, rs) => sum + specReplicas(rs), 0);
/** GetActualReplicaCountForReplicaSets: sum of status.replicas. */
export const actualReplicaCount = (sets: KubeObject[]): number =>
  sets.reduce((sum, rs) => sum + (rs.status?.replicas ?? 0), 0);
export const readyReplicaCount = (sets: KubeObject[]): number =>
  sets.reduce((sum, rs) => sum + (rs.status?.readyReplicas ?? 0), 0);
export const availableReplicaCount = (sets: KubeObject[]): number =>
  sets.reduce((sum, rs) => sum + (rs.status?.availableReplicas ?? 0), 0);

export function revisionOf(obj: KubeObject): number {
  const value = obj.metadata.annotations?.[REVISION_ANNOTATION];
  const parsed = value === undefined ? 0 : Number.parseInt(value, 10);
  return Number.isFinite(parsed) ? parsed : 0;
}

export const maxRevision = (sets: KubeObject[]): number => sets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);

/** FilterActiveReplicaSets: those with spec.replicas > 0. */
export const activeReplicaSets = (sets: KubeObject[]): KubeObject[] => sets.filter((rs) => specReplicas(rs) > 0);

/** ReplicaSetsByCreationTimestamp (ties broken by name). */
export function byCreation(left: KubeObject, right: KubeObject): number {
  const byTime = (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '');
  return byTime !== 0 ? byTime : left.metadata.name.localeCompare(right.metadata.name);
}

/** ReplicaSetsBySizeNewer: larger first, then newer first. */
export function bySizeNewer(left: KubeObject, right: KubeObject): number {
  if (specReplicas(left) !== specReplicas(right)) return specReplicas(right) - specReplicas(left);
  return byCreation(right, left);
}

/** ReplicaSetsBySizeOlder: larger first, then older first. */
export function bySizeOlder(left: KubeObject, right: KubeObject): number {
  if (specReplicas(left) !== specReplicas(right)) return specReplicas(right) - specReplicas(left);
  return byCreation(left, right);
}

function skipCopyAnnotation(key: string): boolean {
  return [
    LAST_APPLIED_ANNOTATION,
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    ROLLBACK_TO_ANNOTATION,
  ].includes(key);
}

/** copyDeploymentAnnotationsToReplicaSet: adds or overwrites, never removes. Returns whether anything changed. */
export function copyDeploymentAnnotations(d: KubeObject, rs: KubeObject): boolean {
  rs.metadata.annotations ??= {};
  let changed = false;
  for (const [key, value] of Object.entries(d.metadata.annotations ?? {})) {
    if (skipCopyAnnotation(key) || rs.metadata.annotations[key] === value) continue;
    rs.metadata.annotations[key] = value;
    changed = true;
  }
  return changed;
}

/** SetReplicasAnnotations. Returns whether anything changed. */
export function setReplicasAnnotations(rs: KubeObject, desired: number, max: number): boolean {
  rs.metadata.annotations ??= {};
  let changed = false;
  if (rs.metadata.annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    rs.metadata.annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (rs.metadata.annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    rs.metadata.annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: KubeObject, desired: number, max: number): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return (
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/**
 * SetNewReplicaSetAnnotations: copies the Deployment's annotations, moves the revision up to
 * `newRevision` (keeping the old number in revision-history when an old ReplicaSet is reused,
 * i.e. a rollback), and on creation records desired/max replicas.
 */
export function setNewReplicaSetAnnotations(
  d: KubeObject,
  rs: KubeObject,
  newRevision: number,
  exists: boolean,
): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  const annotations = (rs.metadata.annotations ??= {});
  const oldRevisionText = annotations[REVISION_ANNOTATION];
  const oldRevision = oldRevisionText === undefined ? 0 : Number.parseInt(oldRevisionText, 10);
  if (oldRevisionText !== undefined && !Number.isFinite(oldRevision)) return false;
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevisionText !== undefined && oldRevisionText !== '') {
      const history = annotations[REVISION_HISTORY_ANNOTATION];
      annotations[REVISION_HISTORY_ANNOTATION] = history ? `${history},${oldRevisionText}` : oldRevisionText;
    }
  }
  if (!exists && setReplicasAnnotations(rs, desiredReplicas(d), desiredReplicas(d) + maxSurge(d))) changed = true;
  return changed;
}

/** NewRSNewReplicas: how far the new ReplicaSet may scale up now. */
export function newRSNewReplicas(d: KubeObject, allSets: KubeObject[], newRS: KubeObject): number {
  if (!isRollingUpdate(d)) return desiredReplicas(d);
  const surge = scaledValue(d.spec?.strategy?.rollingUpdate?.maxSurge, desiredReplicas(d), true, '25%');
  const currentPodCount = replicaCount(allSets);
  const maxTotalPods = desiredReplicas(d) + surge;
  if (currentPodCount >= maxTotalPods) return specReplicas(newRS);
  const scaleUpCount = Math.min(maxTotalPods - currentPodCount, desiredReplicas(d) - specReplicas(newRS));
  return specReplicas(newRS) + scaleUpCount;
}

/** DeploymentComplete */
export function deploymentComplete(d: KubeObject, status: DeploymentStatus): boolean {
  const desired = desiredReplicas(d);
  return (
    (status.updatedReplicas ?? 0) === desired &&
    (status.replicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: any count moved the right way since the stored status. */
export function deploymentProgressing(d: KubeObject, newStatus: DeploymentStatus): boolean {
  const old: DeploymentStatus = d.status ?? {};
  const oldStatusOldReplicas = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newStatusOldReplicas = (newStatus.replicas ?? 0) - (newStatus.updatedReplicas ?? 0);
  return (
    (newStatus.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newStatusOldReplicas < oldStatusOldReplicas ||
    (newStatus.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (newStatus.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: the Progressing condition was last updated more than the deadline ago. */
export function deploymentTimedOut(d: KubeObject, status: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(status, 'Progressing');
  if (!condition) return false;
  if (condition.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (condition.reason === TIMED_OUT_REASON) return true;
  const from = Date.parse(condition.lastUpdateTime);
  return from + progressDeadlineSeconds(d)! * 1000 < now.getTime();
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
}

export function newCondition(
  type: string,
  status: DeploymentCondition['status'],
  reason: string,
  message: string,
  now: string,
): DeploymentCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

export function getCondition(status: DeploymentStatus, type: string): DeploymentCondition | undefined {
  return status.conditions?.find((condition) => condition.type === type);
}

/** SetDeploymentCondition: no-op when status and reason are unchanged; keeps lastTransitionTime when only the reason changes. */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  if (current && current.status === condition.status) condition.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((existing) => existing.type !== condition.type), condition];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  status.conditions = (status.conditions ?? []).filter((existing) => existing.type !== type);
}
