// What the simulator's queued controllers share, as client-go's controllers share an informer and
// a work queue (k8s.io/client-go/util/workqueue): store events reach onEvent, which queues keys;
// the queue syncs each key a step later; start() subscribes and queues what the store already
// holds, stop() ends both.

import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { EventRecorder } from './events.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { WorkQueue, namespacedKey } from './workqueue.js';

export abstract class QueuedController {
  protected readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(
    protected readonly store: Store,
    clock: SimClock,
    stepMs: number,
    name: string,
  ) {
    this.queue = new WorkQueue(clock, stepMs, (key) => this.sync(key), name);
  }

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    this.queueExisting();
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  /** At start, what the store already holds (the informer's initial list); by default nothing. */
  protected queueExisting(): void {}

  /** Every object of a kind that `wanted` accepts, queued by its key. */
  protected queueEach(kind: string, wanted: (object: KubeObject) => boolean = () => true): void {
    for (const object of this.store.list(kind))
      if (wanted(object)) this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
  }

  /** An object of `kind` (but for its deletion), or a pod it controls: its key is queued. */
  protected queueWithPods(type: StoreEvent['type'], object: KubeObject, kind: string): void {
    if (object.kind === kind) {
      if (type !== 'DELETED') this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
    } else if (object.kind === 'Pod') {
      const owner = object.metadata.ownerReferences?.find((ref) => ref.controller && ref.kind === kind);
      if (owner) this.queue.add(namespacedKey(object.metadata.namespace, owner.name));
    }
  }

  protected abstract onEvent(event: StoreEvent): void;
  protected abstract sync(key: string): void;
}

/**
 * A controller of one kind, as kube-controller-manager runs them: it reads the clock, records
 * events, and at start queues every object of its kind (its informer's initial list).
 */
export abstract class KindController extends QueuedController {
  constructor(
    store: Store,
    protected readonly clock: SimClock,
    protected readonly recorder: EventRecorder,
    stepMs: number,
    name: string,
    private readonly kind: string,
  ) {
    super(store, clock, stepMs, name);
  }

  protected override queueExisting(): void {
    this.queueEach(this.kind);
  }
}
