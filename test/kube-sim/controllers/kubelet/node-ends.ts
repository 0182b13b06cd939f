// The node ending one pod for the node's own reasons, as the kubelet does on a real cluster, asked
// for by pod-template annotations (README.md, "Per-workload behaviour"). Each ends at most one pod
// per controller (the first of its pods to get there), so the controller's replacement runs: the
// shape of a node that evicts one pod under memory pressure, rejects one at admission, or shuts
// down under one pod (a spot reclaim), while its replacement lands elsewhere.
import type { Store } from '../../store.js';
import type { KubeObject } from '../../types.js';

export const NODE_PRESSURE_EVICTION = 'sim.kguard.dev/node-pressure-eviction';
export const ADMISSION_REJECT = 'sim.kguard.dev/admission-reject';
export const NODE_SHUTDOWN = 'sim.kguard.dev/node-shutdown';

/** nodeshutdown_manager_linux.go: podShutdownReason, podShutdownMessage. */
export const SHUTDOWN_REASON = 'Terminated';
export const SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';

/**
 * eviction/helpers.go evictionMessage (1.26+): nodeLowMessageFmt, thresholdMetMessageFmt and, for
 * the container using the most above its request, containerMessageFmt.
 */
export function pressureMessage(resource: string, container: string, request: string | undefined): string {
  const usage = resource === 'memory' ? '1402384Ki' : '3Gi';
  const threshold = resource === 'memory' ? '100Mi' : '10%';
  return (
    `The node was low on resource: ${resource}. Threshold quantity: ${threshold}, available: 84Mi. ` +
    `Container ${container} was using ${usage}, request is ${request ?? '0'}, has larger consumption of ${resource}. `
  );
}

/**
 * kubelet.go rejectPod: reason and `Pod was rejected: ` + the admit handler's message
 * (lifecycle/predicate.go: InsufficientResourceError for OutOf<resource>, PredicateFailureError
 * `Predicate NodeAffinity failed`; UnexpectedAdmissionError: `Allocate failed due to …`).
 */
export function rejectionMessage(reason: string): string {
  const resource = /^OutOf(.+)$/.exec(reason)?.[1];
  if (resource === 'cpu')
    return "Pod was rejected: Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000";
  if (resource)
    return `Pod was rejected: Node didn't have enough resource: ${resource}, requested: 536870912, used: 8053063680, capacity: 8350298112`;
  if (reason === 'UnexpectedAdmissionError')
    return 'Pod was rejected: Allocate failed due to no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is unexpected';
  return `Pod was rejected: Predicate ${reason} failed`;
}

/** Whether another pod of the same controller already ended this way: then this one runs on. */
export function siblingEnded(store: Store, pod: KubeObject, reason: string): boolean {
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.controller)?.uid;
  if (!owner) return false;
  return store
    .list('Pod', pod.metadata.namespace)
    .some(
      (other) =>
        other.metadata.uid !== pod.metadata.uid &&
        other.status?.reason === reason &&
        other.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === owner),
    );
}
