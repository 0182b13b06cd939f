// REST collection paths for the types the tracker reads, so it can list and watch them with
// `kubectl get --raw`. The tracker names types as kubectl's `get` takes them: `pods`,
// `deployments.apps`... for the built-in kinds it judges, and KIND.VERSION.GROUP (objects/model.ts
// typeArg) for any other kind, whose plural comes from the API server's discovery document.
import type { Pod } from '../kube.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { KubeObject } from '../objects/model.js';

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  /** The plural resource name of the path, when known without discovery. */
  resource?: string;
}

/** The built-in types the kind adapters read (track/adapters.ts), the image check's service accounts (images/pull-secrets.ts), and kguard's own Leases and journal Secrets (journal/). */
const BUILT_IN: Readonly<Record<string, Required<ResourceType>>> = {
  pods: { group: '', version: 'v1', kind: 'Pod', resource: 'pods' },
  services: { group: '', version: 'v1', kind: 'Service', resource: 'services' },
  secrets: { group: '', version: 'v1', kind: 'Secret', resource: 'secrets' },
  serviceaccounts: { group: '', version: 'v1', kind: 'ServiceAccount', resource: 'serviceaccounts' },
  events: { group: '', version: 'v1', kind: 'Event', resource: 'events' },
  persistentvolumeclaims: {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    resource: 'persistentvolumeclaims',
  },
  'deployments.apps': { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
  'replicasets.apps': { group: 'apps', version: 'v1', kind: 'ReplicaSet', resource: 'replicasets' },
  'statefulsets.apps': { group: 'apps', version: 'v1', kind: 'StatefulSet', resource: 'statefulsets' },
  'daemonsets.apps': { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets' },
  'ingresses.networking.k8s.io': { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', resource: 'ingresses' },
  'jobs.batch': { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs' },
  'leases.coordination.k8s.io': { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', resource: 'leases' },
  'customresourcedefinitions.apiextensions.k8s.io': {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    resource: 'customresourcedefinitions',
  },
};

/**
 * Plurals Kubernetes itself fixes for its own kinds (each kind's REST storage in
 * pkg/registry/<group>/<kind>/storage), by KIND.VERSION.GROUP (objects/model.ts typeArg): an object
 * of one of them is read by name with no discovery request first. The built-in types above, and
 * these others; any other kind's plural is looked up in discovery.
 */
const KNOWN_PLURALS: ReadonlyMap<string, string> = new Map([
  ...Object.values(BUILT_IN).map((type): [string, string] => [
    `${type.kind}.${type.version}.${type.group}`,
    type.resource,
  ]),
  ['ConfigMap.v1.', 'configmaps'],
  ['Namespace.v1.', 'namespaces'],
  ['CronJob.v1.batch', 'cronjobs'],
  ['NetworkPolicy.v1.networking.k8s.io', 'networkpolicies'],
  ['HorizontalPodAutoscaler.v2.autoscaling', 'horizontalpodautoscalers'],
  ['PodDisruptionBudget.v1.policy', 'poddisruptionbudgets'],
  ['Role.v1.rbac.authorization.k8s.io', 'roles'],
  ['RoleBinding.v1.rbac.authorization.k8s.io', 'rolebindings'],
  ['ClusterRole.v1.rbac.authorization.k8s.io', 'clusterroles'],
  ['ClusterRoleBinding.v1.rbac.authorization.k8s.io', 'clusterrolebindings'],
]);

/** What a type argument names; undefined when it is neither built in nor KIND.VERSION.GROUP. */
export function resourceTypeOf(type: string): ResourceType | undefined {
  const builtIn = BUILT_IN[type];
  if (builtIn) return builtIn;
  const [kind, version, ...group] = type.split('.');
  if (!kind || !version || !/^[A-Z]/.test(kind)) return undefined;
  const known = KNOWN_PLURALS.get(type);
  return { kind, version, group: group.join('.'), ...(known ? { resource: known } : {}) };
}

/** `/api/v1` or `/apis/GROUP/VERSION`: where a group version's resources and discovery live. */
export function groupVersionPath(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
}

/** The collection of a resource in one namespace ('' for a cluster-scoped one). */
export function collectionPath(
  type: Pick<ResourceType, 'group' | 'version'>,
  resource: string,
  namespace: string,
): string {
  return `${groupVersionPath(type)}${namespace ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${resource}`;
}

/** The plural of `kind` in a discovery document (`GET /apis/GROUP/VERSION`), subresources aside. */
export function resourceNameIn(discovery: unknown, kind: string): string | undefined {
  const resources = (discovery as { resources?: Array<{ name?: string; kind?: string }> } | undefined)?.resources ?? [];
  return resources.find((entry) => entry.kind === kind && typeof entry.name === 'string' && !entry.name.includes('/'))
    ?.name;
}

/** What one look read, as one `kubectl get A,B,C -o json` gives it: every object, and the pods among them. */
export function snapshotOf(objects: Iterable<KubeObject>): WorkloadSnapshot {
  const all = [...objects];
  return {
    objects: all,
    pods: all.filter((object) => object.kind === 'Pod' && object.apiVersion === 'v1') as unknown as Pod[],
  };
}
