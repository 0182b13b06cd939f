// What breaks a bake, decided on the new revision's pods: a container that restarts, a pod that
// was Ready and is no longer, a pod the kubelet evicts. Each look is compared with what the look
// before it left (its marks); the first marks are the pods as the tracker saw them when it called
// the rollout healthy, so a crash while the checks ran is caught at the bake's first look. Pods
// that are being deleted (a scale-down, a replacement) and pods that come later and are not Ready
// yet (an autoscaler's) are normal life, not a breach; so is a pod its node ends (evicted under
// node pressure, rejected, shut down: classify/terminated.ts), which its controller replaces, as
// the rollout's judge counts it. Pure.
import { OWN_LIMIT_EVICTION, terminationOf } from '../classify/terminated.js';
import { oneLine } from '../classify/text.js';
import { conditionOf, type ContainerState, type KubeEvent, type Pod } from '../kube.js';

/** What one pod looked like at the last look. */
export interface PodMark {
  ready: boolean;
  /** restartCount by container name, init containers (sidecars) included. */
  restarts: Readonly<Record<string, number>>;
}

/** By pod uid (name when it has none). */
export type PodMarks = ReadonlyMap<string, PodMark>;

export interface Breach {
  what: 'restarted' | 'left-ready' | 'evicted';
  /** What it says about the new version: its process ends, it stops answering its readiness probe, or the kubelet evicted it. */
  why: 'exits' | 'unready' | 'evicted';
  pod: string;
  container?: string;
  /** One clause: "container web of pod web-7d9c-x2k4q restarted (exit code 1, Error)". */
  summary: string;
  /** The container whose last lines say why; `previous` when it restarted (the crashed run). */
  logs?: { pod: string; container: string; previous: boolean };
}

export function marksOf(pods: readonly Pod[]): PodMarks {
  return new Map(pods.filter((pod) => !pod.metadata.deletionTimestamp).map((pod) => [keyOf(pod), markOf(pod)]));
}

/** A pod's events, by its uid (name when it has none): read only for the pods endedQuietly names. */
export type PodEvents = ReadonlyMap<string, readonly KubeEvent[]>;

/**
 * One look at the pods: the first breach found, and the marks the next look compares with.
 * `events` holds what was read of the pods that ended quietly (endedQuietly).
 */
export function bakeLook(
  marks: PodMarks,
  pods: readonly Pod[],
  events: PodEvents = new Map(),
): { marks: PodMarks; breach?: Breach } {
  const next = new Map<string, PodMark>();
  for (const pod of pods) {
    if (endedQuietly(pod)) {
      const breach = evictedQuietly(pod, events.get(keyOf(pod)) ?? []);
      if (breach) return { marks: next, breach };
      continue;
    }
    if (pod.metadata.deletionTimestamp || endedByItsNode(pod)) continue;
    const before = marks.get(keyOf(pod));
    const breach = evicted(pod) ?? restarted(pod, before) ?? leftReady(pod, before);
    if (breach) return { marks: next, breach };
    next.set(keyOf(pod), markOf(pod));
  }
  return { marks: next };
}

export function keyOf(pod: Pod): string {
  return pod.metadata.uid ?? pod.metadata.name;
}

function markOf(pod: Pod): PodMark {
  return {
    ready: isReady(pod),
    restarts: Object.fromEntries(statusesOf(pod).map((status) => [status.name, status.restartCount ?? 0])),
  };
}

function isReady(pod: Pod): boolean {
  return conditionOf(pod, 'Ready')?.status === 'True';
}

function statusesOf(pod: Pod) {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
}

/**
 * A pod its node ended or is ending for the node's own reason: terminated (classify/terminated.ts),
 * or still running with the kubelet's DisruptionTarget (TerminationByKubelet, 1.26+: set before the
 * containers are stopped) for node pressure or a node shutdown. Its controller replaces it.
 */
function endedByItsNode(pod: Pod): boolean {
  const termination = terminationOf(pod);
  if (termination) return !termination.own;
  const disruption = conditionOf(pod, 'DisruptionTarget');
  return (
    disruption?.status === 'True' &&
    disruption.reason === 'TerminationByKubelet' &&
    !OWN_LIMIT_EVICTION.test(disruption.message ?? '')
  );
}

/**
 * The kubelet's eviction manager fails the pod with reason "Evicted" (pkg/kubelet/eviction
 * helpers.go PodIsEvicted: phase Failed, status.reason Evicted) and, since 1.26, a DisruptionTarget
 * condition with reason TerminationByKubelet (eviction_manager.go). Only an eviction for the pod's
 * own limit (its ephemeral storage, an emptyDir: its replacement goes the same way) reaches here;
 * one under node pressure is the node's (endedByItsNode). A drain through the Eviction API deletes
 * the pod instead: a person's decision, not the new version's failure.
 */
function evicted(pod: Pod): Breach | undefined {
  const disruption = conditionOf(pod, 'DisruptionTarget');
  const byKubelet = disruption?.status === 'True' && disruption.reason === 'TerminationByKubelet';
  if (!(pod.status?.phase === 'Failed' && pod.status.reason === 'Evicted') && !byKubelet) return undefined;
  const message = (pod.status?.message ?? disruption?.message ?? '').trim();
  return {
    what: 'evicted',
    why: 'evicted',
    pod: pod.metadata.name,
    summary: `pod ${pod.metadata.name} was evicted by the kubelet${message ? `: ${message}` : ''}`,
  };
}

/**
 * A pod whose containers the kubelet restarts (restartPolicy Always: a Deployment's, ReplicaSet's,
 * StatefulSet's or DaemonSet's) that ended Succeeded without being deleted: its containers alone
 * never end it, a delete or a scale-down sets a deletionTimestamp first, and a graceful node
 * shutdown fails it (Failed, Terminated, DisruptionTarget). What is left is its kubelet's eviction
 * of a pod whose containers exited 0 on SIGTERM: the real kubelet v1.37.2 then publishes phase
 * Succeeded with no reason, no message and no DisruptionTarget, the `Evicted` event its only trace
 * (kubernetes#120182, #141483; test/kube-sim/controllers/kubelet/fixtures/evicted-exit-0). Its
 * events say why; the bake reads them for these pods only.
 */
export function endedQuietly(pod: Pod): boolean {
  return (
    !pod.metadata.deletionTimestamp &&
    pod.status?.phase === 'Succeeded' &&
    (pod.spec?.restartPolicy ?? 'Always') === 'Always' &&
    !pod.status.reason
  );
}

/**
 * The `Evicted` event of a pod that ended quietly decides. The eviction manager writes it before it
 * stops the containers (eviction_manager.go evictPod: recorder.Event(pod, Warning, Reason, message));
 * local storage is checked first (localStorageEviction: emptyDirLimitEviction, then
 * podEphemeralStorageLimitEviction, then containerEphemeralStorageLimitEviction), each with its
 * message of pkg/kubelet/eviction/helpers.go (emptyDirMessageFmt `Usage of EmptyDir volume %q exceeds
 * the limit %q. `, podEphemeralStorageMessageFmt `Pod ephemeral local storage usage exceeds the total
 * limit of containers %s. `, containerEphemeralStorageMessageFmt `Container %s exceeded its local
 * ephemeral storage limit %q. `): the pod's own limit, which its replacement will reach too, so a
 * breach. Any other Evicted message is node pressure (nodeLowMessageFmt `The node was low on
 * resource: %v. `, nodeConditionMessageFmt): the node's, not a breach, as endedByItsNode says of a
 * Failed one.
 *
 * Without an Evicted event (not read yet, events not readable, or lost by the kubelet's event
 * rate limit) nothing tells whose fault it was, and it is not a breach: a false red rolls back a
 * release that did nothing wrong and cannot be undone, while a release that does break its own limit
 * breaks it again in the replacement, whose own event the next looks read (the bake reads a quietly
 * ended pod's events again at its next looks until it finds one). A bake that cannot read events
 * at all misses it, as it did before.
 */
function evictedQuietly(pod: Pod, events: readonly KubeEvent[]): Breach | undefined {
  const eviction = events.find(
    (event) =>
      event.reason === 'Evicted' &&
      (event.involvedObject?.uid === undefined || event.involvedObject.uid === pod.metadata.uid),
  );
  const message = oneLine(eviction?.message ?? '').trim();
  if (!eviction || !OWN_LIMIT_EVICTION.test(message)) return undefined;
  return {
    what: 'evicted',
    why: 'evicted',
    pod: pod.metadata.name,
    summary: `pod ${pod.metadata.name} was evicted by the kubelet: ${message} (its containers exited 0, so the pod shows Succeeded)`,
  };
}

/** A container whose restartCount went up: it ended (crashed, OOM-killed, failed its liveness probe) and the kubelet started it again. */
function restarted(pod: Pod, before: PodMark | undefined): Breach | undefined {
  for (const status of statusesOf(pod)) {
    const was = before?.restarts[status.name] ?? 0;
    const now = status.restartCount ?? 0;
    if (now <= was) continue;
    const ended = status.lastState?.terminated;
    const how = ended ? ` (${endText(ended)})` : '';
    const times = now - was > 1 ? ` ${now - was} times` : '';
    return {
      what: 'restarted',
      why: 'exits',
      pod: pod.metadata.name,
      container: status.name,
      summary: `container ${status.name} of pod ${pod.metadata.name} restarted${times}${how}`,
      logs: { pod: pod.metadata.name, container: status.name, previous: true },
    };
  }
  return undefined;
}

/** A pod seen Ready that is no longer, and is not going away. */
function leftReady(pod: Pod, before: PodMark | undefined): Breach | undefined {
  if (!before?.ready || isReady(pod)) return undefined;
  const down = (pod.status?.containerStatuses ?? []).find((status) => status.ready !== true);
  const ready = conditionOf(pod, 'Ready');
  const why = down
    ? `container ${down.name} ${stateText(down.state)}`
    : `${ready?.reason ?? 'not ready'}${ready?.message ? `: ${ready.message}` : ''}`;
  return {
    what: 'left-ready',
    // A container that ended, or waits to start again (CrashLoopBackOff), exits; a running one fails its probe.
    why: down && !down.state?.running ? 'exits' : 'unready',
    pod: pod.metadata.name,
    container: down?.name,
    summary: `pod ${pod.metadata.name} is no longer Ready: ${why}`,
    logs:
      down && (down.state?.running || down.state?.terminated)
        ? { pod: pod.metadata.name, container: down.name, previous: false }
        : undefined,
  };
}

function endText(ended: NonNullable<ContainerState['terminated']>): string {
  return `exit code ${ended.exitCode ?? '?'}, ${ended.reason ?? 'unknown'}`;
}

function stateText(state: ContainerState | undefined): string {
  if (state?.terminated) return `ended (${endText(state.terminated)})`;
  if (state?.waiting) return `is waiting (${state.waiting.reason ?? 'unknown'})`;
  if (state?.running) return 'is running but not ready (its readiness probe fails)';
  return 'has no state';
}
