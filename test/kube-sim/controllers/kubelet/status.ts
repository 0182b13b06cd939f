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
}

export interface PodRuntimeView {
  sandboxReady: boolean;
  hostIP: string;
  podIP?: string;
  startTime: string;
  initContainers: ContainerRuntime[];
  containers: ContainerRuntime[];
}

/** Condition type → [status, lastTransitionTime], kept across syncs so transition times stay stable. */
export type ConditionMemory = Map<string, { status: string; since: string }>;

export function buildPodStatus(pod: KubeObject, view: PodRuntimeView, memory: ConditionMemory, now: string): Record<string, unknown> {
  const initialized = view.initContainers.every((c) => c.succeeded);
  const unready = view.containers.filter((c) => !c.ready).map((c) => c.name);
  const incompleteInit = view.initContainers.filter((c) => !c.succeeded).map((c) => c.name);
  const condition = (type: string, status: 'True' | 'False', reason?: string, message?: string): PodCondition => {
    const remembered = memory.get(type);
    const since = remembered && remembered.status === status ? remembered.since : now;
    memory.set(type, { status, since });
    const result: PodCondition = { type, status, lastProbeTime: null, lastTransitionTime: since };
    if (reason) result.reason = reason;
    if (message) result.message = message;
    return result;
  };
  const scheduled = ((pod.status?.conditions as PodCondition[] | undefined) ?? []).find((c) => c.type === 'PodScheduled');
  const containersReady = unready.length === 0
    ? condition('ContainersReady', 'True')
    : condition('ContainersReady', 'False', 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const ready = unready.length === 0
    ? condition('Ready', 'True')
    : condition('Ready', 'False', 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const conditions: PodCondition[] = [
    condition('PodReadyToStartContainers', view.sandboxReady ? 'True' : 'False'),
    initialized ? condition('Initialized', 'True') : condition('Initialized', 'False', 'ContainersNotInitialized', `containers with incomplete status: [${incompleteInit.join(' ')}]`),
    ready,
    containersReady,
  ];
  if (scheduled) conditions.push(scheduled);

  const status: Record<string, unknown> = {
    phase: podPhase(view, pod.spec?.restartPolicy ?? 'Always'),
    conditions,
    hostIP: view.hostIP,
    hostIPs: [{ ip: view.hostIP }],
  };
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
  const initFailed = view.initContainers.some((c) => 'terminated' in c.state && c.state.terminated.exitCode !== 0);
  if (initFailed && restartPolicy === 'Never') return 'Failed';
  if (!view.initContainers.every((c) => c.succeeded)) return 'Pending';
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
