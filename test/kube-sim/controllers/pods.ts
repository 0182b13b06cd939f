// Small readers over Pod JSON shared by the replicaset controller, the scheduler and the kubelet.

import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { cpuMillis, parseQuantity } from './quantity.js';

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

export function podCondition(pod: KubeObject, type: string): PodCondition | undefined {
  return (pod.status?.conditions as PodCondition[] | undefined)?.find((condition) => condition.type === type);
}

export const isPodReady = (pod: KubeObject): boolean => podCondition(pod, 'Ready')?.status === 'True';

/** podutil.IsPodAvailable: ready for at least minReadySeconds. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: Date): boolean {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  return Date.parse(ready.lastTransitionTime) + minReadySeconds * 1000 < now.getTime();
}

/** When a ready pod becomes available, if it is not yet. */
export function availableAt(pod: KubeObject, minReadySeconds: number): number | undefined {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return undefined;
  return Date.parse(ready.lastTransitionTime) + minReadySeconds * 1000 + 1;
}

/** controller.IsPodActive: not finished and not being deleted. */
export const isPodActive = (pod: KubeObject): boolean =>
  !pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

export const isOwnedBy = (obj: KubeObject, owner: KubeObject): boolean =>
  obj.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === owner.metadata.uid) ?? false;

interface Container {
  name: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/** A container's requests as the API defaults them: an unset request takes the limit. */
export function containerRequest(container: Container, resource: 'cpu' | 'memory'): number {
  const quantity = container.resources?.requests?.[resource] ?? container.resources?.limits?.[resource];
  return resource === 'cpu' ? cpuMillis(quantity) : parseQuantity(quantity);
}

export function containerLimit(container: Container, resource: 'cpu' | 'memory'): number {
  const quantity = container.resources?.limits?.[resource];
  return resource === 'cpu' ? cpuMillis(quantity) : parseQuantity(quantity);
}

/** The scheduler's effective pod request: max(sum of app containers, largest init container). */
export function podRequest(
  spec: { containers?: Container[]; initContainers?: Container[] },
  resource: 'cpu' | 'memory',
): number {
  const sum = (spec.containers ?? []).reduce((total, container) => total + containerRequest(container, resource), 0);
  const largestInit = (spec.initContainers ?? []).reduce(
    (max, container) => Math.max(max, containerRequest(container, resource)),
    0,
  );
  return Math.max(sum, largestInit);
}

export function podLimit(
  spec: { containers?: Container[]; initContainers?: Container[] },
  resource: 'cpu' | 'memory',
): number {
  const sum = (spec.containers ?? []).reduce((total, container) => total + containerLimit(container, resource), 0);
  const largestInit = (spec.initContainers ?? []).reduce(
    (max, container) => Math.max(max, containerLimit(container, resource)),
    0,
  );
  return Math.max(sum, largestInit);
}

/** The QoS class the API server records at creation. */
export function qosClass(spec: {
  containers?: Container[];
  initContainers?: Container[];
}): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  const anySet = containers.some(
    (c) => Object.keys(c.resources?.requests ?? {}).length + Object.keys(c.resources?.limits ?? {}).length > 0,
  );
  if (!anySet) return 'BestEffort';
  const guaranteed = containers.every((c) =>
    (['cpu', 'memory'] as const).every((resource) => {
      const limit = c.resources?.limits?.[resource];
      const request = c.resources?.requests?.[resource] ?? limit;
      return limit !== undefined && parseQuantity(limit) === parseQuantity(request);
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/**
 * A graceful pod deletion as the API server does it: a pod bound to a node gets deletionTimestamp
 * (now + grace period) and stays Terminating until its kubelet has stopped it and deletes it; an
 * unbound or finished (Succeeded, Failed) pod is removed at once.
 */
export function deletePodGracefully(store: Store, pod: KubeObject, now: Date): void {
  const namespace = pod.metadata.namespace ?? 'default';
  // pkg/registry/core/pod/strategy.go CheckGracefulDelete: an unscheduled or finished pod has nothing to stop.
  if (!pod.spec?.nodeName || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
    store.delete('Pod', namespace, pod.metadata.name);
    return;
  }
  if (pod.metadata.deletionTimestamp) return;
  const grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
  const terminating = structuredClone(pod);
  terminating.metadata.deletionTimestamp = new Date(now.getTime() + grace * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  terminating.metadata.deletionGracePeriodSeconds = grace;
  delete terminating.metadata.resourceVersion;
  store.update(terminating);
}

/** Pods that still hold their node's resources: everything not finished, Terminating included. */
export const holdsNodeResources = (pod: KubeObject): boolean =>
  pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
