// Unknown-field detection for `fieldValidation=Strict` (kubectl's default) and `Warn`: a typo such
// as `imagee:` makes the real server answer 400 `strict decoding error: unknown field
// "spec.template.spec.containers[0].imagee"`. Field lists are those of k8s.io/api 1.32. Only the
// levels listed here are checked; everything below them (probes, volumes, affinity…) is accepted
// as is, so a valid manifest is never rejected for a field this table does not know.

import type { KubeObject } from '../types.js';

/** A map of known keys; `null` = do not look inside; `list` = the value is a list of such maps. */
interface Shape {
  fields: Record<string, Shape | null>;
  list?: boolean;
}

const shape = (fields: Record<string, Shape | null>): Shape => ({ fields });
const listOf = (fields: Record<string, Shape | null>): Shape => ({ fields, list: true });
const opaque = (...names: string[]): Record<string, null> => Object.fromEntries(names.map((name) => [name, null]));

const OBJECT_META = shape(
  opaque(
    'name',
    'generateName',
    'namespace',
    'selfLink',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'labels',
    'annotations',
    'ownerReferences',
    'finalizers',
    'managedFields',
  ),
);

const CONTAINER_FIELDS = {
  ...opaque(
    'name',
    'image',
    'command',
    'args',
    'workingDir',
    'envFrom',
    'resources',
    'resizePolicy',
    'restartPolicy',
    'volumeMounts',
    'volumeDevices',
    'livenessProbe',
    'readinessProbe',
    'startupProbe',
    'lifecycle',
    'terminationMessagePath',
    'terminationMessagePolicy',
    'imagePullPolicy',
    'securityContext',
    'stdin',
    'stdinOnce',
    'tty',
  ),
  ports: listOf(opaque('name', 'hostPort', 'containerPort', 'protocol', 'hostIP')),
  env: listOf(opaque('name', 'value', 'valueFrom')),
};

const POD_SPEC = shape({
  ...opaque(
    'volumes',
    'ephemeralContainers',
    'restartPolicy',
    'terminationGracePeriodSeconds',
    'activeDeadlineSeconds',
    'dnsPolicy',
    'nodeSelector',
    'serviceAccountName',
    'serviceAccount',
    'automountServiceAccountToken',
    'nodeName',
    'hostNetwork',
    'hostPID',
    'hostIPC',
    'shareProcessNamespace',
    'securityContext',
    'imagePullSecrets',
    'hostname',
    'subdomain',
    'affinity',
    'schedulerName',
    'tolerations',
    'hostAliases',
    'priorityClassName',
    'priority',
    'dnsConfig',
    'readinessGates',
    'runtimeClassName',
    'enableServiceLinks',
    'preemptionPolicy',
    'overhead',
    'topologySpreadConstraints',
    'setHostnameAsFQDN',
    'os',
    'hostUsers',
    'schedulingGates',
    'resourceClaims',
    'resources',
  ),
  containers: listOf(CONTAINER_FIELDS),
  initContainers: listOf(CONTAINER_FIELDS),
});

const POD_TEMPLATE = shape({ metadata: OBJECT_META, spec: POD_SPEC });

const OBJECT_FIELDS = { apiVersion: null, kind: null, metadata: OBJECT_META, status: null };

const SHAPES: Record<string, Shape> = {
  Deployment: shape({
    ...OBJECT_FIELDS,
    spec: shape({
      ...opaque('replicas', 'selector', 'minReadySeconds', 'revisionHistoryLimit', 'paused', 'progressDeadlineSeconds'),
      template: POD_TEMPLATE,
      strategy: shape({ type: null, rollingUpdate: shape(opaque('maxUnavailable', 'maxSurge')) }),
    }),
  }),
  ReplicaSet: shape({
    ...OBJECT_FIELDS,
    spec: shape({ ...opaque('replicas', 'minReadySeconds', 'selector'), template: POD_TEMPLATE }),
  }),
  StatefulSet: shape({
    ...OBJECT_FIELDS,
    spec: shape({
      ...opaque(
        'replicas',
        'selector',
        'volumeClaimTemplates',
        'serviceName',
        'podManagementPolicy',
        'updateStrategy',
        'revisionHistoryLimit',
        'minReadySeconds',
        'persistentVolumeClaimRetentionPolicy',
        'ordinals',
      ),
      template: POD_TEMPLATE,
    }),
  }),
  DaemonSet: shape({
    ...OBJECT_FIELDS,
    spec: shape({
      ...opaque('selector', 'updateStrategy', 'minReadySeconds', 'revisionHistoryLimit'),
      template: POD_TEMPLATE,
    }),
  }),
  Pod: shape({ ...OBJECT_FIELDS, spec: POD_SPEC }),
  Service: shape({
    ...OBJECT_FIELDS,
    spec: shape({
      ...opaque(
        'selector',
        'clusterIP',
        'clusterIPs',
        'type',
        'externalIPs',
        'sessionAffinity',
        'loadBalancerIP',
        'loadBalancerSourceRanges',
        'externalName',
        'externalTrafficPolicy',
        'healthCheckNodePort',
        'publishNotReadyAddresses',
        'sessionAffinityConfig',
        'ipFamilies',
        'ipFamilyPolicy',
        'allocateLoadBalancerNodePorts',
        'loadBalancerClass',
        'internalTrafficPolicy',
        'trafficDistribution',
      ),
      ports: listOf(opaque('name', 'protocol', 'appProtocol', 'port', 'targetPort', 'nodePort')),
    }),
  }),
  ConfigMap: shape({ ...OBJECT_FIELDS, ...opaque('data', 'binaryData', 'immutable') }),
  Secret: shape({ ...OBJECT_FIELDS, ...opaque('data', 'stringData', 'type', 'immutable') }),
  Namespace: shape({ ...OBJECT_FIELDS, spec: null }),
};

/**
 * Paths of fields the real server would not know, e.g. `spec.template.spec.containers[0].imagee`.
 * With `prune`, also deletes them, as decoding into the Go types does when validation is not Strict.
 */
export function unknownFields(obj: KubeObject, prune = false): string[] {
  const objectShape = SHAPES[obj.kind];
  if (!objectShape) return [];
  const found: string[] = [];
  walk(obj, objectShape, '', found, prune);
  return found;
}

/** The message of the real server's 400 answer under fieldValidation=Strict. */
export function strictDecodingMessage(kind: string, version: string, fields: string[]): string {
  return `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${fields.map((field) => `unknown field "${field}"`).join(', ')}`;
}

function walk(value: unknown, expected: Shape, path: string, found: string[], prune: boolean): void {
  if (expected.list) {
    if (!Array.isArray(value)) return;
    for (const [index, item] of value.entries())
      walk(item, { fields: expected.fields }, `${path}[${index}]`, found, prune);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const map = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(map)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!(key in expected.fields)) {
      found.push(childPath);
      if (prune) delete map[key];
    } else if (expected.fields[key]) {
      walk(child, expected.fields[key]!, childPath, found, prune);
    }
  }
}
