// GET on resources: one object, or a list filtered by namespace, labelSelector and fieldSelector.

import { notFound } from '../errors.js';
import { apiVersionOf } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { matchesFields, parseFieldSelector } from './fieldSelector.js';
import type { ResourceRoute } from './routing.js';

export function getObject(store: Store, route: ResourceRoute & { name: string }): KubeObject {
  const obj = store.get(route.type.kind, route.namespace ?? '', route.name);
  // A namespaced object addressed without a namespace (/api/v1/pods/x) does not exist either.
  if (!obj || (route.type.namespaced && route.namespace === undefined)) throw notFound(route.type, route.name);
  return obj;
}

export interface ObjectList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

export function listObjects(store: Store, route: ResourceRoute, query: URLSearchParams): ObjectList {
  const fieldRequirements = parseFieldSelector(query.get('fieldSelector'));
  const items = store
    .list(route.type.kind, route.namespace, query.get('labelSelector') ?? undefined)
    .filter((obj) => matchesFields(fieldRequirements, obj));
  return {
    kind: `${route.type.kind}List`,
    apiVersion: apiVersionOf(route.type),
    metadata: { resourceVersion: String(store.currentResourceVersion()) },
    items,
  };
}
