// Builds a pod's status from the kubelet's view of its containers, in the shapes the real kubelet
// reports (status_manager / kubelet_pods.go: getPhase, generate*Condition, container statuses).

import type { KubeObject } from '../../types.js';
import type { PodCondition } from '../pods.js';

export interface TerminatedState {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: TerminatedState };

export interface ContainerRuntime {
  name: string;
  init: boolean;
  fieldPath: string;
  state: ContainerState;
  lastState: { terminated?: TerminatedState };
  restartCount: number;
  ready: boolean;
  started: boolean;
  /** The spec image until a container was created, then the runtime's normalized reference. */
  image: string;
  imageID: string;
  containerID?: string;
  /** Number of instances created so far. */
  instances: number;
  /** Completed successfully (init containers). */
  succeeded: boolean;
  /** An init container with restartPolicy Always (a sidecar): it keeps running beside the app. */
  sidecar?: boolean;
}

export interface PodRuntimeView {
  sandboxReady: boolean;
  hostIP: string;
  podIP?: string;
  startTime: string;
  initContainers: ContainerRuntime[];
  containers: ContainerRuntime[];
  /**
   * Set when the node ends the pod for good (phase Failed): the eviction manager (reason Evicted),
   * the node shutdown manager (reason Terminated), or the kubelet's admission (`rejected`: rejectPod
   * writes only phase, reason, message and qosClass; no DisruptionTarget, no container statuses).
   */
  evicted?: { message: string; at: string; reason?: string; rejected?: boolean; quiet?: boolean };
}

/** Condition type → [status, lastTransitionTime], kept across syncs so transition times stay stable. */
export type ConditionMemory = Map<string, { status: string; since: string }>;

export function buildPodStatus(
  pod: KubeObject,
  view: PodRuntimeView,
  memory: ConditionMemory,
  now: string,
): Record<string, unknown> {
  // A sidecar counts as initialized once started; its readiness counts with the app containers'
  // (status/generate.go, restartable init containers).
  const initialized = view.initContainers.every((c) => c.succeeded || (c.sidecar && c.started));
  const unready = [...view.initContainers.filter((c) => c.sidecar), ...view.containers]
    .filter((c) => !c.ready)
    .map((c) => c.name);
  const incompleteInit = view.initContainers
    .filter((c) => !c.succeeded && !(c.sidecar && c.started))
    .map((c) => c.name);
  const condition = (type: string, status: 'True' | 'False', reason?: string, message?: string): PodCondition => {
    const remembered = memory.get(type);
    const since = remembered && remembered.status === status ? remembered.since : now;
    memory.set(type, { status, since });
    const result: PodCondition = { type, status, lastProbeTime: null, lastTransitionTime: since };
    if (reason) result.reason = reason;
    if (message) result.message = message;
    return result;
  };
  const existing = (pod.status?.conditions as PodCondition[] | undefined) ?? [];
  const scheduled = existing.find((c) => c.type === 'PodScheduled');
  // Readiness gates: conditions other controllers write into the pod status; the kubelet keeps them.
  const gates = ((pod.spec?.readinessGates as { conditionType: string }[] | undefined) ?? []).map(
    (gate) => gate.conditionType,
  );
  const gateConditions = existing.filter((c) => gates.includes(c.type));
  // An eviction whose containers all exited 0 (`quiet`, fixtures/evicted-exit-0): the kubelet
  // publishes a completed pod (conditions PodCompleted, phase Succeeded) and nothing of the eviction.
  const phase = view.evicted
    ? view.evicted.quiet
      ? 'Succeeded'
      : 'Failed'
    : podPhase(view, pod.spec?.restartPolicy ?? 'Always');
  // status/generate.go (v1.37.2) GenerateContainersReadyCondition and GeneratePodReadyCondition: a
  // pod in a terminal phase is not ready, for the phase's reason (generateContainersReadyConditionForTerminalPhase).
  const ended = phase === 'Succeeded' ? 'PodCompleted' : phase === 'Failed' ? 'PodFailed' : undefined;
  const containersReady = ended
    ? condition('ContainersReady', 'False', ended)
    : unready.length === 0
      ? condition('ContainersReady', 'True')
      : condition(
          'ContainersReady',
          'False',
          'ContainersNotReady',
          `containers with unready status: [${unready.join(' ')}]`,
        );
  const ready = ended
    ? condition('Ready', 'False', ended)
    : unready.length === 0
      ? gatedReady(gates, gateConditions, condition)
      : condition('Ready', 'False', 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const conditions: PodCondition[] = [
    ...(view.evicted && !view.evicted.quiet
      ? [condition('DisruptionTarget', 'True', 'TerminationByKubelet', view.evicted.message)]
      : []),
    sandboxCondition(view, ended !== undefined, condition),
    // GeneratePodInitializedCondition: a Succeeded pod whose init containers are all known is PodCompleted.
    phase === 'Succeeded'
      ? condition('Initialized', 'True', 'PodCompleted')
      : initialized
        ? condition('Initialized', 'True')
        : condition(
            'Initialized',
            'False',
            'ContainersNotInitialized',
            `containers with incomplete status: [${incompleteInit.join(' ')}]`,
          ),
    ready,
    containersReady,
    ...gateConditions,
  ];
  if (scheduled) conditions.push(scheduled);

  // kubelet.go rejectPod: `Pod was rejected: <the admit handler's message>`, nothing else of the kubelet's.
  if (view.evicted?.rejected)
    return {
      phase: 'Failed',
      reason: view.evicted.reason,
      message: view.evicted.message,
      conditions: scheduled ? [scheduled] : [],
      qosClass: pod.status?.qosClass ?? 'BestEffort',
    };
  const status: Record<string, unknown> = {
    phase,
    conditions,
    hostIP: view.hostIP,
    hostIPs: [{ ip: view.hostIP }],
  };
  // kubelet eviction manager (evictPod): phase Failed, reason Evicted, the eviction message; the node
  // shutdown manager: reason Terminated (nodeshutdown_manager_linux.go podShutdownReason).
  if (view.evicted && !view.evicted.quiet) {
    status.message = view.evicted.message;
    status.reason = view.evicted.reason ?? 'Evicted';
  }
  if (view.podIP) {
    status.podIP = view.podIP;
    status.podIPs = [{ ip: view.podIP }];
  }
  status.startTime = view.startTime;
  if (view.initContainers.length > 0) status.initContainerStatuses = view.initContainers.map(containerStatus);
  status.containerStatuses = view.containers.map(containerStatus);
  status.qosClass = pod.status?.qosClass ?? 'BestEffort';
  return status;
}

/**
 * PodReadyToStartContainers as k8s.io/kubernetes v1.37.2 writes it: status/generate.go
 * GeneratePodReadyToStartContainersCondition is True while the pod's sandbox is ready, else False
 * with reason kubetypes.PodSandboxNotReadyReason (`PodSandboxNotReady`) and the message
 * kuberuntime/util/util.go PodSandboxChanged gives (types/constants.go): `no pod sandbox exists`
 * before the sandbox is made, `pod sandbox is not ready` once kubelet.go SyncTerminatingPod has
 * stopped it (killPod) for a pod that ended (fixtures/evicted-exit-0.pod.json).
 */
function sandboxCondition(
  view: PodRuntimeView,
  ended: boolean,
  condition: (type: string, status: 'True' | 'False', reason?: string, message?: string) => PodCondition,
): PodCondition {
  if (ended) return condition('PodReadyToStartContainers', 'False', 'PodSandboxNotReady', 'pod sandbox is not ready');
  if (!view.sandboxReady)
    return condition('PodReadyToStartContainers', 'False', 'PodSandboxNotReady', 'no pod sandbox exists');
  return condition('PodReadyToStartContainers', 'True');
}

/** Ready once the containers are, unless a readiness gate's condition is missing or not True (status/generate.go). */
function gatedReady(
  gates: readonly string[],
  gateConditions: readonly PodCondition[],
  condition: (type: string, status: 'True' | 'False', reason?: string, message?: string) => PodCondition,
): PodCondition {
  const unmet = gates.flatMap((gate) => {
    const found = gateConditions.find((c) => c.type === gate);
    if (!found) return [`corresponding condition of pod readiness gate "${gate}" does not exist.`];
    return found.status === 'True'
      ? []
      : [`the status of pod readiness gate "${gate}" is not "True", but ${found.status}`];
  });
  return unmet.length === 0
    ? condition('Ready', 'True')
    : condition('Ready', 'False', 'ReadinessGatesNotReady', unmet.join(', '));
}

function containerStatus(c: ContainerRuntime): Record<string, unknown> {
  const status: Record<string, unknown> = {
    name: c.name,
    state: c.state,
    lastState: c.lastState,
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: c.imageID,
  };
  if (c.containerID) status.containerID = c.containerID;
  status.started = c.started;
  return status;
}

/** kubelet getPhase: Pending until every container has started once; Succeeded / Failed only
 *  when nothing will be restarted any more (restartPolicy Never / OnFailure). */
function podPhase(view: PodRuntimeView, restartPolicy: string): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  const initFailed = view.initContainers.some(
    (c) => !c.sidecar && 'terminated' in c.state && c.state.terminated.exitCode !== 0,
  );
  if (initFailed && restartPolicy === 'Never') return 'Failed';
  if (!view.initContainers.every((c) => c.succeeded || (c.sidecar && c.started))) return 'Pending';
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of view.containers) {
    if ('running' in c.state) running++;
    else if ('terminated' in c.state) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState.terminated) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  return restartPolicy === 'Never' ? 'Failed' : 'Running';
}
