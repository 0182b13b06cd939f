// The replicaset controller (kubernetes/pkg/controller/replicaset): keeps spec.replicas active
// pods, named <rs>-<5 random>, owned by the ReplicaSet; reports replicas / ready / available and a
// ReplicaFailure condition (reason FailedCreate) when the API refuses a pod, e.g. over quota.

import type { SimClock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import type { EventRecorder } from './events.js';
import { applyDefaults } from '../server/defaults.js';
import { availableAt, isOwnedBy, isPodActive, isPodAvailable, isPodReady, podCondition } from './pods.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';
import { controllerRef, PodControl } from './pod-control.js';

const SOURCE = { component: 'replicaset-controller' };
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export class ReplicaSetController extends KindController {
  private readonly pods = new PodControl(this.store, this.recorder, SOURCE);
  /** Consecutive create failures per ReplicaSet, for the retry back-off. */
  private readonly failures = new Map<string, number>();

  constructor(store: Store, clock: SimClock, recorder: EventRecorder, stepMs: number) {
    super(store, clock, recorder, stepMs, 'replicaset-controller', 'ReplicaSet');
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind === 'ResourceQuota') {
      // Quota changes may let a refused pod in now.
      for (const rs of this.store.list('ReplicaSet', object.metadata.namespace)) {
        if (rs.status?.conditions?.some((c: { type: string }) => c.type === 'ReplicaFailure')) {
          this.queue.add(namespacedKey(rs.metadata.namespace, rs.metadata.name));
        }
      }
    } else this.queueWithPods(type, object, 'ReplicaSet');
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const rs = this.store.get('ReplicaSet', namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) {
      this.failures.delete(key);
      return;
    }
    const pods = this.store.list('Pod', namespace, undefined, (pod) => isOwnedBy(pod, rs) && isPodActive(pod));
    const manageError = this.manageReplicas(rs, pods);
    const current = this.store.list('Pod', namespace, undefined, (pod) => isOwnedBy(pod, rs) && isPodActive(pod));
    // One instant for the whole sync: the availability written and the wake-up planned must agree.
    const now = this.clock.now();
    this.updateStatus(rs, current, manageError, now);
    if (manageError) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.queue.add(key, Math.min(1000 * 2 ** (failures - 1), 60_000));
    } else {
      this.failures.delete(key);
    }
    this.requeueForAvailability(rs, current, key, now);
  }

  private manageReplicas(rs: KubeObject, pods: KubeObject[]): Error | undefined {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      for (let i = 0; i < -diff; i++) {
        const created = this.pods.create(rs, this.podFromTemplate(rs));
        if (created instanceof ApiError) return created;
      }
    } else if (diff > 0) {
      for (const pod of [...pods].sort(deletionRank).slice(0, diff)) this.pods.delete(rs, pod, this.clock.now());
    }
    return undefined;
  }

  private podFromTemplate(rs: KubeObject): KubeObject {
    const template = structuredClone(rs.spec?.template ?? {});
    const metadata: KubeObject['metadata'] = {
      name: `${rs.metadata.name}-${randomSuffix()}`,
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      labels: template.metadata?.labels ?? {},
      ownerReferences: [controllerRef(rs, 'apps/v1')],
    };
    if (template.metadata?.annotations) metadata.annotations = template.metadata.annotations;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata, spec: template.spec ?? { containers: [] } };
    // The API server defaults what the replicaset controller POSTs (status.phase, qosClass, ...).
    applyDefaults(pod);
    return pod;
  }

  private updateStatus(rs: KubeObject, pods: KubeObject[], manageError: Error | undefined, now: Date): void {
    const minReady = rs.spec?.minReadySeconds ?? 0;
    const templateLabels: Record<string, string> = rs.spec?.template?.metadata?.labels ?? {};
    const fullyLabeled = pods.filter((pod) =>
      Object.entries(templateLabels).every(([k, v]) => pod.metadata.labels?.[k] === v),
    ).length;
    const status: Record<string, unknown> = { replicas: pods.length };
    if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
    const ready = pods.filter(isPodReady).length;
    if (ready) status.readyReplicas = ready;
    const available = pods.filter((pod) => isPodAvailable(pod, minReady, now)).length;
    if (available) status.availableReplicas = available;
    status.observedGeneration = rs.metadata.generation ?? 1;
    let conditions = [...((rs.status?.conditions as Record<string, string>[] | undefined) ?? [])];
    const existingFailure = conditions.find((c) => c.type === 'ReplicaFailure');
    if (manageError) {
      const reason = (rs.spec?.replicas ?? 1) > pods.length ? 'FailedCreate' : 'FailedDelete';
      if (!existingFailure || existingFailure.reason !== reason || existingFailure.message !== manageError.message) {
        conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
        conditions.push({
          type: 'ReplicaFailure',
          status: 'True',
          lastTransitionTime: this.clock.nowIso(),
          reason,
          message: manageError.message,
        });
      }
    } else if (existingFailure) {
      conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
    }
    if (conditions.length > 0) status.conditions = conditions;
    const next = { ...rs, status };
    this.store.updateStatus(next);
  }

  /** Wake up when a ready pod passes minReadySeconds and becomes available. */
  private requeueForAvailability(rs: KubeObject, pods: KubeObject[], key: string, now: Date): void {
    const minReady = rs.spec?.minReadySeconds ?? 0;
    if (minReady === 0) return;
    const upcoming = pods
      .filter((pod) => !isPodAvailable(pod, minReady, now))
      .map((pod) => availableAt(pod, minReady))
      .filter((at): at is number => at !== undefined);
    if (upcoming.length > 0) this.queue.add(key, Math.max(0, Math.min(...upcoming) - now.getTime()));
  }
}

/**
 * ActivePodsWithRanks order for scale-down: delete unscheduled before scheduled, pending before
 * running, not-ready before ready, recently ready before long ready, more restarts first, newer first.
 */
function deletionRank(left: KubeObject, right: KubeObject): number {
  const assigned = (pod: KubeObject) => (pod.spec?.nodeName ? 1 : 0);
  if (assigned(left) !== assigned(right)) return assigned(left) - assigned(right);
  const phaseRank = (pod: KubeObject) => ({ Pending: 0, Unknown: 1, Running: 2 })[pod.status?.phase as string] ?? 0;
  if (phaseRank(left) !== phaseRank(right)) return phaseRank(left) - phaseRank(right);
  const ready = (pod: KubeObject) => (isPodReady(pod) ? 1 : 0);
  if (ready(left) !== ready(right)) return ready(left) - ready(right);
  if (isPodReady(left) && isPodReady(right)) {
    const since = (pod: KubeObject) => podCondition(pod, 'Ready')?.lastTransitionTime ?? '';
    if (since(left) !== since(right)) return since(right).localeCompare(since(left));
  }
  const restarts = (pod: KubeObject) =>
    ((pod.status?.containerStatuses as { restartCount?: number }[] | undefined) ?? []).reduce(
      (max, s) => Math.max(max, s.restartCount ?? 0),
      0,
    );
  if (restarts(left) !== restarts(right)) return restarts(right) - restarts(left);
  return (right.metadata.creationTimestamp ?? '').localeCompare(left.metadata.creationTimestamp ?? '');
}

function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[Math.floor(Math.random() * NAME_ALPHABET.length)];
  return suffix;
}
