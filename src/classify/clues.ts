// What earlier polls and a pod's events tell beyond the pods' current status: the last pull error
// of each image (an ImagePullBackOff from a ≤1.31 kubelet names no cause, and the ErrImagePull
// state that did may have passed between two polls), and the volume trouble of a pod stuck in
// ContainerCreating (it shows only in events). Pure.
import type { KubeEvent, Pod } from '../kube.js';
import { isBareBackOff, judgePullError } from './pull-errors.js';
import { STARTING_REASONS, WAITING_REASONS } from './table.js';
import { oneLine } from './text.js';

export interface VolumeClue {
  /** FailedMount (kubelet volume manager) or FailedAttachVolume (attachdetach-controller). */
  reason: 'FailedMount' | 'FailedAttachVolume';
  message: string;
  count: number;
}

/** Why a container's last start failed (RunContainerError, PostStartHookError, ...). */
export interface StartFailure {
  reason: string;
  message: string;
}

export interface Clues {
  /** The last pull error of each image, by the image as the pod spec writes it: the registry
   *  answers the same for every pod that pulls it. */
  pullErrors: ReadonlyMap<string, string>;
  /** The latest volume problem of each kind, by pod uid. */
  volumes: ReadonlyMap<string, readonly VolumeClue[]>;
  /**
   * The last start failure of each container, by `<pod uid>/<container>`: the kubelet shows it
   * only until the next sync, then CrashLoopBackOff for the whole back-off, which names no cause.
   */
  startFailures: ReadonlyMap<string, StartFailure>;
  /**
   * Pods (by uid) a node autoscaler is bringing a node for: cluster-autoscaler's TriggeredScaleUp
   * (`pod triggered scale-up: [{group 0->1 (max: 3)}]`, eventing_scale_up_processor.go) or
   * Karpenter's Nominated (`Pod should schedule on: nodeclaim/…`). Their "no node matches" is a wait.
   */
  scaleUps: ReadonlySet<string>;
}

export const NO_CLUES: Clues = {
  pullErrors: new Map(),
  volumes: new Map(),
  startFailures: new Map(),
  scaleUps: new Set(),
};

/** Events of a node autoscaler that is bringing a node for the pod (Normal events). */
const SCALE_UP_REASONS = new Set(['TriggeredScaleUp', 'Nominated']);

const VOLUME_REASONS = new Set(['FailedMount', 'FailedAttachVolume']);

export function podUid(pod: Pod): string {
  return pod.metadata.uid ?? pod.metadata.name;
}

/**
 * Adds what the pods' statuses say, and the events of one of them when they were read, to what
 * was known. Volume clues of pods that are gone are dropped.
 */
export function rememberClues(
  previous: Clues,
  pods: readonly Pod[],
  read?: { pod: Pod; events: readonly KubeEvent[] },
): Clues {
  const pullErrors = new Map(previous.pullErrors);
  const volumes = new Map<string, readonly VolumeClue[]>();
  const startFailures = new Map<string, StartFailure>();
  const uids = new Set(pods.map(podUid));
  for (const pod of pods) {
    const known = previous.volumes.get(podUid(pod));
    if (known) volumes.set(podUid(pod), known);
  }
  for (const [key, failure] of previous.startFailures)
    if (uids.has(key.split('/')[0] ?? '')) startFailures.set(key, failure);
  const scaleUps = new Set([...previous.scaleUps].filter((uid) => uids.has(uid)));
  if (read) {
    if (
      read.events.some(
        (event) => event.reason !== undefined && SCALE_UP_REASONS.has(event.reason) && isAbout(event, read.pod),
      )
    )
      scaleUps.add(podUid(read.pod));
    const own = read.events
      .filter((event) => event.type === 'Warning' && isAbout(event, read.pod))
      .sort((a, b) => timeOf(a).localeCompare(timeOf(b)));
    const latest = new Map<string, VolumeClue>();
    for (const event of own) {
      // kubelet image manager: `Failed to pull image "x": <error>` (the `Error: ErrImagePull` event names no cause).
      const pulled = /^Failed to pull image "([^"]*)": ([\s\S]*)$/.exec(event.message ?? '');
      if (event.reason === 'Failed' && pulled?.[1] && pulled[2]) pullErrors.set(pulled[1], oneLine(pulled[2]));
      // kuberuntime_container.go: a failed postStart hook, whose waiting state may have passed unseen.
      const container = containerOf(event.involvedObject?.fieldPath);
      if (event.reason === 'FailedPostStartHook' && container) {
        startFailures.set(`${podUid(read.pod)}/${container}`, {
          reason: 'PostStartHookError',
          message: oneLine(event.message ?? ''),
        });
      }
      if (event.reason && VOLUME_REASONS.has(event.reason)) {
        latest.set(event.reason, {
          reason: event.reason as VolumeClue['reason'],
          message: oneLine(event.message ?? ''),
          count: event.count ?? event.series?.count ?? 1,
        });
      }
    }
    // The read shows the pod's wait as it is now: no volume events means no volume trouble.
    volumes.set(podUid(read.pod), [...latest.values()]);
  }
  // An ErrImagePull or a start failure seen in a poll names the cause; keep it for the back-off that follows.
  for (const pod of pods) {
    const images = imagesOf(pod);
    for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
      const waiting = status.state?.waiting;
      const image = images.get(status.name);
      if (waiting?.reason === 'ErrImagePull' && waiting.message && image)
        pullErrors.set(image, oneLine(waiting.message));
      if (waiting?.reason && WAITING_REASONS[waiting.reason]?.family === 'start') {
        startFailures.set(`${podUid(pod)}/${status.name}`, {
          reason: waiting.reason,
          message: oneLine(waiting.message ?? ''),
        });
      }
    }
  }
  return { pullErrors, volumes, startFailures, scaleUps };
}

/**
 * Pods whose status alone cannot be judged, so one of their events is worth a read: an image
 * pull whose cause is unknown, or a scheduled pod that still waits to start its containers (a
 * volume may be failing; the caller decides how long is worth a look).
 */
export function podsNeedingEvents(
  pods: readonly Pod[],
  clues: Clues,
): { unknownPull: Pod[]; starting: Pod[]; unplaced: Pod[] } {
  const unknownPull: Pod[] = [];
  const starting: Pod[] = [];
  const unplaced: Pod[] = [];
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Pending') continue;
    // No node matches it yet: a node autoscaler may be bringing one (its event says so).
    if (!pod.spec?.nodeName) {
      const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
      if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable' && !clues.scaleUps.has(podUid(pod)))
        unplaced.push(pod);
      continue;
    }
    const images = imagesOf(pod);
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    const pullUnknown = statuses.some((status) => {
      const waiting = status.state?.waiting;
      if (!waiting?.reason || !WAITING_REASONS[waiting.reason]?.judgedByPullError) return false;
      const message = waiting.message ?? '';
      const text =
        isBareBackOff(message) || message === '' ? clues.pullErrors.get(images.get(status.name) ?? '') : message;
      return judgePullError(text) === 'unknown';
    });
    if (pullUnknown) unknownPull.push(pod);
    else if (
      statuses.length === 0 ||
      statuses.every((status) => STARTING_REASONS.has(status.state?.waiting?.reason ?? ''))
    )
      starting.push(pod);
  }
  return { unknownPull, starting, unplaced };
}

/** Container name → image, as the pod spec writes it. */
export function imagesOf(pod: Pod): Map<string, string> {
  const images = new Map<string, string>();
  for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    if (container.image) images.set(container.name, container.image);
  }
  return images;
}

function isAbout(event: KubeEvent, pod: Pod): boolean {
  const involved = event.involvedObject;
  if (!involved || (involved.kind !== undefined && involved.kind !== 'Pod')) return false;
  if (involved.uid && pod.metadata.uid) return involved.uid === pod.metadata.uid;
  return involved.name === pod.metadata.name;
}

/** `spec.containers{app}` / `spec.initContainers{migrate}` → the container name. */
export function containerOf(fieldPath: string | undefined): string | undefined {
  return /^spec\.(?:initContainers|containers)\{(.+)\}$/.exec(fieldPath ?? '')?.[1];
}

/** When an event last happened: core/v1 events carry lastTimestamp, the scheduler's a series or eventTime. */
export function timeOf(event: KubeEvent): string {
  return (
    event.lastTimestamp ??
    event.series?.lastObservedTime ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata.creationTimestamp ??
    ''
  );
}
