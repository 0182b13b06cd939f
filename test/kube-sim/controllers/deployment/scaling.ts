// Replica arithmetic of the real deployment controller: rolling.go (reconcileNewReplicaSet,
// reconcileOldReplicaSets, cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate) and
// sync.go (scale: proportional scaling). Writes go through the Scaler the controller passes in.

import type { KubeObject } from '../../types.js';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  activeReplicaSets,
  availableReplicaCount,
  byCreation,
  bySizeNewer,
  bySizeOlder,
  desiredReplicas,
  isRollingUpdate,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  replicaCount,
  specReplicas,
} from './util.js';

export interface Scaler {
  /** Sets spec.replicas (and the desired/max annotations); records ScalingReplicaSet. Returns whether the size changed. */
  scaleAndRecord(rs: KubeObject, newScale: number, d: KubeObject): boolean;
  /** Like scaleAndRecord, but also writes when only the desired/max annotations are stale. */
  resize(rs: KubeObject, newScale: number, d: KubeObject): boolean;
}

export function reconcileNewReplicaSet(
  scaler: Scaler,
  allRSs: KubeObject[],
  newRS: KubeObject,
  d: KubeObject,
): boolean {
  const desired = desiredReplicas(d);
  if (specReplicas(newRS) === desired) return false;
  if (specReplicas(newRS) > desired) return scaler.scaleAndRecord(newRS, desired, d);
  return scaler.scaleAndRecord(newRS, newRSNewReplicas(d, allRSs, newRS), d);
}

export function reconcileOldReplicaSets(
  scaler: Scaler,
  allRSs: KubeObject[],
  oldRSs: KubeObject[],
  newRS: KubeObject | undefined,
  d: KubeObject,
): boolean {
  if (replicaCount(oldRSs) === 0) return false;
  const allPodsCount = replicaCount(allRSs);
  const minAvailable = desiredReplicas(d) - maxUnavailable(d);
  const newRSUnavailablePodCount = newRS ? specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0) : 0;
  const maxScaledDown = allPodsCount - minAvailable - newRSUnavailablePodCount;
  if (maxScaledDown <= 0) return false;
  // First clean up old ReplicaSets' unhealthy replicas: they do not count toward availability anyway.
  const cleanedUp = cleanupUnhealthyReplicas(scaler, oldRSs, d, maxScaledDown);
  const scaledDown = scaleDownOldReplicaSetsForRollingUpdate(scaler, newRS ? [...oldRSs, newRS] : oldRSs, oldRSs, d);
  return cleanedUp + scaledDown > 0;
}

export function cleanupUnhealthyReplicas(
  scaler: Scaler,
  oldRSs: KubeObject[],
  d: KubeObject,
  maxCleanupCount: number,
): number {
  let totalScaledDown = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (totalScaledDown >= maxCleanupCount) break;
    if (specReplicas(rs) === 0) continue;
    const unhealthy = specReplicas(rs) - (rs.status?.availableReplicas ?? 0);
    if (unhealthy <= 0) continue;
    const scaledDownCount = Math.min(maxCleanupCount - totalScaledDown, unhealthy);
    scaler.scaleAndRecord(rs, specReplicas(rs) - scaledDownCount, d);
    totalScaledDown += scaledDownCount;
  }
  return totalScaledDown;
}

export function scaleDownOldReplicaSetsForRollingUpdate(
  scaler: Scaler,
  allRSs: KubeObject[],
  oldRSs: KubeObject[],
  d: KubeObject,
): number {
  const minAvailable = desiredReplicas(d) - maxUnavailable(d);
  const availablePodCount = availableReplicaCount(allRSs);
  if (availablePodCount <= minAvailable) return 0;
  const totalScaleDownCount = availablePodCount - minAvailable;
  let totalScaledDown = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (totalScaledDown >= totalScaleDownCount) break;
    if (specReplicas(rs) === 0) continue;
    const scaleDownCount = Math.min(specReplicas(rs), totalScaleDownCount - totalScaledDown);
    scaler.scaleAndRecord(rs, specReplicas(rs) - scaleDownCount, d);
    totalScaledDown += scaleDownCount;
  }
  return totalScaledDown;
}

export function scale(scaler: Scaler, d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[]): void {
  const desired = desiredReplicas(d);
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (specReplicas(activeOrLatest) !== desired) scaler.scaleAndRecord(activeOrLatest, desired, d);
    return;
  }
  if (newRS && isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) scaler.scaleAndRecord(old, 0, d);
    return;
  }
  if (!isRollingUpdate(d)) return;
  // Proportional scaling: spread the change over the active ReplicaSets by their share.
  const allRSs = activeReplicaSets(newRS ? [...oldRSs, newRS] : oldRSs);
  const allowedSize = desired > 0 ? desired + maxSurge(d) : 0;
  const toAdd = allowedSize - replicaCount(allRSs);
  if (toAdd > 0) allRSs.sort(bySizeNewer);
  else if (toAdd < 0) allRSs.sort(bySizeOlder);
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of allRSs) {
    const share = toAdd === 0 ? 0 : proportion(rs, d, toAdd, added);
    sizes.set(rs.metadata.name, specReplicas(rs) + share);
    added += share;
  }
  allRSs.forEach((rs, index) => {
    let size = sizes.get(rs.metadata.name)!;
    if (index === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    scaler.resize(rs, size, d);
  });
}

/** getProportion: how much of the resize this ReplicaSet takes, within what is left. */
function proportion(rs: KubeObject, d: KubeObject, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function findActiveOrLatest(newRS: KubeObject | undefined, oldRSs: KubeObject[]): KubeObject | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((left, right) => byCreation(right, left));
  const active = activeReplicaSets(newRS ? [...newestFirst, newRS] : newestFirst);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

function isSaturated(d: KubeObject, rs: KubeObject): boolean {
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  return (
    specReplicas(rs) === desiredReplicas(d) &&
    Number(desired) === desiredReplicas(d) &&
    (rs.status?.availableReplicas ?? 0) === desiredReplicas(d)
  );
}

/** getReplicaSetFraction: this ReplicaSet's share of a resize, from its max-replicas annotation. */
function replicaSetFraction(rs: KubeObject, d: KubeObject): number {
  if (desiredReplicas(d) === 0) return -specReplicas(rs);
  const deploymentReplicas = desiredReplicas(d) + maxSurge(d);
  const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION] ?? d.status?.replicas ?? 0);
  if (!annotated) return 0;
  return Math.round((specReplicas(rs) * deploymentReplicas) / annotated) - specReplicas(rs);
}
