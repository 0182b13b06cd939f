// Whether a workload's last rollout is complete, from the object alone, as `kubectl rollout status`
// decides it (kubectl/pkg/polymorphichelpers/rollout_status.go: DeploymentStatusViewer,
// DaemonSetStatusViewer, StatefulSetStatusViewer). An apply that changes nothing asks it of its
// workloads: a rollout someone left unfinished (a run killed before its verdict) is judged, not
// called unchanged. Pure; undefined when settled, else what it is waiting for.
import type { KubeObject } from '../../objects/model.js';

interface Counts {
  metadata: { generation?: number };
  spec?: { replicas?: number; updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } } };
  status?: Record<string, unknown> & { observedGeneration?: number; conditions?: Array<Record<string, unknown>> };
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

export function unsettledDeployment(live: KubeObject): string | undefined {
  const { metadata, spec, status = {} } = live as unknown as Counts;
  if ((metadata.generation ?? 0) > count(status.observedGeneration))
    return 'its latest spec has not been observed by the deployment controller yet';
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return `its rollout exceeded its progress deadline`;
  const replicas = spec?.replicas ?? 1;
  const updated = count(status.updatedReplicas);
  if (updated < replicas) return `${updated} of ${replicas} new replicas have been updated`;
  if (count(status.replicas) > updated)
    return `${count(status.replicas) - updated} old replicas are pending termination`;
  if (count(status.availableReplicas) < updated)
    return `${count(status.availableReplicas)} of ${updated} updated replicas are available`;
  return undefined;
}

export function unsettledDaemonSet(live: KubeObject): string | undefined {
  const { metadata, spec, status = {} } = live as unknown as Counts;
  if (spec?.updateStrategy?.type && spec.updateStrategy.type !== 'RollingUpdate') return undefined;
  if ((metadata.generation ?? 0) > count(status.observedGeneration))
    return 'its latest spec has not been observed by the daemon set controller yet';
  const desired = count(status.desiredNumberScheduled);
  if (count(status.updatedNumberScheduled) < desired)
    return `${count(status.updatedNumberScheduled)} of ${desired} updated pods are scheduled`;
  if (count(status.numberAvailable) < desired)
    return `${count(status.numberAvailable)} of ${desired} pods are available`;
  return undefined;
}

export function unsettledStatefulSet(live: KubeObject): string | undefined {
  const { metadata, spec, status = {} } = live as unknown as Counts;
  if (spec?.updateStrategy?.type && spec.updateStrategy.type !== 'RollingUpdate') return undefined;
  if ((metadata.generation ?? 0) > count(status.observedGeneration))
    return 'its latest spec has not been observed by the statefulset controller yet';
  const replicas = spec?.replicas ?? 1;
  if (count(status.readyReplicas) < replicas) return `${count(status.readyReplicas)} of ${replicas} pods are ready`;
  const partition = spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (partition > 0) {
    if (count(status.updatedReplicas) < replicas - partition)
      return `${count(status.updatedReplicas)} of ${replicas - partition} pods above the partition are updated`;
    return undefined;
  }
  if (status.updateRevision !== status.currentRevision)
    return `its pods are not all at the update revision ${String(status.updateRevision)} yet`;
  return undefined;
}
