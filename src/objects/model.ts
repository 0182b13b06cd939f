// Any Kubernetes object, as kubectl prints it with -o json, and the identity kguard keys it by.
// The set of objects an apply holds always comes from kubectl itself (see manifests/understand.ts).
import type { ObjectMeta } from '../kube.js';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { managedFields?: unknown[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** A field, as keys and list indexes from the object's root. */
export type FieldPath = ReadonlyArray<string | number>;

/** Who an object is: group/version/kind, namespace ('' for cluster-scoped objects) and name. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
}

/** The key of a kind across versions ("apps/Deployment", "/ConfigMap"): how discovery and the kind table are keyed. */
export function kindKey(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): string {
  return `${groupOf(ref.apiVersion)}/${ref.kind}`;
}

/**
 * The key of an object across versions: the API server stores one object per group, kind,
 * namespace and name, whichever version the manifest names.
 */
export function objectKey(ref: Pick<ObjectRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  return `${kindKey(ref)}/${ref.namespace}/${ref.name}`;
}

/**
 * The fully qualified type argument kubectl takes for `get`: KIND.VERSION.GROUP (kubectl's
 * schema.ParseResourceArg reads three dot-separated parts; the core group is the empty third part).
 */
export function typeArg(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): string {
  return `${ref.kind}.${versionOf(ref.apiVersion)}.${groupOf(ref.apiVersion)}`;
}

/** "deployment/web (namespace shop)", "namespace/shop", "certificate.cert-manager.io/tls (namespace shop)". */
export function describeObject(ref: Pick<ObjectRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  const group = groupOf(ref.apiVersion ?? '');
  const type =
    group === '' || BUILT_IN_GROUPS.has(group) ? ref.kind.toLowerCase() : `${ref.kind.toLowerCase()}.${group}`;
  return `${type}/${ref.name}${ref.namespace ? ` (namespace ${ref.namespace})` : ''}`;
}

/** Groups whose kinds kubectl users name without the group (deployment, job, ingress). */
const BUILT_IN_GROUPS = new Set([
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'coordination.k8s.io',
  'scheduling.k8s.io',
  'apiextensions.k8s.io',
  'admissionregistration.k8s.io',
  'discovery.k8s.io',
  'node.k8s.io',
]);

/** kubectl's own name for an object in commands: `deployment.apps/web`, `configmap/cfg`. */
export function kubectlName(ref: Pick<ObjectRef, 'apiVersion' | 'kind' | 'name'>): string {
  const group = groupOf(ref.apiVersion);
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/** Namespace flags for a command about this object (none for cluster-scoped objects). */
export function namespaceArgs(ref: Pick<ObjectRef, 'namespace'>): string[] {
  return ref.namespace ? ['-n', ref.namespace] : [];
}

export function isControllerOwned(object: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some((owner) => owner.controller === true);
}

/** The value at a dotted path (`status.conditions`), undefined where the path leaves the objects. */
export function valueAt(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The built-in kinds that run pods (or schedule them), by group and kind (kindKey): the one rule
 * the words ("its pods", never for a custom resource or a Service, #45) and the restore's order
 * (workloads after the configuration they read: restore/plan.ts) both read. A custom resource
 * named like one of them (another group) runs no pods of its own.
 */
const POD_KINDS = new Set([
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  '/ReplicationController',
  'batch/Job',
  'batch/CronJob',
  '/Pod',
]);

export function runsPods(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): boolean {
  return POD_KINDS.has(kindKey(ref));
}
