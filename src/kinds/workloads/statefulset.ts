// StatefulSet: the pods of its update revision are the new ones; it is done when `kubectl rollout
// status statefulset/NAME` says so (kubectl pkg/polymorphichelpers/rollout_status.go,
// StatefulSetStatusViewer); nothing but its pods can fail it (the controller sets no condition).
import { REVISION_HASH_LABEL, type StatefulSet } from '../../kube.js';
import type { RolloutRules } from '../engine.js';
import { podsControlledBy } from '../look-index.js';

export const statefulSetRules: RolloutRules<StatefulSet> = {
  controller: 'statefulset controller',
  readsOwnedOnly: true,
  servingPods: true,
  // The viewer also waits while observedGeneration is 0 (a status never written).
  observed: (set) =>
    (set.status?.observedGeneration ?? 0) !== 0 &&
    (set.status?.observedGeneration ?? 0) >= (set.metadata.generation ?? 0),
  // statefulset controller: every pod carries its revision's name in controller-revision-hash.
  newPods: (set, snapshot) =>
    podsControlledBy(set, snapshot.pods).filter(
      (pod) => pod.metadata.labels?.[REVISION_HASH_LABEL] === set.status?.updateRevision,
    ),
  wait: statefulSetWait,
  failure: () => undefined,
  progress(set) {
    const replicas = set.spec?.replicas ?? 1;
    const target = replicas - partitionOf(set);
    const status = set.status ?? {};
    return {
      revision: status.updateRevision,
      desired: replicas,
      updated: status.updatedReplicas ?? 0,
      ready: status.readyReplicas ?? 0,
      available: status.availableReplicas ?? 0,
      summary: `${status.updatedReplicas ?? 0}/${Math.max(target, 0)} pods updated, ${status.readyReplicas ?? 0}/${replicas} ready`,
    };
  },
};

/** StatefulSetStatusViewer.Status, check by check, once the generation is observed. */
export function statefulSetWait(set: StatefulSet): string | undefined {
  const replicas = set.spec?.replicas ?? 1;
  const status = set.status ?? {};
  const ready = status.readyReplicas ?? 0;
  if (ready < replicas) return `waiting for ${replicas - ready} pods to be ready`;
  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'RollingUpdate' && strategy.rollingUpdate) {
    const partition = strategy.rollingUpdate.partition;
    if (partition !== undefined && (status.updatedReplicas ?? 0) < replicas - partition) {
      return `waiting for partitioned roll out to finish: ${status.updatedReplicas ?? 0} out of ${replicas - partition} new pods have been updated`;
    }
    return undefined;
  }
  if (status.updateRevision !== status.currentRevision) {
    return `waiting for statefulset rolling update to complete ${status.updatedReplicas ?? 0} pods at revision ${status.updateRevision ?? '?'}`;
  }
  return undefined;
}

function partitionOf(set: StatefulSet): number {
  return set.spec?.updateStrategy?.type === 'RollingUpdate'
    ? (set.spec.updateStrategy.rollingUpdate?.partition ?? 0)
    : 0;
}
