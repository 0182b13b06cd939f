// The READY, STATUS and RESTARTS cells of `kubectl get pods`, computed as the API server's pod
// printer does (pkg/printers/internalversion/printers.go, printPod).

import type { KubeObject } from '../../types.js';
import { ageOf } from './duration.js';

interface ContainerState {
  waiting?: { reason?: string };
  running?: object;
  terminated?: { reason?: string; exitCode?: number; signal?: number; finishedAt?: string };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface PodCells {
  ready: string;
  status: string;
  restarts: string;
}

export function podCells(pod: KubeObject, now: Date): PodCells {
  const status = pod.status ?? {};
  const initStatuses = (status.initContainerStatuses ?? []) as ContainerStatus[];
  const statuses = (status.containerStatuses ?? []) as ContainerStatus[];
  const initCount = (pod.spec?.initContainers ?? []).length as number;
  let reason: string = status.reason || status.phase || '';
  let restarts = 0;
  let readyContainers = 0;
  let lastRestart = 0;

  let initializing = false;
  for (const [index, container] of initStatuses.entries()) {
    restarts += container.restartCount ?? 0;
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    initializing = true;
    if (terminated)
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
          ? `Init:Signal:${terminated.signal}`
          : `Init:ExitCode:${terminated.exitCode}`;
    else if (waiting?.reason && waiting.reason !== 'PodInitializing') reason = `Init:${waiting.reason}`;
    else reason = `Init:${index}/${initCount}`;
    break;
  }

  const initialized = ((status.conditions ?? []) as { type: string; status: string }[]).some(
    (condition) => condition.type === 'Initialized' && condition.status === 'True',
  );
  if (!initializing || initialized) {
    restarts = 0;
    let hasRunning = false;
    for (const container of [...statuses].reverse()) {
      restarts += container.restartCount ?? 0;
      const finishedAt = container.lastState?.terminated?.finishedAt;
      if (finishedAt) lastRestart = Math.max(lastRestart, Date.parse(finishedAt));
      const { waiting, terminated, running } = container.state ?? {};
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated)
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
      else if (container.ready && running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = ((status.conditions ?? []) as { type: string; status: string }[]).some(
        (condition) => condition.type === 'Ready' && condition.status === 'True',
      );
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed')
    reason = 'Terminating';

  const restartsText =
    restarts !== 0 && lastRestart > 0
      ? `${restarts} (${ageOf(new Date(lastRestart).toISOString(), now)} ago)`
      : String(restarts);
  const total = (pod.spec?.containers ?? []).length as number;
  return { ready: `${readyContainers}/${total}`, status: reason, restarts: restartsText };
}
