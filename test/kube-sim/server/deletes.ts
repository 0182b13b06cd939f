// DELETE on resources. Deletion is immediate (with cascading to dependents), except for a pod
// bound to a node: as in the real API server it only gets a deletionTimestamp (now + grace
// period) and stays Terminating until its kubelet has stopped it and removes it.

import { preconditionConflict } from '../errors.js';
import { apiVersionOf } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { getObject } from './reads.js';
import { parseJson } from './responses.js';
import type { ResourceRoute } from './routing.js';
import type { WriteResult } from './writes.js';

export interface DeleteRequest {
  dryRun: boolean;
  /** propagationPolicy Orphan: dependents stay. */
  orphanDependents: boolean;
  /** DeleteOptions.gracePeriodSeconds (`kubectl delete --grace-period`); 0 = at once. */
  gracePeriodSeconds?: number;
  /** DeleteOptions.preconditions: delete only this incarnation (uid) or this version (resourceVersion). */
  preconditions?: { uid?: string; resourceVersion?: string };
  now: Date;
}

/** DeleteOptions arrive as a JSON body (kubectl) or as query parameters. */
export function deleteRequestOf(bodyText: string, query: URLSearchParams, now: Date): DeleteRequest {
  const body = (bodyText.trim() ? parseJson(bodyText) : {}) as {
    propagationPolicy?: string;
    orphanDependents?: boolean;
    dryRun?: string[];
    gracePeriodSeconds?: number;
    preconditions?: { uid?: string; resourceVersion?: string };
  };
  const policy = body.propagationPolicy ?? query.get('propagationPolicy');
  const graceText = query.get('gracePeriodSeconds');
  return {
    dryRun: (Array.isArray(body.dryRun) && body.dryRun.includes('All')) || query.getAll('dryRun').includes('All'),
    orphanDependents: policy === 'Orphan' || body.orphanDependents === true,
    gracePeriodSeconds: body.gracePeriodSeconds ?? (graceText === null ? undefined : Number(graceText)),
    preconditions: body.preconditions ?? undefined,
    now,
  };
}

export function deleteObject(
  store: Store,
  route: ResourceRoute & { name: string },
  request: DeleteRequest,
): WriteResult {
  const stored = getObject(store, route);
  checkPreconditions(route, stored, request);
  const deleted = deleteOne(store, stored, request);
  // Pods and Namespaces come back as the object; other kinds as a Success Status, like the real
  // registry, except an object its finalizers keep: that one comes back as it now is, with its
  // deletionTimestamp (registry/generic/registry/store.go Delete returns the object when it was
  // not deleted at once; the handler answers 200, as kubectl asks for background propagation).
  const kept = (deleted.metadata.finalizers ?? []).length > 0;
  if (route.type.kind === 'Pod' || route.type.kind === 'Namespace' || kept) return { code: 200, body: deleted };
  return {
    code: 200,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: route.name,
        group: route.type.group || undefined,
        kind: route.type.plural,
        uid: stored.metadata.uid,
      },
    },
  };
}

/**
 * registry/rest/delete.go BeforeDelete: a Conflict naming the Kind (GroupResource{Group, Resource: Kind}),
 * uid first, then resourceVersion.
 */
function checkPreconditions(route: ResourceRoute & { name: string }, stored: KubeObject, request: DeleteRequest): void {
  const { uid, resourceVersion } = request.preconditions ?? {};
  const resource = { plural: route.type.kind, group: route.type.group };
  if (uid != null && uid !== stored.metadata.uid) {
    throw preconditionConflict(
      resource,
      stored.metadata.name,
      `the UID in the precondition (${uid}) does not match the UID in record (${stored.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  if (resourceVersion != null && resourceVersion !== stored.metadata.resourceVersion) {
    throw preconditionConflict(
      resource,
      stored.metadata.name,
      `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${stored.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}

/** DELETE on a list path (`kubectl delete pods -l app=web` may send this). Returns the deleted items. */
export function deleteCollection(
  store: Store,
  route: ResourceRoute,
  labelSelector: string | undefined,
  request: DeleteRequest,
): WriteResult {
  const items = store
    .list(route.type.kind, route.namespace, labelSelector)
    .map((obj) => deleteOne(store, obj, request));
  return {
    code: 200,
    body: {
      kind: `${route.type.kind}List`,
      apiVersion: apiVersionOf(route.type),
      metadata: { resourceVersion: String(store.currentResourceVersion()) },
      items,
    },
  };
}

function deleteOne(store: Store, obj: KubeObject, request: DeleteRequest): KubeObject {
  const namespace = obj.metadata.namespace ?? '';
  const grace = request.gracePeriodSeconds ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
  // pkg/registry/core/pod/strategy.go CheckGracefulDelete: a finished pod has nothing to stop, so it goes at once.
  const finished = obj.status?.phase === 'Succeeded' || obj.status?.phase === 'Failed';
  if (obj.kind === 'Pod' && obj.spec?.nodeName && grace > 0 && !finished)
    return startGracefulDeletion(store, obj, grace, request);
  return store.delete(obj.kind, namespace, obj.metadata.name, request) ?? obj;
}

function startGracefulDeletion(store: Store, pod: KubeObject, grace: number, request: DeleteRequest): KubeObject {
  if (pod.metadata.deletionTimestamp) return pod;
  const terminating = structuredClone(pod);
  terminating.metadata.deletionTimestamp = new Date(request.now.getTime() + grace * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  terminating.metadata.deletionGracePeriodSeconds = grace;
  delete terminating.metadata.resourceVersion;
  return store.update(terminating, { dryRun: request.dryRun });
}
