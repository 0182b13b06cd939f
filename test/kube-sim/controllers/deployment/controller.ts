// The deployment controller, following kubernetes/pkg/controller/deployment (sync.go, rolling.go,
// recreate.go, progress.go): one ReplicaSet per pod template named <deployment>-<pod-template-hash>,
// revisions max+1 (an old ReplicaSet whose template matches again is reused and moves up: that is
// what `kubectl rollout undo` relies on), RollingUpdate surge/unavailable arithmetic, Recreate,
// proportional scaling, pause, progress deadline and revisionHistoryLimit cleanup.

import type { SimClock } from '../../clock.js';
import type { Store } from '../../store.js';
import type { KubeObject, StoreEvent } from '../../types.js';
import type { EventRecorder } from '../events.js';
import { equalIgnoreHash } from '../template-hash.js';
import { namespacedKey, splitKey } from '../workqueue.js';
import { getNewReplicaSet, type RevisionWriter } from './new-replicaset.js';
import { reconcileNewReplicaSet, reconcileOldReplicaSets, scale, type Scaler } from './scaling.js';
import { calculateStatus, progressDeadlineAt, rolloutStatus, serializeStatus } from './status.js';
import {
  DESIRED_REPLICAS_ANNOTATION,
  PAUSED_REASON,
  RESUMED_REASON,
  TIMED_OUT_REASON,
  activeReplicaSets,
  byCreation,
  deploymentComplete,
  desiredReplicas,
  getCondition,
  hasProgressDeadline,
  isRollingUpdate,
  maxSurge,
  newCondition,
  replicasAnnotationsNeedUpdate,
  revisionHistoryLimit,
  revisionOf,
  setCondition,
  setReplicasAnnotations,
  specReplicas,
  type DeploymentStatus,
} from './util.js';
import { KindController } from '../queued-controller.js';

const SOURCE = { component: 'deployment-controller' };

export class DeploymentController extends KindController {
  private readonly scaler: Scaler = {
    scaleAndRecord: (rs, newScale, d) => this.scaleReplicaSetAndRecordEvent(rs, newScale, d),
    resize: (rs, newScale, d) => this.scaleReplicaSet(rs, newScale, d),
  };
  private readonly revisionWriter: RevisionWriter;

  constructor(store: Store, clock: SimClock, recorder: EventRecorder, stepMs: number) {
    super(store, clock, recorder, stepMs, 'deployment-controller', 'Deployment');
    this.revisionWriter = { store, clock, recorder, writeDeployment: (d, status) => this.writeDeployment(d, status) };
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind === 'Deployment') {
      if (type !== 'DELETED') this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
    } else if (object.kind === 'ReplicaSet') {
      const owner = controllerOf(object, 'Deployment');
      if (owner) this.queue.add(namespacedKey(object.metadata.namespace, owner));
    } else if (object.kind === 'Pod' && type === 'DELETED') {
      // Recreate waits for the old pods to be gone.
      const rsName = controllerOf(object, 'ReplicaSet');
      const rs = rsName ? this.store.get('ReplicaSet', object.metadata.namespace ?? 'default', rsName) : undefined;
      const owner = rs && controllerOf(rs, 'Deployment');
      if (owner) this.queue.add(namespacedKey(object.metadata.namespace, owner));
    }
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const found = this.store.get('Deployment', namespace, name);
    if (!found || found.metadata.deletionTimestamp) return;
    const d = found;
    const rsList = this.replicaSetsOf(d);

    this.checkPausedConditions(d);
    if (d.spec?.paused) return this.syncScale(d, rsList);
    if (this.isScalingEvent(d, rsList)) return this.syncScale(d, rsList);
    if (isRollingUpdate(d)) this.rolloutRolling(d, rsList);
    else this.rolloutRecreate(d, rsList);
  }

  /** ReplicaSets this Deployment controls (adoption of orphans is not simulated). */
  private replicaSetsOf(d: KubeObject): KubeObject[] {
    return this.store.list(
      'ReplicaSet',
      d.metadata.namespace,
      undefined,
      (rs) => rs.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === d.metadata.uid) === true,
    );
  }

  // ---- rollout strategies (rolling.go, recreate.go) ----

  private rolloutRolling(d: KubeObject, rsList: KubeObject[]): void {
    const { newRS, oldRSs } = this.getAllReplicaSetsAndSyncRevision(d, rsList, true);
    const allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
    if (newRS && reconcileNewReplicaSet(this.scaler, allRSs, newRS, d)) return this.syncRolloutStatus(allRSs, newRS, d);
    if (reconcileOldReplicaSets(this.scaler, allRSs, activeReplicaSets(oldRSs), newRS, d))
      return this.syncRolloutStatus(allRSs, newRS, d);
    if (deploymentComplete(d, d.status ?? {})) this.cleanupDeployment(oldRSs, d);
    this.syncRolloutStatus(allRSs, newRS, d);
  }

  private rolloutRecreate(d: KubeObject, rsList: KubeObject[]): void {
    let { newRS, oldRSs } = this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    let allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      if (this.scaleReplicaSetAndRecordEvent(rs, 0, d)) scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(allRSs, newRS, d);
    if (this.oldPodsRunning(oldRSs)) return this.syncRolloutStatus(allRSs, newRS, d);
    if (!newRS) {
      ({ newRS, oldRSs } = this.getAllReplicaSetsAndSyncRevision(d, rsList, true));
      allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
    }
    if (newRS) this.scaleReplicaSetAndRecordEvent(newRS, desiredReplicas(d), d);
    if (deploymentComplete(d, d.status ?? {})) this.cleanupDeployment(oldRSs, d);
    this.syncRolloutStatus(allRSs, newRS, d);
  }

  private oldPodsRunning(oldRSs: KubeObject[]): boolean {
    if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    const uids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    return (
      oldRSs.length > 0 &&
      this.store.list('Pod', oldRSs[0]!.metadata.namespace, undefined, (pod) => {
        const owned = pod.metadata.ownerReferences?.some((ref) => uids.has(ref.uid));
        return owned === true && pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded';
      }).length > 0
    );
  }

  // ---- scaling without a template change (sync.go: sync, scale, isScalingEvent) ----

  private isScalingEvent(d: KubeObject, rsList: KubeObject[]): boolean {
    const { newRS, oldRSs } = this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    const allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
    return activeReplicaSets(allRSs).some((rs) => {
      const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
      return desired !== undefined && Number(desired) !== desiredReplicas(d);
    });
  }

  private syncScale(d: KubeObject, rsList: KubeObject[]): void {
    const { newRS, oldRSs } = this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    scale(this.scaler, d, newRS, oldRSs);
    if (d.spec?.paused) this.cleanupDeployment(oldRSs, d);
    const allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
    const status = calculateStatus(allRSs, newRS, d, this.clock.nowIso());
    this.writeStatus(d, status);
  }

  // ---- the new ReplicaSet and revisions (sync.go: getNewReplicaSet) ----

  private getAllReplicaSetsAndSyncRevision(
    d: KubeObject,
    rsList: KubeObject[],
    createIfNotExisted: boolean,
  ): { newRS?: KubeObject; oldRSs: KubeObject[] } {
    const existing = [...rsList].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
    const oldRSs = rsList.filter((rs) => rs !== existing);
    const newRS = getNewReplicaSet(this.revisionWriter, d, existing, oldRSs, createIfNotExisted);
    return { newRS, oldRSs };
  }

  // ---- writes ----

  /** Scales and records ScalingReplicaSet; returns whether the size changed. Mutates `rs` to the stored result. */
  private scaleReplicaSetAndRecordEvent(rs: KubeObject, newScale: number, d: KubeObject): boolean {
    if (specReplicas(rs) === newScale) return false;
    return this.scaleReplicaSet(rs, newScale, d);
  }

  private scaleReplicaSet(rs: KubeObject, newScale: number, d: KubeObject): boolean {
    const oldScale = specReplicas(rs);
    const sizeNeedsUpdate = oldScale !== newScale;
    const max = desiredReplicas(d) + maxSurge(d);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desiredReplicas(d), max)) return false;
    const copy = structuredClone(rs);
    copy.spec.replicas = newScale;
    setReplicasAnnotations(copy, desiredReplicas(d), max);
    const updated = this.store.update(copy);
    Object.assign(rs, updated);
    if (sizeNeedsUpdate) {
      const operation = oldScale < newScale ? 'up' : 'down';
      this.recorder.record(
        d,
        SOURCE,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${operation} replica set ${rs.metadata.name} from ${oldScale} to ${newScale}`,
      );
    }
    return sizeNeedsUpdate;
  }

  private syncRolloutStatus(allRSs: KubeObject[], newRS: KubeObject | undefined, d: KubeObject): void {
    const status = rolloutStatus(allRSs, newRS, d, this.clock.now(), this.clock.nowIso());
    this.writeStatus(d, status);
    // requeueStuckDeployment: look again when the deadline would pass without progress.
    const deadlineAt = progressDeadlineAt(d, status);
    if (deadlineAt !== undefined) {
      this.queue.add(
        namespacedKey(d.metadata.namespace, d.metadata.name),
        Math.max(0, deadlineAt - this.clock.now().getTime()) + 1000,
      );
    }
  }

  private checkPausedConditions(d: KubeObject): void {
    if (!hasProgressDeadline(d)) return;
    const condition = getCondition(d.status ?? {}, 'Progressing');
    if (condition?.reason === TIMED_OUT_REASON) return;
    const pausedConditionExists = condition?.reason === PAUSED_REASON;
    const status: DeploymentStatus = structuredClone(d.status ?? {});
    if (d.spec?.paused && !pausedConditionExists) {
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', PAUSED_REASON, 'Deployment is paused', this.clock.nowIso()),
      );
    } else if (!d.spec?.paused && pausedConditionExists) {
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', RESUMED_REASON, 'Deployment is resumed', this.clock.nowIso()),
      );
    } else {
      return;
    }
    this.writeDeployment(d, status);
  }

  /** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
  private cleanupDeployment(oldRSs: KubeObject[], d: KubeObject): void {
    const cleanable = oldRSs.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0);
    const diff = cleanable.length - revisionHistoryLimit(d);
    if (diff <= 0) return;
    cleanable.sort((left, right) => revisionOf(left) - revisionOf(right) || byCreation(left, right));
    for (const rs of cleanable.slice(0, diff)) {
      if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      this.store.delete('ReplicaSet', rs.metadata.namespace ?? 'default', rs.metadata.name);
    }
  }

  private writeStatus(d: KubeObject, status: DeploymentStatus): void {
    this.writeDeployment(d, status);
  }

  /** One write for annotations (revision) and status, as the real controller's UpdateStatus carries both. */
  private writeDeployment(d: KubeObject, status: DeploymentStatus): void {
    const next = structuredClone(d);
    next.status = serializeStatus(status);
    const updated = this.store.update(next);
    Object.assign(d, updated);
    d.metadata = updated.metadata;
    d.status = updated.status;
  }
}

function controllerOf(obj: KubeObject, kind: string): string | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller && ref.kind === kind)?.name;
}
