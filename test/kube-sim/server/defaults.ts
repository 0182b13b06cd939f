// Defaulting as the real API server does it (pkg/apis/*/v1/defaults.go), applied on every
// create, update and patch through the HTTP API. kubectl's apply diff and `rollout undo` compare
// against the stored shape, so these must match the real server's and be idempotent.
// Objects written straight to the store (by the controllers) are not defaulted.

import type { KubeObject } from '../types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function applyDefaults(obj: KubeObject): void {
  switch (obj.kind) {
    case 'Deployment':
      defaultDeployment(obj);
      break;
    case 'ReplicaSet':
      obj.spec ??= {};
      obj.spec.replicas ??= 1;
      defaultPodTemplate(obj.spec);
      break;
    case 'StatefulSet':
      defaultStatefulSet(obj);
      break;
    case 'DaemonSet':
      defaultDaemonSet(obj);
      break;
    case 'Job':
      defaultJob(obj);
      break;
    case 'CronJob':
      defaultCronJob(obj);
      break;
    case 'Pod':
      defaultPod(obj);
      break;
    case 'Service':
      defaultService(obj);
      break;
    case 'Namespace':
      obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
      obj.spec ??= {};
      obj.spec.finalizers ??= ['kubernetes'];
      obj.status ??= {};
      obj.status.phase ??= 'Active';
      break;
    case 'Secret':
      obj['type'] ??= 'Opaque';
      break;
    // core/v1 SetDefaults_PersistentVolumeClaim / SetDefaults_PersistentVolume, storage/v1 SetDefaults_StorageClass.
    case 'PersistentVolumeClaim':
      obj.spec ??= {};
      obj.spec.volumeMode ??= 'Filesystem';
      obj.status ??= {};
      obj.status.phase ??= 'Pending';
      break;
    case 'PersistentVolume':
      obj.spec ??= {};
      obj.spec.persistentVolumeReclaimPolicy ??= 'Retain';
      obj.spec.volumeMode ??= 'Filesystem';
      obj.status ??= {};
      obj.status.phase ??= 'Pending';
      break;
    case 'StorageClass':
      obj['reclaimPolicy'] ??= 'Delete';
      obj['volumeBindingMode'] ??= 'Immediate';
      break;
  }
}

function defaultDeployment(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplate(spec);
}

function defaultStatefulSet(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= 'OrderedReady';
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.partition ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: 'Retain', whenScaled: 'Retain' };
  defaultPodTemplate(spec);
}

function defaultDaemonSet(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate(spec);
}

/** batch/v1 SetDefaults_Job (podReplacementPolicy: the JobPodReplacementPolicy gate is on in 1.32). */
function defaultJob(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(obj.metadata.labels ?? {}).length === 0)
    obj.metadata.labels = { ...templateLabels };
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  defaultPodTemplate(spec);
}

/** batch/v1 SetDefaults_CronJob; the job template's pod spec is defaulted like any other. */
function defaultCronJob(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  spec.jobTemplate ??= {};
  spec.jobTemplate.spec ??= {};
  defaultPodTemplate(spec.jobTemplate.spec);
}

function defaultPodTemplate(spec: Json): void {
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

function defaultPod(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  defaultPodSpec(spec);
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  obj.status ??= {};
  obj.status.phase ??= 'Pending';
  obj.status.qosClass ??= qosClassOf(spec);
}

function defaultPodSpec(spec: Json): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as Json[])
    defaultContainer(container);
}

function defaultContainer(container: Json): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.imagePullPolicy ??= imagePullPolicyFor(container.image);
  container.resources ??= {};
  for (const port of (container.ports ?? []) as Json[]) port.protocol ??= 'TCP';
}

/** Always for `:latest` or untagged images (and not pinned by digest), otherwise IfNotPresent. */
export function imagePullPolicyFor(image: unknown): string {
  if (typeof image !== 'string' || image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : undefined;
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function qosClassOf(spec: Json): string {
  const containers = (spec.containers ?? []) as Json[];
  const hasAny = containers.some(
    (container) =>
      Object.keys(container.resources?.requests ?? {}).length + Object.keys(container.resources?.limits ?? {}).length >
      0,
  );
  if (!hasAny) return 'BestEffort';
  const guaranteed = containers.every((container) => {
    const limits = container.resources?.limits ?? {};
    const requests = container.resources?.requests ?? {};
    return ['cpu', 'memory'].every(
      (resource) => limits[resource] !== undefined && (requests[resource] ?? limits[resource]) === limits[resource],
    );
  });
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function defaultService(obj: KubeObject): void {
  const spec: Json = (obj.spec ??= {});
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  spec.internalTrafficPolicy ??= 'Cluster';
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (spec.type !== 'ExternalName') {
    spec.clusterIP ??= clusterIpFor(`${obj.metadata.namespace}/${obj.metadata.name}`);
    spec.clusterIPs ??= [spec.clusterIP];
  }
  const exposedOnNodes = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  if (exposedOnNodes) spec.externalTrafficPolicy ??= 'Cluster';
  for (const port of (spec.ports ?? []) as Json[]) {
    port.protocol ??= 'TCP';
    port.targetPort ??= port.port;
    if (exposedOnNodes) port.nodePort ??= nodePortFor(`${obj.metadata.namespace}/${obj.metadata.name}/${port.port}`);
  }
  obj.status ??= { loadBalancer: {} };
}

/** A stable address in 10.96.0.0/16 derived from the name, so re-creating gives the same IP. */
function clusterIpFor(key: string): string {
  const hash = stringHash(key);
  return `10.96.${(hash >> 8) & 255}.${hash & 255 || 1}`;
}

/** A stable port in the default NodePort range 30000-32767. */
function nodePortFor(key: string): number {
  return 30000 + (stringHash(key) % 2768);
}

function stringHash(text: string): number {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash;
}
