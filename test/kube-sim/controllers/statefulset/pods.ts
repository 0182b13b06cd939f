// StatefulSet pods: identity by ordinal, the revision label, and the readiness tests the
// controller blocks on. Follows kubernetes/pkg/controller/statefulset/stateful_set_utils.go.

import { applyDefaults } from '../../server/defaults.js';
import type { KubeObject } from '../../types.js';
import { isPodAvailable, isPodReady } from '../pods.js';
import { controllerRef } from '../pod-control.js';

/** apps.ControllerRevisionHashLabelKey: on a StatefulSet pod it holds the revision's *name* (setPodRevision). */
export const REVISION_LABEL = 'controller-revision-hash';
/** apps.StatefulSetPodNameLabel and apps.PodIndexLabel (PodIndexLabel is on by default since 1.28). */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** getParentNameAndOrdinal: `<set>-<ordinal>`; -1 when the name does not say. */
export function ordinalOf(pod: KubeObject, set: KubeObject): number {
  const match = /^(.*)-([0-9]+)$/.exec(pod.metadata.name);
  if (!match || match[1] !== set.metadata.name) return -1;
  return Number(match[2]);
}

export const revisionOfPod = (pod: KubeObject): string | undefined => pod.metadata.labels?.[REVISION_LABEL];

/** isCreated: the API server gave it a phase. Pods the controller only plans have no status. */
export const isCreated = (pod: KubeObject): boolean => Boolean(pod.status?.phase);
export const isTerminating = (pod: KubeObject): boolean => Boolean(pod.metadata.deletionTimestamp);
export const isFinished = (pod: KubeObject): boolean =>
  pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
/** isRunningAndReady: phase Running and the Ready condition True. */
export const isRunningAndReady = (pod: KubeObject): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
export const isRunningAndAvailable = (pod: KubeObject, minReadySeconds: number, now: Date): boolean =>
  isRunningAndReady(pod) && isPodAvailable(pod, minReadySeconds, now);
/** isUnavailable: not healthy (running, ready, not terminating) or not yet available. */
export const isUnavailable = (pod: KubeObject, minReadySeconds: number, now: Date): boolean =>
  !isRunningAndReady(pod) || isTerminating(pod) || !isPodAvailable(pod, minReadySeconds, now);

/**
 * newVersionedStatefulSetPod: ordinals below the partition (or, without a rollingUpdate block,
 * below status.currentReplicas) keep the current revision; every other pod gets the update revision.
 * Go's `a && b || c` is `(a && b) || c`, kept as is.
 */
export function newVersionedPod(
  currentSet: KubeObject,
  updateSet: KubeObject,
  currentRevision: string,
  updateRevision: string,
  ordinal: number,
): KubeObject {
  const strategy = currentSet.spec?.updateStrategy ?? {};
  const keepsCurrent =
    (strategy.type === 'RollingUpdate' &&
      strategy.rollingUpdate == null &&
      ordinal < (currentSet.status?.currentReplicas ?? 0)) ||
    (strategy.rollingUpdate != null && ordinal < (strategy.rollingUpdate.partition ?? 0));
  const pod = keepsCurrent ? newStatefulSetPod(currentSet, ordinal) : newStatefulSetPod(updateSet, ordinal);
  pod.metadata.labels = { ...pod.metadata.labels, [REVISION_LABEL]: keepsCurrent ? currentRevision : updateRevision };
  return pod;
}

/** newStatefulSetPod: the template's pod, named `<set>-<ordinal>`, with its identity (initIdentity) and claims (updateStorage). */
function newStatefulSetPod(set: KubeObject, ordinal: number): KubeObject {
  const template = structuredClone(set.spec?.template ?? {});
  const name = `${set.metadata.name}-${ordinal}`;
  const spec = template.spec ?? { containers: [] };
  spec.hostname = name;
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  const claims = (set.spec?.volumeClaimTemplates ?? []) as KubeObject[];
  if (claims.length > 0) {
    const own = new Set(claims.map((claim) => claim.metadata.name));
    spec.volumes = [
      ...claims.map((claim) => ({
        name: claim.metadata.name,
        persistentVolumeClaim: { claimName: claimName(claim, set, ordinal) },
      })),
      ...((spec.volumes ?? []) as { name: string }[]).filter((volume) => !own.has(volume.name)),
    ];
  }
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal) },
      ownerReferences: [controllerRef(set, 'apps/v1')],
    },
    spec,
  };
  if (template.metadata?.annotations) pod.metadata.annotations = template.metadata.annotations;
  return pod;
}

/** getPersistentVolumeClaimName: `<claim>-<set>-<ordinal>`. */
export function claimName(claim: KubeObject, set: KubeObject, ordinal: number): string {
  return `${claim.metadata.name}-${set.metadata.name}-${ordinal}`;
}

/** The pod as the API server stores what the controller POSTs (status.phase Pending, defaults). */
export function defaulted(pod: KubeObject): KubeObject {
  const copy = structuredClone(pod);
  applyDefaults(copy);
  return copy;
}
