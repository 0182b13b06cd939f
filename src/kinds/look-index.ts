// What one look read, grouped once per list: each workload's own object, the pods a workload
// controls, a Deployment's ReplicaSets. Pure.
import type { Pod } from '../kube.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import { groupOf, type KubeObject, type ObjectRef } from '../objects/model.js';
import { perCopy } from '../objects/per-copy.js';

/**
 * The object a look read for `ref` (its kind, group, namespace and name: any version), if it is
 * still there; the first read. Finding it by a walk of the whole list, twice a look for every
 * pending workload, took 10 s of CPU a run at 334 Deployments (docs/performance.md).
 */
export function findObject(snapshot: WorkloadSnapshot, ref: ObjectRef): KubeObject | undefined {
  return grouped(byName, snapshot.objects, nameKeyOf).get(nameKey(ref))?.[0];
}

/** Pods controlled by the object (the controller's ownerReference), as the tracker read them. */
export function podsControlledBy(object: { metadata: { uid?: string } }, pods: readonly Pod[]): Pod[] {
  const uid = object.metadata.uid;
  if (!uid) return [];
  return [...(grouped(byController, pods, controllerUidOf).get(uid) ?? [])];
}

/** The objects of one kind that `owner` controls, among what was read (a Deployment's ReplicaSets). */
export function objectsControlledBy<T>(
  owner: { metadata: { uid?: string } },
  snapshot: WorkloadSnapshot,
  apiVersion: string,
  kind: string,
): T[] {
  const uid = owner.metadata.uid;
  if (!uid) return [];
  const controlled = grouped(byControllerOfAny, snapshot.objects, controllerUidOf).get(uid) ?? [];
  return controlled.filter((object) => object.apiVersion === apiVersion && object.kind === kind) as unknown as T[];
}

/** The pods of the look with this name (one, unless two watches both read it). */
export function podsNamed(pods: readonly Pod[], name: string): readonly Pod[] {
  return grouped(byPodName, pods, podNameOf).get(name) ?? [];
}

/**
 * What a judgement of `ref` reads when its rules read only what it controls (engine.ts
 * readsOwnedOnly): its object, then every object and pod it controls, and theirs in turn (a
 * Deployment, its ReplicaSets, their pods), in the look's order. The same copies at two looks
 * mean the same judgement but for the time (track/due.ts).
 */
export function ownedCopies(snapshot: WorkloadSnapshot, ref: ObjectRef): KubeObject[] {
  const root = findObject(snapshot, ref);
  if (!root) return [];
  const objects = grouped(byControllerOfAny, snapshot.objects, controllerUidOf);
  const pods = grouped(byController, snapshot.pods, controllerUidOf);
  const copies: KubeObject[] = [root];
  // An ownerReference loop (written by hand) is walked once; a handful of owners, kept in a list.
  const walked: string[] = [];
  for (let at = 0; at < copies.length; at += 1) {
    const uid = copies[at]!.metadata.uid;
    if (!uid || walked.includes(uid)) continue;
    walked.push(uid);
    for (const object of objects.get(uid) ?? [])
      if (object.kind !== 'Pod' || object.apiVersion !== 'v1') copies.push(object);
    for (const pod of pods.get(uid) ?? []) copies.push(pod as unknown as KubeObject);
  }
  return copies;
}

/**
 * A look's objects grouped once per list: each look judges every pending workload, each asking
 * several times for its pods and its ReplicaSets, and filtering the whole list on each ask took
 * seconds of CPU a run at 100 Deployments (docs/performance.md). A list read from the cluster is
 * never changed in place (each look reads a new one); a changed length groups it again anyway.
 */
interface Groups<T> {
  length: number;
  groups: Map<string, T[]>;
}
const byController = new WeakMap<readonly Pod[], Groups<Pod>>();
const byControllerOfAny = new WeakMap<readonly KubeObject[], Groups<KubeObject>>();
const byName = new WeakMap<readonly KubeObject[], Groups<KubeObject>>();
const byPodName = new WeakMap<readonly Pod[], Groups<Pod>>();

const nameKey = (object: KubeObject | ObjectRef) => {
  const { kind, apiVersion } = object;
  const { name, namespace } = 'metadata' in object ? object.metadata : object;
  // No name, namespace, group or kind holds a NUL.
  return `${kind}\0${groupOf(apiVersion ?? '')}\0${namespace ?? ''}\0${name}`;
};

/**
 * Each object's keys, once per copy: every look reads a new list, but of the same objects (the
 * watch keeps each copy until it changes), so a look groups them without working a key out again.
 */
const nameKeyOf = perCopy((object: KubeObject) => nameKey(object));
const podNameOf = (pod: Pod) => pod.metadata.name;
/** The controller's uid (the API server allows one controller reference an object). */
const controllerUidOf = perCopy(
  (object: Pod | KubeObject) => object.metadata.ownerReferences?.find((owner) => owner.controller === true)?.uid,
);

function grouped<T extends object>(
  cache: WeakMap<readonly T[], Groups<T>>,
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
): Map<string, T[]> {
  const known = cache.get(items);
  if (known && known.length === items.length) return known.groups;
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  cache.set(items, { length: items.length, groups });
  return groups;
}
