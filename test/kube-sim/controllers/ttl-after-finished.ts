// The TTL-after-finished controller (pkg/controller/ttlafterfinished/ttlafterfinished_controller.go):
// a Job with spec.ttlSecondsAfterFinished is deleted that many seconds after its Complete or Failed
// condition's lastTransitionTime (jobFinishTime), together with its pods. Upstream deletes with
// propagationPolicy Foreground and a uid precondition, so the Job that goes is the one that
// finished, never a newer one of the same name; here the store's cascade removes the pods at once.
// Jobs without the field are left alone, so it only acts when a test's Job asks for it.

import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { QueuedController } from './queued-controller.js';

export class TtlAfterFinishedController extends QueuedController {
  constructor(
    store: Store,
    private readonly clock: SimClock,
    stepMs: number,
  ) {
    super(store, clock, stepMs, 'ttl-after-finished-controller');
  }

  protected override queueExisting(): void {
    for (const job of this.store.list('Job')) this.onEvent({ type: 'ADDED', object: job, resourceVersion: 0 });
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind !== 'Job' || type === 'DELETED' || !needsCleanup(object)) return;
    this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const job = this.store.get('Job', namespace, name);
    if (!job || !needsCleanup(job)) return;
    const expireAt = finishTime(job)! + job.spec.ttlSecondsAfterFinished * 1000;
    const left = expireAt - this.clock.now().getTime();
    if (left > 0) {
      this.queue.add(key, left);
      return;
    }
    this.store.delete('Job', namespace, name);
  }
}

/** needsCleanup: a TTL is set, the Job has finished and is not already being deleted. */
function needsCleanup(job: KubeObject): boolean {
  return (
    typeof job.spec?.ttlSecondsAfterFinished === 'number' &&
    !job.metadata.deletionTimestamp &&
    finishTime(job) !== undefined
  );
}

/** jobFinishTime: when the Complete or Failed condition became True. */
function finishTime(job: KubeObject): number | undefined {
  const conditions = (job.status?.conditions ?? []) as { type: string; status: string; lastTransitionTime?: string }[];
  const finished = conditions.find(
    (condition) => (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True',
  );
  return finished?.lastTransitionTime ? Date.parse(finished.lastTransitionTime) : undefined;
}
