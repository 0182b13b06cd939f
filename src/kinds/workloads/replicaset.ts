// A ReplicaSet applied by itself: its pods are its own; done when all of them are available
// (kstatus replicasetConditions); a ReplicaFailure it keeps fails it as it fails a Deployment.
import { conditionRuleFor } from '../../classify/table.js';
import { conditionOf, type Condition, type ReplicaSet } from '../../kube.js';
import type { RolloutRules } from '../engine.js';
import { podsControlledBy } from '../look-index.js';

type ObservedReplicaSet = ReplicaSet & {
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; conditions?: Condition[] };
};

export const replicaSetRules: RolloutRules<ObservedReplicaSet> = {
  controller: 'replicaset controller',
  readsOwnedOnly: true,
  servingPods: true,
  observed: (set) => (set.status?.observedGeneration ?? 0) >= (set.metadata.generation ?? 0),
  newPods: (set, snapshot) => podsControlledBy(set, snapshot.pods),
  wait(set) {
    const replicas = set.spec?.replicas ?? 1;
    const available = set.status?.availableReplicas ?? 0;
    return available < replicas ? `waiting for ${replicas - available} of ${replicas} pods to be available` : undefined;
  },
  failure(set) {
    const condition = conditionOf(set, 'ReplicaFailure');
    const rule =
      condition?.status === 'True' && condition.reason
        ? conditionRuleFor(condition.reason, condition.message)
        : undefined;
    return rule && condition?.reason
      ? { source: 'condition', reason: condition.reason, message: condition.message ?? '', rule }
      : undefined;
  },
  progress(set) {
    const replicas = set.spec?.replicas ?? 1;
    return {
      desired: replicas,
      updated: replicas,
      ready: set.status?.readyReplicas ?? 0,
      available: set.status?.availableReplicas ?? 0,
    };
  },
};
