// The job controller of Kubernetes 1.32, following kubernetes/pkg/controller/job/job_controller.go
// (syncJob, manageJob, trackJobStatusAndRemoveFinalizers, enactJobFinished) for NonIndexed Jobs:
// up to `parallelism` pods at a time until `completions` have succeeded; failed pods are replaced
// after the pod failure back-off (10 s doubling, at most 10 min: DefaultJobPodFailureBackOff,
// MaxJobPodFailureBackOff); more than `backoffLimit` failed pods (or, with restartPolicy
// OnFailure, that many container restarts) or `activeDeadlineSeconds` end it. With the
// JobPodReplacementPolicy gate on (beta, default on in 1.32) the terminal condition comes in two
// steps, as delayTerminalCondition() says: FailureTarget then Failed once no pod is terminating,
// SuccessCriteriaMet then Complete (reason CompletionsReached, from the JobSuccessPolicy gate).
//
// Not simulated: Indexed completion, podFailurePolicy, successPolicy, backoffLimitPerIndex,
// suspend, ttlSecondsAfterFinished, adoption by selector, and the batch.kubernetes.io/job-tracking
// finalizer (pods are counted in memory instead, once each, as the finalizer ensures upstream).

import type { SimClock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { applyDefaults } from '../server/defaults.js';
import type { EventRecorder } from './events.js';
import { isOwnedBy, isPodActive, isPodReady } from './pods.js';
import { splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';
import { controllerRef, PodControl } from './pod-control.js';

const SOURCE = { component: 'job-controller' };
const POD_FAILURE_BACKOFF_MS = 10_000;
const MAX_POD_FAILURE_BACKOFF_MS = 600_000;

/** batch/v1 condition reasons and messages, as job_controller.go writes them. */
const BACKOFF_LIMIT_EXCEEDED = {
  reason: 'BackoffLimitExceeded',
  message: 'Job has reached the specified backoff limit',
};
const DEADLINE_EXCEEDED = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
const COMPLETIONS_REACHED = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };

interface JobCondition {
  type: string;
  status: 'True' | 'False';
  lastProbeTime: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

type Finished = {
  type: 'FailureTarget' | 'Failed' | 'SuccessCriteriaMet' | 'Complete';
  reason: string;
  message: string;
};

export class JobController extends KindController {
  private readonly pods = new PodControl(this.store, this.recorder, SOURCE);
  /** Per Job uid: pods already counted as succeeded or failed (what the tracking finalizer guarantees upstream). */
  private readonly counted = new Map<string, Set<string>>();

  constructor(store: Store, clock: SimClock, recorder: EventRecorder, stepMs: number) {
    super(store, clock, recorder, stepMs, 'job-controller', 'Job');
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind === 'Job' && type === 'DELETED') this.counted.delete(object.metadata.uid ?? '');
    else this.queueWithPods(type, object, 'Job');
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const job = this.store.get('Job', namespace, name);
    if (!job || job.metadata.deletionTimestamp || isFinished(job)) return;
    const now = this.clock.now();
    const spec = job.spec ?? {};
    const status: Record<string, any> = structuredClone(job.status ?? {}); // eslint-disable-line @typescript-eslint/no-explicit-any
    const conditions: JobCondition[] = (status.conditions ??= []);
    const counted = this.countedFor(job);

    let pods = this.podsOf(job);
    let active = pods.filter(isPodActive);
    let terminating = pods.filter((pod) => pod.metadata.deletionTimestamp && !isFinishedPod(pod)).length;
    for (const pod of pods.filter(isFinishedPod)) {
      if (counted.has(pod.metadata.uid!)) continue;
      counted.add(pod.metadata.uid!);
      if (pod.status?.phase === 'Succeeded') status.succeeded = (status.succeeded ?? 0) + 1;
      else status.failed = (status.failed ?? 0) + 1;
    }
    const succeeded: number = status.succeeded ?? 0;
    const failed: number = status.failed ?? 0;
    // Job first start.
    status.startTime ??= this.clock.nowIso();

    let finished: Finished | undefined;
    const failureTarget = conditions.find((c) => c.type === 'FailureTarget' && c.status === 'True');
    const successCriteriaMet = conditions.find((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    if (successCriteriaMet)
      finished = {
        type: 'SuccessCriteriaMet',
        reason: successCriteriaMet.reason ?? '',
        message: successCriteriaMet.message ?? '',
      };
    else if (failureTarget)
      finished = { type: 'Failed', reason: failureTarget.reason ?? '', message: failureTarget.message ?? '' };
    else if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods))
      finished = { type: 'FailureTarget', ...BACKOFF_LIMIT_EXCEEDED };
    else if (this.pastActiveDeadline(job, status)) finished = { type: 'FailureTarget', ...DEADLINE_EXCEEDED };
    else if (spec.activeDeadlineSeconds != null) {
      const deadline = Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000;
      this.queue.add(key, Math.max(0, deadline - now.getTime()));
    }

    if (finished) {
      // Remove active pods: a finished Job runs nothing. A failing Job counts them as failed.
      for (const pod of active) {
        this.deletePod(job, pod);
        terminating++;
        if (finished.type !== 'SuccessCriteriaMet' && !counted.has(pod.metadata.uid!)) {
          counted.add(pod.metadata.uid!);
          status.failed = (status.failed ?? 0) + 1;
        }
      }
      active = [];
    } else {
      active = this.manageJob(job, key, active, pods, succeeded, now);
      pods = this.podsOf(job);
      const complete =
        spec.completions == null
          ? succeeded > 0 && active.length === 0
          : succeeded >= spec.completions && active.length === 0;
      if (complete) finished = { type: 'SuccessCriteriaMet', ...COMPLETIONS_REACHED };
    }

    // trackJobStatusAndRemoveFinalizers: the interim condition first, the final one once no pod terminates.
    if (finished?.type === 'FailureTarget') {
      conditions.push(newCondition('FailureTarget', finished.reason, finished.message, this.clock.nowIso()));
      finished = { ...finished, type: 'Failed' };
    }
    if (finished?.type === 'SuccessCriteriaMet') {
      if (!successCriteriaMet)
        conditions.push(newCondition('SuccessCriteriaMet', finished.reason, finished.message, this.clock.nowIso()));
      finished = { ...finished, type: 'Complete' };
    }
    const enacted = finished !== undefined && terminating === 0;
    if (finished && enacted && !conditions.some((c) => c.type === finished!.type)) {
      conditions.push(newCondition(finished.type, finished.reason, finished.message, this.clock.nowIso()));
      if (finished.type === 'Complete') status.completionTime = this.clock.nowIso();
    }
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.terminating = terminating;
    status.uncountedTerminatedPods = {};
    this.writeStatus(job, status);
    if (finished && enacted) {
      if (finished.type === 'Complete') this.recorder.record(job, SOURCE, 'Normal', 'Completed', 'Job completed');
      else this.recorder.record(job, SOURCE, 'Warning', finished.reason, finished.message);
    }
  }

  /**
   * manageJob for NonIndexed Jobs: as many active pods as parallelism allows and completions
   * still need; new pods wait out the failure back-off after a failed pod. Returns the active pods.
   */
  private manageJob(
    job: KubeObject,
    key: string,
    active: KubeObject[],
    pods: KubeObject[],
    succeeded: number,
    now: Date,
  ): KubeObject[] {
    const spec = job.spec ?? {};
    const parallelism: number = spec.parallelism ?? 1;
    let wantActive: number;
    if (spec.completions == null) wantActive = succeeded > 0 ? active.length : parallelism;
    else wantActive = Math.max(0, Math.min(spec.completions - succeeded, parallelism));
    if (active.length > wantActive) {
      const extra = [...active]
        .sort((a, b) => Number(isPodReady(a)) - Number(isPodReady(b)))
        .slice(0, active.length - wantActive);
      for (const pod of extra) this.deletePod(job, pod);
      return active.filter((pod) => !extra.includes(pod));
    }
    if (active.length === wantActive) return active;
    const remainingMs = backoffRemaining(pods, now);
    if (remainingMs > 0) {
      this.queue.add(key, remainingMs);
      return active;
    }
    const created = [...active];
    for (let i = active.length; i < wantActive; i++) {
      const pod = this.createPod(job);
      if (!pod) break;
      created.push(pod);
    }
    return created;
  }

  private createPod(job: KubeObject): KubeObject | undefined {
    const template = structuredClone(job.spec?.template ?? {});
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: '',
        generateName: `${job.metadata.name}-`,
        namespace: job.metadata.namespace,
        labels: template.metadata?.labels ?? {},
        ownerReferences: [controllerRef(job, 'batch/v1')],
      },
      spec: template.spec ?? { containers: [] },
    };
    if (template.metadata?.annotations) pod.metadata.annotations = template.metadata.annotations;
    applyDefaults(pod);
    const created = this.pods.create(job, pod);
    return created instanceof ApiError ? undefined : created;
  }

  private deletePod(job: KubeObject, pod: KubeObject): void {
    this.pods.delete(job, pod, this.clock.now());
  }

  private pastActiveDeadline(job: KubeObject, status: Record<string, string>): boolean {
    const seconds = job.spec?.activeDeadlineSeconds;
    if (seconds == null || !status.startTime) return false;
    return this.clock.now().getTime() - Date.parse(status.startTime) >= seconds * 1000;
  }

  private podsOf(job: KubeObject): KubeObject[] {
    return this.store.list('Pod', job.metadata.namespace).filter((pod) => isOwnedBy(pod, job));
  }

  private countedFor(job: KubeObject): Set<string> {
    let set = this.counted.get(job.metadata.uid ?? '');
    if (!set) this.counted.set(job.metadata.uid ?? '', (set = new Set()));
    return set;
  }

  /** JobStatus as the API serializes it: counts are omitempty, ready/terminating/uncountedTerminatedPods are pointers. */
  private writeStatus(job: KubeObject, status: Record<string, unknown>): void {
    const out: Record<string, unknown> = {};
    if ((status.conditions as unknown[]).length > 0) out.conditions = status.conditions;
    for (const key of ['startTime', 'completionTime'] as const) if (status[key]) out[key] = status[key];
    for (const key of ['active', 'succeeded', 'failed'] as const) if (status[key]) out[key] = status[key];
    out.terminating = status.terminating;
    out.uncountedTerminatedPods = status.uncountedTerminatedPods;
    out.ready = status.ready;
    if (JSON.stringify(job.status ?? {}) === JSON.stringify(out)) return;
    this.store.updateStatus({ ...job, metadata: { ...job.metadata, resourceVersion: undefined }, status: out });
  }
}

/** util.IsJobFinished: a Complete or Failed condition that is True. */
function isFinished(job: KubeObject): boolean {
  return ((job.status?.conditions ?? []) as JobCondition[]).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

const isFinishedPod = (pod: KubeObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function newCondition(type: string, reason: string, message: string, now: string): JobCondition {
  const condition: JobCondition = { type, status: 'True', lastProbeTime: now, lastTransitionTime: now };
  if (reason) condition.reason = reason;
  if (message) condition.message = message;
  return condition;
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts of running pods count as failures. */
function pastBackoffLimitOnFailure(job: KubeObject, pods: KubeObject[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' && pod.status?.phase !== 'Pending') continue;
    for (const container of [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ] as { restartCount?: number }[]) {
      restarts += container.restartCount ?? 0;
    }
  }
  const limit: number = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * backoffRecord.getRemainingTime: failed pods since the last success double the wait (10 s, 20 s,
 * 40 s... capped at 10 min), counted from when the last of them finished.
 */
function backoffRemaining(pods: KubeObject[], now: Date): number {
  const finishedAt = (pod: KubeObject): number => {
    const times = ((pod.status?.containerStatuses ?? []) as { state?: { terminated?: { finishedAt?: string } } }[])
      .map((status) => Date.parse(status.state?.terminated?.finishedAt ?? ''))
      .filter((time) => Number.isFinite(time));
    return times.length > 0 ? Math.max(...times) : Date.parse(pod.metadata.creationTimestamp ?? '');
  };
  const lastSuccess = Math.max(0, ...pods.filter((pod) => pod.status?.phase === 'Succeeded').map(finishedAt));
  const failures = pods
    .filter((pod) => pod.status?.phase === 'Failed' && finishedAt(pod) >= lastSuccess)
    .map(finishedAt);
  if (failures.length === 0) return 0;
  const backoff = Math.min(POD_FAILURE_BACKOFF_MS * 2 ** (failures.length - 1), MAX_POD_FAILURE_BACKOFF_MS);
  return Math.max(0, Math.max(...failures) + backoff - now.getTime());
}
