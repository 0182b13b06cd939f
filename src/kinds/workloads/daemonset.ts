// DaemonSet: its new pods carry the template generation the API server keeps in the
// deprecated.daemonset.template.generation annotation (daemonset registry strategy; the controller
// copies it to each pod's pod-template-generation label, daemon/util CreatePodTemplate); it is done
// when `kubectl rollout status daemonset/NAME` says so (rollout_status.go DaemonSetStatusViewer).
import type { DaemonSet } from '../../kube.js';
import type { RolloutRules } from '../engine.js';
import { podsControlledBy } from '../look-index.js';

export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

export const daemonSetRules: RolloutRules<DaemonSet> = {
  controller: 'daemonset controller',
  readsOwnedOnly: true,
  servingPods: true,
  observed: (set) => (set.metadata.generation ?? 0) <= (set.status?.observedGeneration ?? 0),
  newPods(set, snapshot) {
    const generation = set.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    const pods = podsControlledBy(set, snapshot.pods);
    return generation === undefined
      ? pods
      : pods.filter((pod) => pod.metadata.labels?.[POD_TEMPLATE_GENERATION_LABEL] === generation);
  },
  wait: daemonSetWait,
  failure: () => undefined,
  progress(set) {
    const status = set.status ?? {};
    const desired = status.desiredNumberScheduled ?? 0;
    return {
      desired,
      updated: status.updatedNumberScheduled ?? 0,
      ready: status.numberReady ?? 0,
      available: status.numberAvailable ?? 0,
      summary: `${status.updatedNumberScheduled ?? 0}/${desired} nodes updated, ${status.numberAvailable ?? 0}/${desired} available`,
    };
  },
};

/** DaemonSetStatusViewer.Status, once the generation is observed. */
export function daemonSetWait(set: DaemonSet): string | undefined {
  const status = set.status ?? {};
  const desired = status.desiredNumberScheduled ?? 0;
  if ((status.updatedNumberScheduled ?? 0) < desired) {
    return `waiting for daemon set rollout to finish: ${status.updatedNumberScheduled ?? 0} out of ${desired} new pods have been updated`;
  }
  if ((status.numberAvailable ?? 0) < desired) {
    return `waiting for daemon set rollout to finish: ${status.numberAvailable ?? 0} of ${desired} updated pods are available`;
  }
  return undefined;
}
