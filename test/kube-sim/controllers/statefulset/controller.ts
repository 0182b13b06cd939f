// The statefulset controller, following kubernetes/pkg/controller/statefulset
// (stateful_set_control.go UpdateStatefulSet / updateStatefulSet, stateful_set_utils.go,
// stateful_pod_control.go): one ControllerRevision per pod template; pods `<set>-<ordinal>`
// labelled with their revision's name; OrderedReady creates in ordinal order and blocks on the
// first pod that is not Running and Ready; RollingUpdate replaces pods from the highest ordinal
// down to the partition, one at a time, and waits for each to be available again; OnDelete
// replaces nothing. A pod of the update revision that never becomes Ready therefore blocks the
// rollout for good, and reverting the template does not help until that pod is deleted: the
// "forced rollback" the StatefulSet documentation describes.

import type { SimClock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store.js';
import type { KubeObject, StoreEvent } from '../../types.js';
import type { EventRecorder } from '../events.js';
import {
  createControllerRevision,
  equalRevision,
  findEqualRevisions,
  newControllerRevision,
  revisionsOf,
  templateOf,
  templatePatch,
  updateControllerRevision,
} from '../history.js';
import { availableAt, deletePodGracefully, isOwnedBy } from '../pods.js';
import { admitPod } from '../quota.js';
import { splitKey } from '../workqueue.js';
import {
  claimName,
  defaulted,
  isCreated,
  isFinished,
  isRunningAndAvailable,
  isRunningAndReady,
  isTerminating,
  isUnavailable,
  newVersionedPod,
  ordinalOf,
  revisionOfPod,
} from './pods.js';
import { KindController } from '../queued-controller.js';

const SOURCE = { component: 'statefulset-controller' };

interface Revisions {
  current: KubeObject;
  update: KubeObject;
  collisionCount: number;
}

export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  availableReplicas: number;
}

export class StatefulSetController extends KindController {
  constructor(store: Store, clock: SimClock, recorder: EventRecorder, stepMs: number) {
    super(store, clock, recorder, stepMs, 'statefulset-controller', 'StatefulSet');
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    this.queueWithPods(type, object, 'StatefulSet');
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const set = this.store.get('StatefulSet', namespace, name);
    if (!set || set.metadata.deletionTimestamp) return;
    const pods = this.podsOf(set);
    const revisions = revisionsOf(this.store, set);
    const { current, update, collisionCount } = this.getRevisions(set, revisions);
    const status = this.updateStatefulSet(set, current, update, collisionCount, pods);
    this.updateStatefulSetStatus(set, status);
    this.truncateHistory(set, this.podsOf(set), revisionsOf(this.store, set), current, update);
    // stateful_set.go: with minReadySeconds, look again when ready pods become available.
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) {
      const upcoming = this.podsOf(set)
        .map((pod) => availableAt(pod, minReady))
        .filter((at): at is number => at !== undefined && at > this.clock.now().getTime());
      if (upcoming.length > 0) this.queue.add(key, Math.min(...upcoming) - this.clock.now().getTime());
    }
  }

  /** The pods this set controls (adoption of orphans by selector is not simulated). */
  private podsOf(set: KubeObject): KubeObject[] {
    return this.store.list('Pod', set.metadata.namespace).filter((pod) => isOwnedBy(pod, set));
  }

  /**
   * getStatefulSetRevisions: the update revision is the one whose data equals the current
   * template: the newest revision if it already matches, an older equal one moved to the top
   * (a rollback), or a new one. The current revision is status.currentRevision, or the update
   * revision for a new set.
   */
  private getRevisions(set: KubeObject, revisions: KubeObject[]): Revisions {
    let collisionCount = set.status?.collisionCount ?? 0;
    const next = revisions.length === 0 ? 1 : Number(revisions[revisions.length - 1]!['revision']) + 1;
    const candidate = newControllerRevision(
      set,
      set.spec?.template?.metadata?.labels ?? {},
      templatePatch(set.spec?.template),
      next,
      collisionCount,
    );
    const equal = findEqualRevisions(revisions, candidate);
    let update: KubeObject;
    if (equal.length > 0 && equalRevision(revisions[revisions.length - 1], equal[equal.length - 1])) {
      update = revisions[revisions.length - 1]!;
    } else if (equal.length > 0) {
      update = updateControllerRevision(this.store, equal[equal.length - 1]!, next);
    } else {
      ({ revision: update, collisionCount } = createControllerRevision(this.store, set, candidate, collisionCount));
    }
    const current = revisions.find((revision) => revision.metadata.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  /** updateStatefulSet: create, delete and replace pods toward the target state; returns the status to record. */
  private updateStatefulSet(
    set: KubeObject,
    current: KubeObject,
    update: KubeObject,
    collisionCount: number,
    pods: KubeObject[],
  ): StatefulSetStatus {
    const now = this.clock.now();
    const minReady = set.spec?.minReadySeconds ?? 0;
    const currentSet = { ...set, spec: { ...set.spec, template: templateOf(current) } };
    const updateSet = { ...set, spec: { ...set.spec, template: templateOf(update) } };
    const _status = countReplicas(set, current, update, collisionCount, pods, now);

    const replicaCount = set.spec?.replicas ?? 1;
    const replicas: KubeObject[] = new Array(replicaCount);
    const condemned: KubeObject[] = [];
    for (const pod of pods) {
      const ordinal = ordinalOf(pod, set);
      if (ordinal >= 0 && ordinal < replicaCount) replicas[ordinal] = pod;
      else if (ordinal >= 0) condemned.push(pod);
    }
    for (let ordinal = 0; ordinal < replicaCount; ordinal++) {
      replicas[ordinal] ??= newVersionedPod(
        currentSet,
        updateSet,
        current.metadata.name,
        update.metadata.name,
        ordinal,
      );
    }
    condemned.sort((left, right) => ordinalOf(right, set) - ordinalOf(left, set));
    const firstUnavailable =
      replicas.find((pod) => isUnavailable(pod, minReady, now)) ??
      [...condemned].reverse().find((pod) => isUnavailable(pod, minReady, now));
    const recount = () => countReplicas(set, current, update, collisionCount, [...replicas, ...condemned], now);

    const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
    if (runForAll(replicas.length, (i) => this.processReplica(set, monotonic, replicas, i, now), monotonic))
      return recount();
    const processCondemned = (i: number) => this.processCondemned(set, firstUnavailable, monotonic, condemned[i]!, now);
    if (runForAll(condemned.length, processCondemned, monotonic)) return recount();
    const settled = recount();

    // For the OnDelete strategy we short circuit: pods are replaced when someone deletes them.
    if (set.spec?.updateStrategy?.type === 'OnDelete') return settled;

    // The pod with the largest ordinal that is not at the update revision goes first; an
    // unavailable pod at or above the partition stops the update until it is available.
    const updateMin = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const pod = replicas[target]!;
      if (revisionOfPod(pod) !== update.metadata.name && !isTerminating(pod)) {
        this.deletePod(set, pod);
        settled.currentReplicas--;
        return settled;
      }
      if (isUnavailable(pod, minReady, now)) return settled;
    }
    return settled;
  }

  /** processReplica: returns true when the monotonic (OrderedReady) walk must stop at this pod. */
  private processReplica(set: KubeObject, monotonic: boolean, replicas: KubeObject[], i: number, now: Date): boolean {
    const pod = replicas[i]!;
    // A finished pod (even Succeeded) is deleted and made again on a later sync.
    if (isFinished(pod)) {
      if (!isTerminating(pod)) this.deletePod(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      const created = this.createPod(set, pod);
      if (!created) return true;
      replicas[i] = created;
      if (monotonic) return true;
    }
    const current = replicas[i]!;
    if (isTerminating(current) && monotonic) return true;
    // "StatefulSet is waiting for Pod to be Running and Ready": every predecessor must be.
    if (!isRunningAndReady(current) && monotonic) return true;
    if (!isRunningAndAvailable(current, set.spec?.minReadySeconds ?? 0, now) && monotonic) return true;
    return false;
  }

  /** processCondemned: scale down from the highest ordinal, one at a time when monotonic. */
  private processCondemned(
    set: KubeObject,
    firstUnavailable: KubeObject | undefined,
    monotonic: boolean,
    pod: KubeObject,
    now: Date,
  ): boolean {
    if (isTerminating(pod)) return monotonic;
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnavailable) return true;
    if (!isRunningAndAvailable(pod, set.spec?.minReadySeconds ?? 0, now) && monotonic && pod !== firstUnavailable)
      return true;
    this.deletePod(set, pod);
    return true;
  }

  // ---- writes (stateful_pod_control.go) ----

  private createPod(set: KubeObject, planned: KubeObject): KubeObject | undefined {
    const ordinal = ordinalOf(planned, set);
    this.createClaims(set, planned, ordinal);
    const pod = defaulted(planned);
    try {
      admitPod(this.store, pod);
      const created = this.store.create(pod);
      this.recordPodEvent(set, 'create', created.metadata.name);
      return created;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 409) return undefined;
      this.recorder.record(
        set,
        SOURCE,
        'Warning',
        'FailedCreate',
        `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${error.message}`,
      );
      return undefined;
    }
  }

  /**
   * createPersistentVolumeClaims: one claim per volumeClaimTemplate and ordinal, kept when the pod
   * goes. The simulator binds it at once, as a default StorageClass with Immediate binding would.
   */
  private createClaims(set: KubeObject, pod: KubeObject, ordinal: number): void {
    const namespace = set.metadata.namespace ?? 'default';
    for (const template of (set.spec?.volumeClaimTemplates ?? []) as KubeObject[]) {
      const name = claimName(template, set, ordinal);
      if (this.store.get('PersistentVolumeClaim', namespace, name)) continue;
      const spec = structuredClone(template.spec ?? {});
      spec.volumeMode ??= 'Filesystem';
      const created = this.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name,
          namespace,
          labels: { ...(template.metadata.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) },
        },
        spec: { ...spec, volumeName: `pvc-${name}` },
      });
      this.store.updateStatus({
        ...created,
        status: {
          phase: 'Bound',
          accessModes: spec.accessModes ?? ['ReadWriteOnce'],
          capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' },
        },
      });
      this.recorder.record(
        set,
        SOURCE,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`,
      );
    }
  }

  private deletePod(set: KubeObject, pod: KubeObject): void {
    const fresh = this.store.get('Pod', pod.metadata.namespace ?? 'default', pod.metadata.name);
    if (!fresh || fresh.metadata.uid !== pod.metadata.uid) return;
    deletePodGracefully(this.store, fresh, this.clock.now());
    this.recordPodEvent(set, 'delete', pod.metadata.name);
  }

  /** recordPodEvent: `create Pod web-0 in StatefulSet web successful` (SuccessfulCreate / SuccessfulDelete). */
  private recordPodEvent(set: KubeObject, verb: 'create' | 'delete', pod: string): void {
    const reason = verb === 'create' ? 'SuccessfulCreate' : 'SuccessfulDelete';
    this.recorder.record(
      set,
      SOURCE,
      'Normal',
      reason,
      `${verb} Pod ${pod} in StatefulSet ${set.metadata.name} successful`,
    );
  }

  /** updateStatefulSetStatus: complete a finished rolling update, then write only when something changed. */
  private updateStatefulSetStatus(set: KubeObject, status: StatefulSetStatus): void {
    if (
      set.spec?.updateStrategy?.type === 'RollingUpdate' &&
      status.updatedReplicas === status.replicas &&
      status.readyReplicas === status.replicas
    ) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
    const serialized = serializeStatus(status, set.status?.conditions);
    const fresh = this.store.get('StatefulSet', set.metadata.namespace ?? 'default', set.metadata.name);
    if (!fresh || fresh.metadata.uid !== set.metadata.uid) return;
    if (JSON.stringify(fresh.status ?? {}) === JSON.stringify(serialized)) return;
    this.store.updateStatus({
      ...fresh,
      metadata: { ...fresh.metadata, resourceVersion: undefined },
      status: serialized,
    });
  }

  /** truncateHistory: keep the live revisions (current, update, any a pod runs) and revisionHistoryLimit others. */
  private truncateHistory(
    set: KubeObject,
    pods: KubeObject[],
    revisions: KubeObject[],
    current: KubeObject,
    update: KubeObject,
  ): void {
    const live = new Set([current.metadata.name, update.metadata.name, ...pods.map((pod) => revisionOfPod(pod) ?? '')]);
    const history = revisions.filter((revision) => !live.has(revision.metadata.name));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (limit < 0 || history.length <= limit) return;
    for (const revision of history.slice(0, history.length - limit)) {
      this.store.delete('ControllerRevision', revision.metadata.namespace ?? 'default', revision.metadata.name);
    }
  }
}

/** runForAll: monotonic walks stop at the first pod that says so; burst mode visits them all. */
function runForAll(count: number, process: (i: number) => boolean, monotonic: boolean): boolean {
  for (let i = 0; i < count; i++) {
    if (process(i) && monotonic) return true;
  }
  return false;
}

/** computeReplicaStatus over the given pods (planned, uncreated pods count for nothing). */
function countReplicas(
  set: KubeObject,
  current: KubeObject,
  update: KubeObject,
  collisionCount: number,
  pods: KubeObject[],
  now: Date,
): StatefulSetStatus {
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation ?? 1,
    replicas: 0,
    readyReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision: current.metadata.name,
    updateRevision: update.metadata.name,
    collisionCount,
    availableReplicas: 0,
  };
  const minReady = set.spec?.minReadySeconds ?? 0;
  for (const pod of pods) {
    if (isCreated(pod)) status.replicas++;
    if (isRunningAndReady(pod)) {
      status.readyReplicas++;
      if (isRunningAndAvailable(pod, minReady, now)) status.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      if (revisionOfPod(pod) === current.metadata.name) status.currentReplicas++;
      if (revisionOfPod(pod) === update.metadata.name) status.updatedReplicas++;
    }
  }
  return status;
}

/**
 * StatefulSetStatus as the API serializes it: observedGeneration, readyReplicas, currentReplicas,
 * updatedReplicas and the revisions are omitempty; replicas, availableReplicas and the
 * collisionCount pointer are always written.
 */
function serializeStatus(status: StatefulSetStatus, conditions: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (status.observedGeneration) out.observedGeneration = status.observedGeneration;
  out.replicas = status.replicas;
  if (status.readyReplicas) out.readyReplicas = status.readyReplicas;
  if (status.currentReplicas) out.currentReplicas = status.currentReplicas;
  if (status.updatedReplicas) out.updatedReplicas = status.updatedReplicas;
  if (status.currentRevision) out.currentRevision = status.currentRevision;
  if (status.updateRevision) out.updateRevision = status.updateRevision;
  out.collisionCount = status.collisionCount;
  if (Array.isArray(conditions) && conditions.length > 0) out.conditions = conditions;
  out.availableReplicas = status.availableReplicas;
  return out;
}
