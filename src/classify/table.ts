// What each Kubernetes reason means for a rollout. A table, so new reasons slot in as rows.

export type Category =
  | 'image-pull'
  | 'crash-loop'
  | 'config'
  | 'unschedulable'
  | 'not-ready'
  | 'replica-failure'
  | 'progress-deadline'
  /** The object's own controller says it cannot go on (kstatus Stalled, a lost volume, a failed Job). */
  | 'stalled';

/**
 * When a finding makes the rollout fail:
 * - now: the first time it is seen;
 * - after: once it has been seen for `seconds` (or the container restarted `restarts` times), so a
 *   hiccup the kubelet retries away is not a rollback;
 * - never: it is reported (and explains a timeout) but does not fail the rollout by itself.
 */
export type FatalPolicy =
  | { when: 'now' }
  | { when: 'after'; seconds: number; restarts?: number }
  | { when: 'never' };

export interface ReasonRule {
  category: Category;
  policy: FatalPolicy;
  /** Messages that mean the cause is passing (rate limits, network): they get this policy instead. */
  transient?: { message: RegExp; policy: FatalPolicy; nextStep: string };
  /** What the new pods cannot do, for "new pods cannot …". */
  cannot: string;
  /** The next step for a person; NAMESPACE, POD and CONTAINER are filled in. */
  nextStep: string;
}

// Registry answers that a retry can fix: Docker Hub's 429, network trouble, registry 5xx.
// (containerd's texts: "429 Too Many Requests", "toomanyrequests", "i/o timeout", "TLS handshake timeout".)
const TRANSIENT_PULL = /429|toomanyrequests|too many requests|rate limit|i\/o timeout|TLS handshake timeout|connection reset|connection refused|no route to host|50[234] |Service Unavailable|Bad Gateway|context deadline exceeded/i;
const TRANSIENT_PULL_STEP =
  'the registry refused the pull for now (rate limit or network trouble): authenticate pulls (imagePullSecrets), use a registry mirror, or retry later';
const PULL_STEP =
  'check that the image name and tag exist in the registry and that the pods may pull it (imagePullSecrets); the last pull error is in: kubectl describe pod POD -n NAMESPACE';
const LOGS_STEP = 'read why it exits: kubectl logs POD -c CONTAINER --previous -n NAMESPACE';

/** Container waiting reasons, as the kubelet sets them in containerStatuses[].state.waiting.reason. */
export const WAITING_REASONS: Readonly<Record<string, ReasonRule>> = {
  // kubelet image manager: the back-off after a failed pull. A second failure: the image is not coming.
  ImagePullBackOff: {
    category: 'image-pull',
    policy: { when: 'now' },
    transient: { message: TRANSIENT_PULL, policy: { when: 'after', seconds: 60 }, nextStep: TRANSIENT_PULL_STEP },
    cannot: 'pull their image',
    nextStep: PULL_STEP,
  },
  // kubelet image manager: the first failed pull. Wait one back-off cycle (10 s) before judging.
  ErrImagePull: {
    category: 'image-pull',
    policy: { when: 'after', seconds: 15 },
    transient: { message: TRANSIENT_PULL, policy: { when: 'after', seconds: 60 }, nextStep: TRANSIENT_PULL_STEP },
    cannot: 'pull their image',
    nextStep: PULL_STEP,
  },
  // kubelet image manager: the reference cannot be parsed; no retry can fix it.
  InvalidImageName: {
    category: 'image-pull',
    policy: { when: 'now' },
    cannot: 'use their image name',
    nextStep: 'fix the image reference in the pod template (lowercase, registry/name:tag)',
  },
  // kubelet image manager: imagePullPolicy Never and the image is not on the node.
  ErrImageNeverPull: {
    category: 'image-pull',
    policy: { when: 'now' },
    cannot: 'find their image on the node (imagePullPolicy: Never)',
    nextStep: 'set imagePullPolicy to IfNotPresent or preload the image',
  },
  // kubelet: restart back-off after the container exited. One crash can be a slow dependency.
  CrashLoopBackOff: {
    category: 'crash-loop',
    policy: { when: 'after', seconds: 60, restarts: 3 },
    cannot: 'stay running (crash loop)',
    nextStep: LOGS_STEP,
  },
  // kubelet: a ConfigMap/Secret/key the container needs is missing. It may be created soon.
  CreateContainerConfigError: {
    category: 'config',
    policy: { when: 'after', seconds: 30 },
    cannot: 'be configured',
    nextStep: 'create the missing ConfigMap or Secret, or fix the reference in the pod template',
  },
  // kubelet: the runtime refused to create the container (bad mount, bad security context).
  CreateContainerError: {
    category: 'config',
    policy: { when: 'after', seconds: 30 },
    cannot: 'be created',
    nextStep: 'kubectl describe pod POD -n NAMESPACE shows the runtime error; fix the pod template',
  },
  // kubelet: the runtime could not start the process (e.g. the command is not in the image).
  RunContainerError: {
    category: 'crash-loop',
    policy: { when: 'after', seconds: 15 },
    cannot: 'start their container',
    nextStep: 'check the command and args against the image: kubectl describe pod POD -n NAMESPACE',
  },
};

/** Pod-level conditions that explain a stuck rollout. */
export const POD_CONDITION_REASONS: Readonly<Record<string, ReasonRule>> = {
  // scheduler: PodScheduled False. A cluster autoscaler may still add a node, so not fatal alone.
  Unschedulable: {
    category: 'unschedulable',
    policy: { when: 'never' },
    cannot: 'be scheduled',
    nextStep: 'free capacity or lower the pod requests; kubectl describe pod POD -n NAMESPACE shows the scheduler message',
  },
  // kubelet: running but a readiness probe fails (Ready False, ContainersNotReady).
  ContainersNotReady: {
    category: 'not-ready',
    policy: { when: 'never' },
    cannot: 'become ready',
    nextStep: 'check the readiness probe and the app: kubectl describe pod POD -n NAMESPACE shows Unhealthy events',
  },
};

/** Deployment conditions, as the deployment controller sets them. */
export const DEPLOYMENT_CONDITION_REASONS: Readonly<Record<string, ReasonRule>> = {
  // deployment controller (progress.go): Progressing False after progressDeadlineSeconds without progress.
  ProgressDeadlineExceeded: {
    category: 'progress-deadline',
    policy: { when: 'now' },
    cannot: 'make progress before progressDeadlineSeconds',
    nextStep: 'see why the new pods are not available: kubectl describe deployment NAME -n NAMESPACE',
  },
  // deployment controller: ReplicaFailure True, FailedCreate (quota, admission webhook, PodSecurity).
  FailedCreate: {
    category: 'replica-failure',
    policy: { when: 'after', seconds: 30 },
    cannot: 'create its pods',
    nextStep: 'raise the ResourceQuota or fix what the admission rule refuses: kubectl describe rs -n NAMESPACE',
  },
};
