// ResourceQuota admission as the API server applies it to pod creation, worded like the real
// plugin: `pods "web-7d9c6b-x2x4z" is forbidden: exceeded quota: compute, requested:
// requests.cpu=500m, used: requests.cpu=2, limited: requests.cpu=2`.

import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { isPodActive, containerLimit, containerRequest, podLimit, podRequest } from './pods.js';
import { cpuMillis, formatBytes, formatCpu, parseQuantity } from './quantity.js';

type Usage = Record<string, number>;

const TRACKED = [
  'pods',
  'count/pods',
  'requests.cpu',
  'cpu',
  'requests.memory',
  'memory',
  'limits.cpu',
  'limits.memory',
] as const;

/** Throws the 403 the API server would answer with, if creating `pod` would exceed a quota. */
export function admitPod(store: Store, pod: KubeObject): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const quotas = store.list('ResourceQuota', namespace);
  if (quotas.length === 0) return;
  const used = usageOf(store.list('Pod', namespace).filter(isPodActive));
  const requested = usageOf([pod]);
  for (const quota of [...quotas].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const hard = (quota.spec?.hard ?? {}) as Record<string, string>;
    const missing = missingRequests(pod, hard);
    if (missing.length > 0) {
      throw forbidden(pod, `failed quota: ${quota.metadata.name}: must specify ${missing.join(',')}`);
    }
    const exceeded = Object.keys(hard)
      .filter((resource) => (TRACKED as readonly string[]).includes(resource))
      .filter(
        (resource) =>
          (requested[resource] ?? 0) > 0 &&
          (used[resource] ?? 0) + requested[resource]! > amount(resource, hard[resource]!),
      )
      .sort();
    if (exceeded.length > 0) {
      const list = (usage: (resource: string) => number) =>
        exceeded.map((resource) => `${resource}=${format(resource, usage(resource))}`).join(',');
      throw forbidden(
        pod,
        `exceeded quota: ${quota.metadata.name}, requested: ${list((r) => requested[r] ?? 0)}, used: ${list((r) => used[r] ?? 0)}, limited: ${list((r) => amount(r, hard[r]!))}`,
      );
    }
  }
}

function forbidden(pod: KubeObject, reason: string): ApiError {
  return new ApiError(403, 'Forbidden', `pods "${pod.metadata.name}" is forbidden: ${reason}`, {
    name: pod.metadata.name,
    kind: 'pods',
  });
}

function usageOf(pods: KubeObject[]): Usage {
  const usage: Usage = { pods: pods.length, 'count/pods': pods.length };
  for (const pod of pods) {
    const spec = pod.spec ?? {};
    usage['requests.cpu'] = (usage['requests.cpu'] ?? 0) + podRequest(spec, 'cpu');
    usage['requests.memory'] = (usage['requests.memory'] ?? 0) + podRequest(spec, 'memory');
    usage['limits.cpu'] = (usage['limits.cpu'] ?? 0) + podLimit(spec, 'cpu');
    usage['limits.memory'] = (usage['limits.memory'] ?? 0) + podLimit(spec, 'memory');
  }
  usage.cpu = usage['requests.cpu'] ?? 0;
  usage.memory = usage['requests.memory'] ?? 0;
  return usage;
}

/** A quota on requests/limits requires every container to set them. */
function missingRequests(pod: KubeObject, hard: Record<string, string>): string[] {
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const missing = new Set<string>();
  for (const resource of Object.keys(hard)) {
    const [kind, name] = resource.includes('.') ? (resource.split('.') as [string, string]) : ['requests', resource];
    if ((name !== 'cpu' && name !== 'memory') || (kind !== 'requests' && kind !== 'limits')) continue;
    const lacking = containers.some(
      (c) => (kind === 'limits' ? containerLimit(c, name) : containerRequest(c, name)) === 0,
    );
    if (lacking) missing.add(`${kind}.${name}`);
  }
  return [...missing].sort();
}

function amount(resource: string, quantity: string): number {
  return resource.endsWith('cpu') ? cpuMillis(quantity) : parseQuantity(quantity);
}

function format(resource: string, value: number): string {
  if (resource.endsWith('cpu')) return formatCpu(value);
  if (resource.endsWith('memory')) return formatBytes(value);
  return String(value);
}
