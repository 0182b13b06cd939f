// What the tracker reads besides the objects: the events of new pods whose status cannot tell
// why they wait (tracker.ts calls it at every look). Side effects through the passed-in kubectl.
import { podsNeedingEvents, podUid, rememberClues, type Clues } from '../classify/clues.js';
import type { Pod } from '../kube.js';
import { newPodsOf, type RolloutRules } from '../kinds/engine.js';
import { findObject } from '../kinds/look-index.js';
import type { Kubectl } from '../kubectl/types.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { ObjectRef } from '../objects/model.js';

/** A pod may wait this long to start its containers before its events are read for volume trouble. */
const STARTING_LOOK_MS = 5000;
/** The events of one pod are read again at most this often. */
const EVENTS_EVERY_MS = 5000;

/** One watched object's memory of its clues and of when each pod's events were read (by uid). */
export interface ClueReads {
  target: { workload: ObjectRef };
  clues: Clues;
  eventsReadAt: Map<string, number>;
  startingSince: Map<string, number>;
}

/**
 * Reads what the status of the new pods cannot tell: the pull errors of a back-off that names none,
 * the volume events of a pod stuck creating its containers, and a node autoscaler's scale-up for a
 * pod no node fits. Every unschedulable pod's events at each poll (its grace is short, and a
 * scale-up is told per pod: cluster-autoscaler's TriggeredScaleUp, Karpenter's Nominated); one
 * other pod's; each pod at most every EVENTS_EVERY_MS. The registry's answer holds for every pod.
 */
export async function gatherClues(
  watch: ClueReads,
  rules: RolloutRules<unknown>,
  snapshot: WorkloadSnapshot,
  now: number,
  kubectl: Pick<Kubectl, 'events'>,
): Promise<void> {
  // Every kind's new pods, as its row names them: their events are read the same way for all.
  const pods = newPodsOf(rules, findObject(snapshot, watch.target.workload), snapshot);
  watch.clues = rememberClues(watch.clues, pods);
  const { unknownPull, starting, unplaced } = podsNeedingEvents(pods, watch.clues);
  const startingUids = new Set(starting.map(podUid));
  for (const uid of [...watch.startingSince.keys()]) if (!startingUids.has(uid)) watch.startingSince.delete(uid);
  for (const uid of startingUids) if (!watch.startingSince.has(uid)) watch.startingSince.set(uid, now);
  const candidates = [
    ...unknownPull,
    ...starting.filter((pod) => now - (watch.startingSince.get(podUid(pod)) ?? now) >= STARTING_LOOK_MS),
  ];
  const isDue = (pod: Pod) => now - (watch.eventsReadAt.get(podUid(pod)) ?? -Infinity) >= EVENTS_EVERY_MS;
  const other = candidates
    .filter(isDue)
    .sort(
      (a, b) => (watch.eventsReadAt.get(podUid(a)) ?? -Infinity) - (watch.eventsReadAt.get(podUid(b)) ?? -Infinity),
    )[0];
  const due = [...unplaced.filter(isDue), ...(other ? [other] : [])];
  for (const pod of due) watch.eventsReadAt.set(podUid(pod), now);
  const reads = await Promise.all(
    due.map(async (pod) => ({
      pod,
      events: await kubectl.events(watch.target.workload.namespace, pod.metadata.name).catch(() => undefined),
    })),
  );
  for (const { pod, events } of reads) if (events) watch.clues = rememberClues(watch.clues, pods, { pod, events });
}
