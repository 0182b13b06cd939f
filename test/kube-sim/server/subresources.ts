// The /scale subresource (kubectl scale) and pods/log (kubectl logs).

import { ApiError, badRequest } from '../errors.js';
import type { JsonValue } from '../json.js';
import { labelSelectorToString } from '../selectors.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { applyPatch, type PatchType } from './patch/index.js';
import { getObject } from './reads.js';
import type { ResourceRoute } from './routing.js';
import { replaceObject, type WriteRequest } from './writes.js';

type NamedRoute = ResourceRoute & { name: string };

/** Where the simulated kubelet writes each container's output (see CONTRACT.md, "Pod logs"). */
export const LOG_ANNOTATION_PREFIX = 'sim.kguard.dev/logs.';

export function getScale(store: Store, route: NamedRoute): object {
  return scaleOf(getObject(store, route));
}

/** PUT or PATCH of a Scale: only spec.replicas carries over to the object. */
export function writeScale(
  store: Store,
  route: NamedRoute,
  change: { patchType?: PatchType; body: JsonValue },
  request: WriteRequest,
): object {
  const stored = getObject(store, route);
  const scale = change.patchType
    ? applyPatch(change.patchType, scaleOf(stored) as JsonValue, change.body)
    : change.body;
  const replicas = (scale as { spec?: { replicas?: unknown } })?.spec?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new ApiError(
      422,
      'Invalid',
      `Scale.autoscaling "${route.name}" is invalid: spec.replicas: Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
    );
  }
  const updated = { ...stored, spec: { ...stored.spec, replicas } };
  delete updated.metadata.resourceVersion;
  const result = replaceObject(store, { ...route, subresource: undefined }, updated, {
    ...request,
    fieldValidation: 'Ignore',
    fieldManager: { ...request.fieldManager, subresource: 'scale' },
  });
  return scaleOf(result.body as KubeObject);
}

function scaleOf(obj: KubeObject): object {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: { replicas: obj.status?.replicas ?? 0, selector: labelSelectorToString(obj.spec?.selector) },
  };
}

/** The log text for `kubectl logs`, honouring container= and tailLines=. */
export function podLog(store: Store, route: NamedRoute, query: URLSearchParams): string {
  const pod = getObject(store, route);
  const containers = ((pod.spec?.containers ?? []) as { name: string }[]).map((container) => container.name);
  const initContainers = ((pod.spec?.initContainers ?? []) as { name: string }[]).map((container) => container.name);
  let container = query.get('container');
  if (!container) {
    if (containers.length !== 1) {
      throw badRequest(
        `a container name must be specified for pod ${route.name}, choose one of: [${containers.join(' ')}]`,
      );
    }
    container = containers[0]!;
  }
  if (!containers.includes(container) && !initContainers.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${route.name}`);
  }
  if (query.get('previous') === 'true' && restartCountOf(pod, container) === 0) {
    throw badRequest(`previous terminated container "${container}" in pod "${route.name}" not found`);
  }
  const text = pod.metadata.annotations?.[LOG_ANNOTATION_PREFIX + container];
  if (text === undefined) {
    const waiting = waitingReason(pod, container);
    if (waiting) throw badRequest(`container "${container}" in pod "${route.name}" is waiting to start: ${waiting}`);
    return '';
  }
  return tail(text, query.get('tailLines'));
}

/** What the kubelet says about a container that has not started, as `kubectl logs` shows it. */
function waitingReason(pod: KubeObject, container: string): string | undefined {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])] as {
    name: string;
    state?: { waiting?: { reason?: string } };
  }[];
  const status = statuses.find((candidate) => candidate.name === container);
  const reason = status?.state?.waiting?.reason;
  if (!status) return pod.status?.phase === 'Pending' ? 'ContainerCreating' : undefined;
  if (reason === undefined || reason === 'CrashLoopBackOff') return undefined;
  return reason === 'ErrImagePull' || reason === 'ImagePullBackOff' ? 'trying and failing to pull image' : reason;
}

function restartCountOf(pod: KubeObject, container: string): number {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])] as {
    name: string;
    restartCount?: number;
  }[];
  return statuses.find((candidate) => candidate.name === container)?.restartCount ?? 0;
}

function tail(text: string, tailLines: string | null): string {
  if (tailLines === null || Number(tailLines) < 0) return text;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const kept = Number(tailLines) === 0 ? [] : lines.slice(-Number(tailLines));
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}
