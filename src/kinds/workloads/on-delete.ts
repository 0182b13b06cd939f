// A StatefulSet or DaemonSet whose updateStrategy is not RollingUpdate (OnDelete): nothing rolls
// out until its pods are deleted, and kubectl refuses rollout status for it (rollout_status.go,
// StatefulSetStatusViewer and DaemonSetStatusViewer: "rollout status is only available for
// RollingUpdate strategy type"). Both rows call it applied, with nothing to watch (`unwatched`).
import type { RollingStrategy } from '../../kube.js';
import type { Verdict } from '../../model/verdict.js';

export function unwatchedOnDelete(applied: { spec?: { updateStrategy?: RollingStrategy } }): Verdict | undefined {
  const type = applied.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (type === 'RollingUpdate') return undefined;
  return {
    state: 'applied',
    detail: `updateStrategy ${type}: nothing rolls out until its pods are deleted (kubectl delete pod), so there is nothing to watch`,
  };
}
