// Which pods a controller still counts, and whose trouble a terminated one is. Pure.
//
// The replicaset controller counts only active pods (kubernetes pkg/controller/controller_utils.go
// IsPodActive: phase neither Succeeded nor Failed, no deletionTimestamp; FilterActivePods in
// syncReplicaSet, every release since 1.5). A pod that ended keeps its place in the API until pod
// GC's --terminated-pod-gc-threshold (12,500 pods, cluster-wide; kubernetes#91672), so it says
// nothing about whether the workload serves: its replacement does. `kubectl rollout status`,
// kstatus, Argo CD's health and Helm's waiter all judge by the controller's counts.
//
// What ends a pod of a Deployment, ReplicaSet, DaemonSet or StatefulSet (restartPolicy Always:
// its containers alone never do) is the node or the control plane: the kubelet's eviction manager
// under node pressure, its admission (rejectPod), the node shutdown manager, pod GC, the taint
// manager, preemption. Those are the node's trouble, a note. A few come from the pod's own spec
// and will end its replacement too: an eviction for its own ephemeral-storage or emptyDir limit,
// its activeDeadlineSeconds, an unsafe sysctl or an AppArmor profile the node refuses. Those stay
// the release's, judged as before.
import { conditionOf, type Pod } from '../kube.js';
import { oneLine } from './text.js';

/** controller.IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return !pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
}

// kubelet eviction manager messages for a pod over its own limits (pkg/kubelet/eviction/helpers.go
// containerEphemeralStorageMessageFmt, podEphemeralStorageMessageFmt, emptyDirMessageFmt).
export const OWN_LIMIT_EVICTION =
  /exceeded its local ephemeral storage limit|ephemeral local storage usage exceeds the total limit|Usage of EmptyDir volume .* exceeds the limit/;

/**
 * Terminal reasons that come from the pod's own spec, so its replacement ends the same way:
 * kubelet activeDeadlineSeconds (kubelet_pods.go: reason "DeadlineExceeded", `Pod was active on
 * the node longer than the specified deadline`), the sysctl admit handler (pkg/kubelet/sysctl:
 * ForbiddenReason "SysctlForbidden"), the AppArmor admit handler (pkg/kubelet/apparmor: reason "AppArmor").
 */
const OWN_REASONS = new Set(['DeadlineExceeded', 'SysctlForbidden', 'AppArmor']);

/** Graceful node shutdown (pkg/kubelet/nodeshutdown): "Terminated" (1.21+), "Shutdown" (1.20), "NodeShutdown" (rejected while shutting down). */
const SHUTDOWN_REASONS = new Set(['Terminated', 'Shutdown', 'NodeShutdown']);

/** DisruptionTarget reasons (k8s.io/api core/v1 types.go, 1.26+) other than the kubelet's own, in words. */
const DISRUPTIONS: Readonly<Record<string, string>> = {
  // pkg/controller/podgc: an orphaned pod, or one terminating on a node that is gone or out of service.
  DeletionByPodGC: 'was failed by pod GC (its node is gone or out of service)',
  // pkg/controller/tainteviction: a NoExecute taint of its node.
  DeletionByTaintManager: 'was evicted by a NoExecute taint of its node',
  // kube-scheduler preemption: a higher-priority pod needed its place.
  PreemptionByScheduler: 'was preempted by the scheduler for a higher-priority pod',
  // The Eviction API (kubectl drain, a node upgrade).
  EvictionByEvictionAPI: 'was evicted through the Eviction API (a drain)',
};

/** How a pod that its controller no longer counts ended, and whether that is the release's doing. */
export interface Termination {
  /** The pod's own spec ended it (its replacement will end the same way): judged as the release's. */
  own: boolean;
  /** "was evicted by its node (memory pressure)", after the pod's name. */
  how: string;
}

/**
 * Why a pod ended, for a pod that ended (phase Failed or Succeeded); undefined for an active pod
 * or one being deleted (its deletion already takes it out of every count).
 */
export function terminationOf(pod: Pod): Termination | undefined {
  const phase = pod.status?.phase;
  if (pod.metadata.deletionTimestamp || (phase !== 'Failed' && phase !== 'Succeeded')) return undefined;
  const reason = pod.status?.reason ?? '';
  const message = oneLine(pod.status?.message ?? '').trim();
  const disruption = conditionOf(pod, 'DisruptionTarget');
  const disrupted = disruption?.status === 'True' ? disruption : undefined;
  const text = message || oneLine(disrupted?.message ?? '').trim();
  if (
    reason === 'Evicted' ||
    (disrupted?.reason === 'TerminationByKubelet' && /^The node (was low|had condition)/.test(text))
  ) {
    if (OWN_LIMIT_EVICTION.test(text)) return { own: true, how: `was evicted for going over its own limit (${text})` };
    return { own: false, how: `was evicted by its node (${pressureOf(text)})` };
  }
  if (OWN_REASONS.has(reason)) return { own: true, how: `ended: ${reason}${message ? ` (${message})` : ''}` };
  if (SHUTDOWN_REASONS.has(reason) || /imminent node shutdown|node is shutting down/.test(text))
    return { own: false, how: 'was ended by the graceful shutdown of its node' };
  // kubelet rejectPod (pkg/kubelet/kubelet.go): phase Failed, the admit handler's reason
  // (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, UnexpectedAdmissionError, …) and
  // "Pod was rejected: " + its message (before 1.20: "Pod " + message).
  if (
    /^Pod was rejected: /.test(message) ||
    (reason !== '' && /^Pod /.test(message) && !pod.status?.containerStatuses?.length)
  )
    return {
      own: false,
      how: `was rejected by the kubelet of ${pod.spec?.nodeName ? `node ${pod.spec.nodeName}` : 'its node'} (${reason || 'rejected'}: ${message.replace(/^Pod (was rejected: )?/, '')})`,
    };
  const disruptionText = disrupted?.reason ? DISRUPTIONS[disrupted.reason] : undefined;
  if (disruptionText) return { own: false, how: disruptionText };
  if (disrupted?.reason === 'TerminationByKubelet') return { own: false, how: `was ended by its kubelet (${text})` };
  return { own: false, how: `ended (phase ${phase}${reason ? `, ${reason}` : ''})` };
}

/** "memory pressure", from `The node was low on resource: memory. …` or `The node had condition: [DiskPressure]. ` (eviction/helpers.go). */
function pressureOf(message: string): string {
  const resource = /The node was low on resource: ([\w-]+(?:\.[\w-]+)*?)\. /.exec(message)?.[1];
  if (resource) return `${resource} pressure`;
  const condition = /The node had condition: \[([^\]]+)\]/.exec(message)?.[1];
  if (condition)
    return condition.replace(/Pressure\b/, ' pressure').replace(/^Memory|^Disk|^PID/, (word) => word.toLowerCase());
  return 'node pressure';
}

/** The note a terminated pod leaves on its object's line: never a reason to wait. */
export function terminationNote(pod: Pod, termination: Termination): string {
  return `pod ${pod.metadata.name} ${termination.how}; its replacement counts`;
}
