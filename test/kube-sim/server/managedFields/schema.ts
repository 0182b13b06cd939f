// The little of the OpenAPI schema that field ownership needs, for the kinds served: how each
// list is merged (x-kubernetes-list-type map with its keys, set, or atomic), which maps are
// atomic (x-kubernetes-map-type: atomic) and which structs Go always serializes. The real server
// reads these from the OpenAPI models (structured-merge-diff schema/elements.go); this table
// covers the fields kguard's manifests use. Unlisted lists are atomic, unlisted maps granular.

/** listMapKeys per list field (k8s.io/api types' +listMapKey markers). */
const LIST_MAP_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
  conditions: ['type'],
  ownerReferences: ['uid'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
  resourceClaims: ['name'],
  schedulingGates: ['name'],
  // admissionregistration/v1 webhook configurations (+listMapKey=name).
  webhooks: ['name'],
};

/** Key fields with an OpenAPI default, used when the element leaves them out (ports' protocol). */
const KEY_DEFAULTS: Record<string, string> = { protocol: 'TCP' };

/** +listType=set */
const SET_LISTS = new Set(['finalizers']);

/** +mapType=atomic (LabelSelector, Service selector, nodeSelector). */
const ATOMIC_MAPS = new Set(['selector', 'nodeSelector', 'labelSelector', 'namespaceSelector']);

/**
 * Non-pointer Go structs and lists without omitempty (PodSpec.containers): a typed object always
 * has them (as `{}` or null), so they are never added or removed themselves while their parent
 * exists. Paths use `*` for a list element.
 */
const ALWAYS_PRESENT = new Set([
  'metadata',
  'spec',
  'status',
  'spec.strategy',
  'spec.updateStrategy',
  'spec.template',
  'spec.template.metadata',
  'spec.template.spec',
  'spec.template.spec.containers',
  'spec.containers',
  'spec.jobTemplate',
  'spec.jobTemplate.spec',
  'spec.template.spec.containers.*.resources',
  'spec.template.spec.initContainers.*.resources',
  'spec.containers.*.resources',
  'spec.initContainers.*.resources',
]);

export type ListShape = { kind: 'map'; keys: string[] } | { kind: 'set' } | { kind: 'atomic' };

/** `schemaPath`: field names from the root, `*` for list elements, ending with the list field. */
export function listShape(schemaPath: readonly string[], objectKind: string): ListShape {
  const field = schemaPath[schemaPath.length - 1]!;
  if (SET_LISTS.has(field)) return { kind: 'set' };
  if (field === 'ports') {
    const parent = schemaPath[schemaPath.length - 3];
    if (parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers')
      return { kind: 'map', keys: ['containerPort', 'protocol'] };
    if (objectKind === 'Service' && schemaPath.join('.') === 'spec.ports')
      return { kind: 'map', keys: ['port', 'protocol'] };
    return { kind: 'atomic' };
  }
  const keys = LIST_MAP_KEYS[field];
  return keys ? { kind: 'map', keys } : { kind: 'atomic' };
}

export function isAtomicMap(schemaPath: readonly string[]): boolean {
  return ATOMIC_MAPS.has(schemaPath[schemaPath.length - 1]!);
}

export function isAlwaysPresent(schemaPath: readonly string[]): boolean {
  return ALWAYS_PRESENT.has(schemaPath.join('.'));
}

export function keyDefault(field: string): string | undefined {
  return KEY_DEFAULTS[field];
}
