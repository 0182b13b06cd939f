// Whether a workload's last rollout is complete, from the object alone, as `kubectl rollout status`
// decides it (kubectl/pkg/polymorphichelpers/rollout_status.go: DeploymentStatusViewer,
// DaemonSetStatusViewer, StatefulSetStatusViewer). An apply that changes nothing asks it of its
// workloads: a rollout someone left unfinished (a run killed before its verdict) is judged, not
// called unchanged. The rules are the kinds' own (deployment.ts, statefulset.ts, daemonset.ts):
// whether the controller observed the spec, then what the viewer still waits for. Pure; undefined
// when settled, else what it is waiting for.
import type { DaemonSet, Deployment, StatefulSet } from '../../kube.js';
import type { KubeObject } from '../../objects/model.js';
import type { RolloutRules } from '../engine.js';
import { daemonSetRules, daemonSetWait } from './daemonset.js';
import { deploymentRules, deploymentStatusWait } from './deployment.js';
import { unwatchedOnDelete } from './on-delete.js';
import { statefulSetRules, statefulSetWait } from './statefulset.js';

/** The viewer's wait, once the row's `observed` says the controller has seen the spec. */
function viewerAnswer<T>(
  rules: RolloutRules<T>,
  wait: (object: T) => string | undefined,
  object: T,
): string | undefined {
  if (!rules.observed(object)) return `its latest spec has not been observed by the ${rules.controller} yet`;
  return wait(object);
}

export const unsettledDeployment = (live: KubeObject): string | undefined =>
  viewerAnswer(deploymentRules, deploymentStatusWait, live as unknown as Deployment);

/** OnDelete: the viewer answers done ("only available for RollingUpdate"), as the row's `unwatched` says (on-delete.ts). */
export const unsettledStatefulSet = (live: KubeObject): string | undefined =>
  unwatchedOnDelete(live as unknown as StatefulSet)
    ? undefined
    : viewerAnswer(statefulSetRules, statefulSetWait, live as unknown as StatefulSet);

export const unsettledDaemonSet = (live: KubeObject): string | undefined =>
  unwatchedOnDelete(live as unknown as DaemonSet)
    ? undefined
    : viewerAnswer(daemonSetRules, daemonSetWait, live as unknown as DaemonSet);
