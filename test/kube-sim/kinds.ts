// The resource types the simulated API server knows. One table feeds the store (scope,
// generation), REST routing (plural → kind), discovery and OpenAPI, so they cannot disagree.

export interface ResourceType {
  kind: string;
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  /** Subresources served under /{plural}/{name}/{sub}. */
  subresources: string[];
  /** Kinds whose metadata.generation the API server bumps on spec changes. */
  hasGeneration: boolean;
  /** The `all` category is what `kubectl get all` expands to. */
  categories: string[];
  /** Served because a CustomResourceDefinition says so (server/crds.ts). */
  custom?: boolean;
  /** The verbs discovery lists when they are not the usual eight (a review is only created). */
  verbs?: string[];
}

const ALL = ['all'];

const types: ResourceType[] = [
  core('Pod', 'pods', 'pod', true, ['po'], ['log', 'status'], ALL),
  core('Service', 'services', 'service', true, ['svc'], ['status'], ALL),
  core('ConfigMap', 'configmaps', 'configmap', true, ['cm'], [], []),
  core('Secret', 'secrets', 'secret', true, [], [], []),
  core('Event', 'events', 'event', true, ['ev'], [], []),
  core('Namespace', 'namespaces', 'namespace', false, ['ns'], ['status'], []),
  core('Node', 'nodes', 'node', false, ['no'], ['status'], []),
  core('ResourceQuota', 'resourcequotas', 'resourcequota', true, ['quota'], ['status'], []),
  // Stored and served so manifests that include them apply, but nothing acts on them.
  core('ServiceAccount', 'serviceaccounts', 'serviceaccount', true, ['sa'], [], []),
  core('PersistentVolumeClaim', 'persistentvolumeclaims', 'persistentvolumeclaim', true, ['pvc'], ['status'], []),
  core('PersistentVolume', 'persistentvolumes', 'persistentvolume', false, ['pv'], ['status'], []),
  core('Endpoints', 'endpoints', 'endpoints', true, ['ep'], [], []),
  // kubectl apply --prune lists every kind of its default allowlist, ReplicationController
  // included (kubectl apply/prune.go), and fails when the server does not serve one.
  {
    ...core(
      'ReplicationController',
      'replicationcontrollers',
      'replicationcontroller',
      true,
      ['rc'],
      ['status', 'scale'],
      ALL,
    ),
    hasGeneration: true,
  },
  core('LimitRange', 'limitranges', 'limitrange', true, ['limits'], [], []),
  apps('Deployment', 'deployments', 'deployment', ['deploy'], ['status', 'scale']),
  apps('ReplicaSet', 'replicasets', 'replicaset', ['rs'], ['status', 'scale']),
  apps('StatefulSet', 'statefulsets', 'statefulset', ['sts'], ['status', 'scale']),
  apps('DaemonSet', 'daemonsets', 'daemonset', ['ds'], ['status']),
  // Written by the statefulset and daemonset controllers (pkg/controller/history): no spec, no status.
  {
    ...apps('ControllerRevision', 'controllerrevisions', 'controllerrevision', [], []),
    hasGeneration: false,
    categories: [],
  },
  other('batch', 'v1', 'Job', 'jobs', 'job', [], ALL),
  other('batch', 'v1', 'CronJob', 'cronjobs', 'cronjob', ['cj'], ALL),
  other(
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
    'horizontalpodautoscalers',
    'horizontalpodautoscaler',
    ['hpa'],
    ALL,
  ),
  // Leases: kguard holds one per object while a run may change it (leader election's API).
  other('coordination.k8s.io', 'v1', 'Lease', 'leases', 'lease', [], []),
  other('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', 'poddisruptionbudget', ['pdb'], []),
  other('networking.k8s.io', 'v1', 'Ingress', 'ingresses', 'ingress', ['ing'], []),
  // The classes Ingresses name (spec.ingressClassName); the DefaultIngressClass admission plugin
  // reads them (server/default-ingress-class.ts), the ingress controller serves its own (controllers/load-balancers.ts).
  clusterScoped(other('networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', 'ingressclass', [], []), []),
  other('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', 'networkpolicy', ['netpol'], []),
  other('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', 'role', [], []),
  other('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', 'rolebinding', [], []),
  {
    ...other('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', 'clusterrole', [], []),
    namespaced: false,
    subresources: [],
  },
  {
    ...other(
      'rbac.authorization.k8s.io',
      'v1',
      'ClusterRoleBinding',
      'clusterrolebindings',
      'clusterrolebinding',
      [],
      [],
    ),
    namespaced: false,
    subresources: [],
  },
  // Written by the crowd of a real cluster (scenario-crowd.ts): cainjector fills the caBundle of
  // webhook configurations and APIServices; the PV binder provisions for a StorageClass.
  clusterScoped(
    other(
      'admissionregistration.k8s.io',
      'v1',
      'ValidatingWebhookConfiguration',
      'validatingwebhookconfigurations',
      'validatingwebhookconfiguration',
      [],
      ['api-extensions'],
    ),
    [],
  ),
  clusterScoped(
    other(
      'admissionregistration.k8s.io',
      'v1',
      'MutatingWebhookConfiguration',
      'mutatingwebhookconfigurations',
      'mutatingwebhookconfiguration',
      [],
      ['api-extensions'],
    ),
    [],
  ),
  clusterScoped(
    other('apiregistration.k8s.io', 'v1', 'APIService', 'apiservices', 'apiservice', [], ['api-extensions']),
    ['status'],
  ),
  clusterScoped(other('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', 'storageclass', ['sc'], []), []),
  // A question, not an object: POST answers whether the caller may do something and stores
  // nothing (pkg/registry/authorization/selfsubjectaccessreview/rest.go; server/access.ts).
  {
    ...clusterScoped(
      other(
        'authorization.k8s.io',
        'v1',
        'SelfSubjectAccessReview',
        'selfsubjectaccessreviews',
        'selfsubjectaccessreview',
        [],
        [],
      ),
      [],
    ),
    verbs: ['create'],
  },
  {
    ...other(
      'apiextensions.k8s.io',
      'v1',
      'CustomResourceDefinition',
      'customresourcedefinitions',
      'customresourcedefinition',
      ['crd', 'crds'],
      [],
    ),
    namespaced: false,
  },
];

/** Every type served now: the built-in ones, then those custom resource definitions added. */
export const RESOURCE_TYPES: readonly ResourceType[] = types;

function core(
  kind: string,
  plural: string,
  singular: string,
  namespaced: boolean,
  shortNames: string[],
  subresources: string[],
  categories: string[],
): ResourceType {
  return {
    kind,
    group: '',
    version: 'v1',
    plural,
    singular,
    namespaced,
    shortNames,
    subresources,
    hasGeneration: false,
    categories,
  };
}

function apps(
  kind: string,
  plural: string,
  singular: string,
  shortNames: string[],
  subresources: string[],
): ResourceType {
  return {
    kind,
    group: 'apps',
    version: 'v1',
    plural,
    singular,
    namespaced: true,
    shortNames,
    subresources,
    hasGeneration: true,
    categories: ALL,
  };
}

/** A namespaced type of another group: a /status subresource and generation, except for RBAC (neither) and NetworkPolicy (no status). */
function other(
  group: string,
  version: string,
  kind: string,
  plural: string,
  singular: string,
  shortNames: string[],
  categories: string[],
): ResourceType {
  const subresources = group === 'rbac.authorization.k8s.io' || kind === 'NetworkPolicy' ? [] : ['status'];
  return {
    kind,
    group,
    version,
    plural,
    singular,
    namespaced: true,
    shortNames,
    subresources,
    hasGeneration: group !== 'rbac.authorization.k8s.io',
    categories,
  };
}

/** A cluster-scoped type without spec generation (webhook configurations, APIServices, StorageClasses). */
function clusterScoped(type: ResourceType, subresources: string[]): ResourceType {
  return { ...type, namespaced: false, subresources, hasGeneration: false };
}

const byKind = new Map(types.map((type) => [type.kind, type]));

/**
 * Serves a custom resource type (or replaces the one of the same group and kind). Types are
 * process-wide, like this table: every simulated cluster in the process sees them until
 * unregistered (server/crds.ts does when the CRD goes or its cluster stops).
 */
export function registerResourceType(type: ResourceType): void {
  unregisterResourceType(type.group, type.kind);
  types.push(type);
  byKind.set(type.kind, type);
}

export function unregisterResourceType(group: string, kind: string): void {
  const index = types.findIndex((type) => type.custom && type.group === group && type.kind === kind);
  if (index === -1) return;
  types.splice(index, 1);
  byKind.delete(kind);
}

export function resourceTypeForKind(kind: string): ResourceType | undefined {
  return byKind.get(kind);
}

export function resourceTypeForPlural(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((type) => type.group === group && type.version === version && type.plural === plural);
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** `deployments.apps` / `pods`: how the API names a resource in error messages. */
export function qualifiedResource(type: Pick<ResourceType, 'plural' | 'group'>): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}
