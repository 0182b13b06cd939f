// A bare Pod: done when Ready, or Succeeded for a pod that runs to completion (kstatus podConditions);
// failed at phase Failed (kubelet getPhase: nothing will restart) or a fatal reason of its own.
import { POD_FAILED } from '../../classify/conditions.js';
import { conditionOf, type Pod } from '../../kube.js';
import type { RolloutRules } from '../engine.js';

export const podRules: RolloutRules<Pod> = {
  controller: 'kubelet',
  readsOwnedOnly: true,
  observed: () => true,
  newPods: (pod) => [pod],
  wait(pod) {
    if (pod.status?.phase === 'Succeeded' || conditionOf(pod, 'Ready')?.status === 'True') return undefined;
    return `waiting for the pod to be Ready (phase ${pod.status?.phase ?? 'Pending'})`;
  },
  failure(pod) {
    if (pod.status?.phase !== 'Failed') return undefined;
    return {
      source: 'condition',
      reason: pod.status.reason ?? 'Failed',
      message: pod.status.message ?? '',
      rule: POD_FAILED,
    };
  },
  progress(pod) {
    const ready = conditionOf(pod, 'Ready')?.status === 'True' ? 1 : 0;
    return {
      desired: 1,
      updated: 1,
      ready,
      available: ready,
      summary: `phase ${pod.status?.phase ?? 'Pending'}${ready ? ', Ready' : ''}`,
    };
  },
};
