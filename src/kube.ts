// Kubernetes objects, typed by the fields kguard reads. Shapes follow the real API (apps/v1, v1).

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  /** The generation the condition was written for (metav1.Condition: cert-manager, Gateway API, most operators). */
  observedGeneration?: number;
}

export interface ContainerSpec {
  name: string;
  image?: string;
  /** `Always` on an init container makes it a sidecar (restartable init container). */
  restartPolicy?: string;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { containers?: ContainerSpec[]; initContainers?: ContainerSpec[] };
}

export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    replicas?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
    minReadySeconds?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: PodTemplate;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { replicas?: number; template?: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

export interface RollingStrategy {
  type?: string;
  rollingUpdate?: { partition?: number; maxUnavailable?: number | string; maxSurge?: number | string } | null;
}

/** apps/v1 StatefulSet, by the fields kguard reads (status as the statefulset controller writes it). */
export interface StatefulSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { replicas?: number; updateStrategy?: RollingStrategy; podManagementPolicy?: string; template?: PodTemplate };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

/** apps/v1 DaemonSet (status as the daemonset controller writes it). */
export interface DaemonSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { updateStrategy?: RollingStrategy; template?: PodTemplate };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    numberMisscheduled?: number;
  };
}

/** batch/v1 Job (status as the job controller writes it). */
export interface Job {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    completions?: number | null;
    parallelism?: number;
    backoffLimit?: number;
    suspend?: boolean;
    /** The TTL-after-finished controller deletes the Job this long after it finished. */
    ttlSecondsAfterFinished?: number;
    /** Set: the selector and template labels are the user's, not generated from the uid. */
    manualSelector?: boolean;
    selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
    template?: PodTemplate & { spec?: { restartPolicy?: string } };
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number;
    startTime?: string;
    completionTime?: string;
    conditions?: Condition[];
  };
}

/** Any object by the status conventions kstatus reads: observedGeneration and conditions. */
export interface StatusConventions {
  metadata: ObjectMeta;
  status?: { observedGeneration?: number; conditions?: Condition[]; phase?: string };
}

/** The label a StatefulSet or DaemonSet pod carries for its ControllerRevision (apps.ControllerRevisionHashLabelKey). */
export const REVISION_HASH_LABEL = 'controller-revision-hash';

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

export interface ContainerStateTerminated {
  exitCode?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
}

export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: { startedAt?: string };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  image?: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { nodeName?: string; restartPolicy?: string; containers?: ContainerSpec[]; initContainers?: ContainerSpec[] };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface KubeEvent {
  metadata: ObjectMeta;
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  /** events.k8s.io repeats (the scheduler's events), read through core/v1. */
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string; host?: string };
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  items: T[];
}

/** The revision the deployment controller records on a Deployment and its ReplicaSets. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

export function revisionOf(object: { metadata: ObjectMeta }): number | undefined {
  const raw = object.metadata.annotations?.[REVISION_ANNOTATION];
  if (raw === undefined) return undefined;
  const revision = Number.parseInt(raw, 10);
  return Number.isFinite(revision) ? revision : undefined;
}

export function conditionOf(object: { status?: { conditions?: Condition[] } }, type: string): Condition | undefined {
  return object.status?.conditions?.find((condition) => condition.type === type);
}

export function isControlledBy(object: { metadata: ObjectMeta }, ownerUid: string | undefined): boolean {
  if (!ownerUid) return false;
  return (object.metadata.ownerReferences ?? []).some((owner) => owner.controller === true && owner.uid === ownerUid);
}
