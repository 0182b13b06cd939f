// What each Kubernetes reason means for a rollout. A table, so new reasons slot in as rows.
// Every reason string names where it comes from; the exact texts and their sources are listed in
// test/fixtures/README.md.

const PULL_STEP =
  'check that image IMAGE exists (name and tag) and that the pods may pull it (imagePullSecrets for a private registry)';
import type { FatalPolicy, ReasonRule } from '../model/findings.js';

/** Image-pull policies by what the pull error says (pull-errors.ts judgePullError). */
export const PULL_CAUSE_RULES = {
  // The registry says the image, the tag or the right to pull it does not exist: no retry helps,
  // so the first ErrImagePull decides, without waiting out the back-off.
  final: { policy: { when: 'now' }, nextStep: PULL_STEP },
  // Rate limit, DNS, network, registry 5xx: the pull may succeed later. Explains a timeout.
  transient: {
    policy: { when: 'never' },
    nextStep:
      'the registry could not serve IMAGE for now (rate limit, DNS or network trouble); it may recover by itself: retry later, authenticate pulls (imagePullSecrets) or use a registry mirror',
  },
  // The tag resolves but a layer blob is missing (pull-errors.ts CONTENT_NOT_FOUND): right after a
  // push a geo-replicated registry or a mirror may still be copying it. The kubelet retries
  // after 10, 20 and 40 s: a minute covers three pulls; after that the image is broken.
  lag: {
    policy: { when: 'after', seconds: 60 },
    nextStep:
      "IMAGE's tag exists but a layer it names could not be fetched (not found): a registry or mirror still replicating a fresh push catches up within a minute or so; if it does not, push IMAGE again and check the registry",
  },
  // A text kguard cannot judge, or none at all: one back-off cycle (10 s) and a retry first.
  unknown: { policy: { when: 'after', seconds: 20 }, nextStep: PULL_STEP },
} as const satisfies Record<string, { policy: FatalPolicy; nextStep: string }>;

const CRASH_STEP =
  'CONTAINER exits soon after it starts; its last lines, read before any restore, say why. Fix the app or its configuration';
const START_STEP =
  "the runtime cannot start CONTAINER: check its command and args against the image (the runtime's error is in this diagnosis)";

/** A failed pull and its back-off are one rule: what the pull error says decides (pull-errors.ts). */
const PULL_FAILED: ReasonRule = {
  category: 'image-pull',
  family: 'image-pull',
  policy: PULL_CAUSE_RULES.unknown.policy,
  judgedByPullError: true,
  cannot: 'pull image IMAGE',
  nextStep: PULL_STEP,
};

/** Container waiting reasons, as the kubelet sets them in containerStatuses[].state.waiting.reason. */
export const WAITING_REASONS: Readonly<Record<string, ReasonRule>> = {
  // kubelet image manager (images/types.go ErrImagePull): a pull failed.
  ErrImagePull: PULL_FAILED,
  // kubelet image manager: in the back-off after a failed pull. Its message names the last error
  // from 1.32 on (`Back-off pulling image "x": ErrImagePull: …`), only the image before.
  ImagePullBackOff: PULL_FAILED,
  // kubelet image manager evalCRIPullErr (CRI-O): `image pull failed for x because the registry is unavailable…`.
  RegistryUnavailable: {
    category: 'image-pull',
    family: 'image-pull',
    policy: PULL_CAUSE_RULES.transient.policy,
    cannot: 'pull image IMAGE',
    nextStep: PULL_CAUSE_RULES.transient.nextStep,
  },
  // kubelet image manager evalCRIPullErr (CRI-O): `image pull failed for x because the signature validation failed…`.
  SignatureValidationFailed: {
    category: 'image-pull',
    family: 'image-pull',
    policy: { when: 'now' },
    cannot: 'pull image IMAGE (signature validation failed)',
    nextStep: 'sign IMAGE as the node policy requires, or use a signed image',
  },
  // kubelet image manager: `Failed to apply default image tag "x": couldn't parse image name …`. No retry can fix it.
  InvalidImageName: {
    category: 'image-pull',
    family: 'image-pull',
    policy: { when: 'now' },
    cannot: 'use image name IMAGE',
    nextStep: 'fix the image reference in the pod template (lowercase, registry/name:tag)',
  },
  // kubelet image manager: `Container image "x" is not present with pull policy of Never`.
  ErrImageNeverPull: {
    category: 'image-pull',
    family: 'image-pull',
    policy: { when: 'now' },
    cannot: 'find image IMAGE on the node (imagePullPolicy: Never)',
    nextStep: 'set imagePullPolicy to IfNotPresent or preload the image on every node',
  },
  // kubelet image manager imagePullPrecheck: `Failed to inspect image "x": …` (the node's image store).
  ImageInspectError: {
    category: 'image-pull',
    family: 'image-pull',
    policy: { when: 'after', seconds: 30 },
    cannot: 'inspect image IMAGE on the node',
    nextStep: "the node's container runtime cannot read the image: check the runtime on the nodes the pods landed on",
  },
  // kubelet (kuberuntime_manager.go doBackOff): restart back-off after the container exited.
  // One crash can be a slow dependency (a container that crashes once and then runs stays green);
  // two restarts or a minute of it is a crash loop. A real kubelet restarts at once after the first
  // exit, then after 10 s, 20 s, 40 s: the second restart comes ~10 s after the first crash, the
  // third ~30 s (3 restarts took 39 s to judge on a v1.37.2 kubelet, test/control-plane/README.md).
  // kubedog allows one failure per replica by default (werf's HelmResource.FailuresAllowed:
  // failuresAllowedPerReplica := 1); kguard.dev/failures-allowed raises it.
  CrashLoopBackOff: {
    category: 'crash-loop',
    family: 'crash',
    policy: { when: 'after', seconds: 60, restarts: 2 },
    cannot: 'stay running (crash loop)',
    nextStep: CRASH_STEP,
  },
  // kubelet (kuberuntime_container.go startContainer, ErrRunContainer): the runtime could not
  // start the process, e.g. the command is not in the image.
  RunContainerError: {
    category: 'start',
    family: 'start',
    policy: { when: 'after', seconds: 15, restarts: 2 },
    cannot: 'start container CONTAINER',
    nextStep: START_STEP,
  },
  // kubelet (ErrPostStartHook): the postStart hook failed and the container was killed. The
  // event says only "PostStartHook failed"; the waiting message has the hook's output.
  PostStartHookError: {
    category: 'start',
    family: 'start',
    policy: { when: 'after', seconds: 30, restarts: 3 },
    cannot: 'run the postStart hook of CONTAINER',
    nextStep: 'fix the lifecycle.postStart hook of CONTAINER (its error is in this diagnosis) or remove it',
  },
  // kubelet (ErrPreStartHook / ErrPreCreateHook): `Internal PreStartContainer hook failed: …`,
  // the kubelet's own resource managers (CPU, memory, devices) refused the container.
  PreStartHookError: {
    category: 'start',
    family: 'start',
    policy: { when: 'after', seconds: 30 },
    cannot: 'start CONTAINER (the kubelet refused it)',
    nextStep:
      'the node could not allocate what CONTAINER asks for (CPUs, devices): check its resources against the nodes',
  },
  PreCreateHookError: {
    category: 'start',
    family: 'start',
    policy: { when: 'after', seconds: 30 },
    cannot: 'create CONTAINER (the kubelet refused it)',
    nextStep:
      'the node could not allocate what CONTAINER asks for (CPUs, devices): check its resources against the nodes',
  },
  // kubelet (ErrCreateContainerConfig): a ConfigMap/Secret/key the container needs is missing.
  // It may be created by the same deploy a moment later.
  CreateContainerConfigError: {
    category: 'config',
    family: 'config',
    policy: { when: 'after', seconds: 30 },
    cannot: 'be configured',
    nextStep:
      "create the missing ConfigMap or Secret (the kubelet's message names it), or fix the reference in the pod template",
  },
  // kubelet (ErrCreateContainer): the runtime refused to create the container (bad mount, security context).
  CreateContainerError: {
    category: 'config',
    family: 'config',
    policy: { when: 'after', seconds: 30 },
    cannot: 'create container CONTAINER',
    nextStep: 'the runtime refused the container (its error is in this diagnosis): fix the pod template',
  },
};

/** Waiting reasons that are the normal way to start (kubelet_pods.go defaults), never a problem by themselves. */
export const STARTING_REASONS: ReadonlySet<string> = new Set(['ContainerCreating', 'PodInitializing']);

/** A waiting reason not in the table: reported by name; if it persists, the rollout fails. */
export function unknownWaitingRule(reason: string): ReasonRule {
  return {
    category: 'unknown',
    family: 'other',
    policy: { when: 'after', seconds: 60 },
    cannot: `start container CONTAINER (it keeps waiting: ${reason})`,
    nextStep:
      'the kubelet says REASON (its message is in this diagnosis); its events outlive the pod: kubectl get events -n NAMESPACE --field-selector involvedObject.name=POD',
  };
}

/** Pod-level problems: scheduling, readiness, volumes, evictions. */
export const POD_REASONS = {
  // scheduler (FitError): every node lacks room for the pod. Pods leaving or a cluster autoscaler
  // can fix that, so it only explains a timeout.
  Unschedulable: {
    category: 'unschedulable',
    family: 'schedule',
    policy: { when: 'never' },
    cannot: 'be scheduled (not enough room on any node)',
    nextStep: 'free capacity, add nodes or lower the pod requests (the scheduler says which resource is short)',
  },
  // scheduler: no node satisfies a constraint of the pod (node selector/affinity, taints); it
  // says so itself ("Preemption is not helpful for scheduling"). Nothing the rollout waits for
  // changes that; half a minute covers a node being labelled by the same deploy.
  UnschedulableConstraint: {
    category: 'unschedulable',
    family: 'schedule',
    policy: { when: 'after', seconds: 30 },
    cannot: 'be scheduled (no node satisfies its constraints)',
    nextStep:
      'no node matches the pod: compare its nodeSelector/affinity and tolerations with the nodes (kubectl get nodes --show-labels) and fix the pod template',
  },
  // scheduler: no node matches yet, but cluster-autoscaler (TriggeredScaleUp) or Karpenter
  // (Nominated) said it is bringing one: pods wait for a new node for 1 to 3 minutes.
  UnschedulableScalingUp: {
    category: 'unschedulable',
    family: 'schedule',
    policy: { when: 'never' },
    cannot: 'be scheduled yet (a node autoscaler is adding a node for them)',
    nextStep:
      'the node autoscaler did not bring a matching node in time: check its status (cluster-autoscaler status ConfigMap, or the Karpenter NodeClaims)',
  },
  // kubelet status/generate.go: running but a readiness probe fails (Ready False, ContainersNotReady).
  ContainersNotReady: {
    category: 'not-ready',
    family: 'readiness',
    policy: { when: 'never' },
    cannot: 'become ready',
    nextStep: 'the readiness probe of CONTAINER keeps failing: check the probe (path, port) and the app',
  },
  // kubelet status/generate.go: containers are ready but a readiness gate's condition is missing
  // or not True; another controller (a load balancer's) sets it.
  ReadinessGatesNotReady: {
    category: 'not-ready',
    family: 'readiness',
    policy: { when: 'never' },
    cannot: 'pass their readiness gates',
    nextStep: 'the controller that sets the readiness gate condition has not set it to True: check that controller',
  },
  // kubelet volume manager (event FailedMount, pod stuck ContainerCreating): e.g.
  // `MountVolume.SetUp failed for volume "config" : configmap "x" not found`. The source may be created soon.
  FailedMount: {
    category: 'volume',
    family: 'volume',
    policy: { when: 'after', seconds: 30 },
    cannot: 'mount their volumes',
    nextStep:
      "create the volume's source (the ConfigMap, Secret or PersistentVolumeClaim the kubelet's message names), or fix the volume in the pod template",
  },
  // attachdetach-controller (event FailedAttachVolume): e.g. `Multi-Attach error for volume "pvc-…"
  // Volume is already used by pod(s) web-old-…` — a ReadWriteOnce volume still held by an old pod.
  FailedAttachVolume: {
    category: 'volume',
    family: 'volume',
    policy: { when: 'after', seconds: 60 },
    cannot: 'attach their volumes',
    nextStep:
      'a ReadWriteOnce volume cannot be attached to the new pods while the old ones hold it: use strategy Recreate (or maxSurge 0) for this Deployment, or a ReadWriteMany volume',
  },
  // kubelet eviction manager (status.reason Evicted): the pod went over its own ephemeral-storage
  // limit (`Container app exceeded its local ephemeral storage limit "1Gi". `). Every replacement
  // will too: two evicted pods of the new revision are enough.
  Evicted: {
    category: 'evicted',
    family: 'eviction',
    policy: { when: 'after', seconds: 120, pods: 2 },
    cannot: 'stay within their ephemeral-storage limit (evicted)',
    nextStep: "raise the container's ephemeral-storage limit, or write less to its filesystem (use a volume)",
  },
  // kubelet eviction manager under node pressure (`The node was low on resource: memory. `): the
  // node's trouble, not the release's.
  EvictedByNodePressure: {
    category: 'evicted',
    family: 'eviction',
    policy: { when: 'never' },
    cannot: 'stay on their nodes (evicted under node pressure)',
    nextStep: 'the nodes ran low on a resource and evicted pods: set requests that match the usage, or add capacity',
  },
} as const satisfies Record<string, ReasonRule>;

/** Deployment conditions, as the deployment controller sets them. */
export const DEPLOYMENT_CONDITION_REASONS: Readonly<Record<string, ReasonRule>> = {
  // deployment controller (progress.go): Progressing False after progressDeadlineSeconds without progress.
  ProgressDeadlineExceeded: {
    category: 'progress-deadline',
    family: 'other',
    policy: { when: 'now' },
    cannot: 'make progress before progressDeadlineSeconds',
    nextStep: 'see why the new pods are not available: kubectl describe deployment NAME -n NAMESPACE',
  },
  // deployment controller (sync.go, FailedRSCreateReason): Progressing False
  // `Failed to create new replica set "x": …` (a quota on ReplicaSets, an admission webhook).
  ReplicaSetCreateError: {
    category: 'replica-failure',
    family: 'other',
    policy: { when: 'after', seconds: 30 },
    cannot: 'create its new ReplicaSet',
    nextStep:
      'fix what refuses the ReplicaSet (its message, in this diagnosis: a quota or an admission rule): kubectl get resourcequota -n NAMESPACE',
  },
  // replicaset controller, copied by the deployment controller: ReplicaFailure True, FailedCreate
  // (pod quota, admission webhook, PodSecurity).
  FailedCreate: {
    category: 'replica-failure',
    family: 'other',
    policy: { when: 'after', seconds: 30 },
    cannot: 'create its pods',
    nextStep:
      'raise the ResourceQuota or fix what the admission rule refuses (its message is in this diagnosis): kubectl describe resourcequota -n NAMESPACE',
  },
  // replicaset controller: ReplicaFailure True, FailedDelete.
  FailedDelete: {
    category: 'replica-failure',
    family: 'other',
    policy: { when: 'after', seconds: 30 },
    cannot: 'delete its surplus pods',
    nextStep: 'check what refuses pod deletion in namespace NAMESPACE (a webhook, RBAC of the controller)',
  },
};

/**
 * The rule of a workload's failing condition, by its reason and what its message says. A
 * FailedCreate that the PodSecurity admission refused is final: the pod template itself violates the
 * namespace's policy, and no later try passes (k8s.io/pod-security-admission admission/admission.go:
 * `forbiddenResponse(attrs, fmt.Errorf("violates PodSecurity %q: %s", nsPolicy.Enforce.String(),
 * result.ForbiddenDetail()))`, copied into the ReplicaSet's ReplicaFailure condition as
 * `pods "web-…" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false …`).
 * A quota refusal can clear (a pod ends): it keeps its 30 s grace and its quota step.
 */
export function conditionRuleFor(reason: string, message: string | undefined): ReasonRule | undefined {
  const rule = DEPLOYMENT_CONDITION_REASONS[reason];
  const policy = /violates PodSecurity "([^"]+)"/.exec(message ?? '')?.[1];
  if (!rule || !policy || (reason !== 'FailedCreate' && reason !== 'ReplicaSetCreateError')) return rule;
  return {
    ...rule,
    policy: { when: 'now' },
    cannot: `create its pods: the namespace's PodSecurity policy "${policy}" refuses their template`,
    nextStep: `make the pod template meet the "${policy}" Pod Security Standard (each violation is named in this diagnosis), or change the namespace's pod-security.kubernetes.io/enforce label: kubectl get namespace NAMESPACE --show-labels`,
  };
}
