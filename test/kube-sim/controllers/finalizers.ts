// Controllers that guard their objects with a finalizer (scenario `finalizers`), like the cloud
// service controller's `service.kubernetes.io/load-balancer-cleanup` on LoadBalancer Services
// (k8s.io/cloud-provider controllers/service/controller.go: addFinalizer when a load balancer is
// needed, removeFinalizer once it is deleted or no longer wanted). A short while after an object
// of the kind is created or updated and matches, the finalizer is added; once the object is being
// deleted (deletionTimestamp) or stops matching, the finalizer is taken off after `removeAfterMs`,
// and the API server then removes the object (store.ts). `removeAfterMs: -1` is a controller that
// never comes back: the object stays Terminating.

import type { SimClock } from '../clock.js';
import type { FinalizerWriter } from '../scenario-crowd.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { ApiWriter } from './api-writer.js';
import { WorkQueue, splitKey } from './workqueue.js';

const DEFAULT_MANAGER = 'kube-controller-manager';

export class FinalizerControllers {
  private readonly queues: WorkQueue[] = [];
  private readonly writer: ApiWriter;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    clock: SimClock,
    private readonly writers: FinalizerWriter[],
  ) {
    this.writer = new ApiWriter(store, clock);
    this.queues = writers.map(
      (writer) => new WorkQueue(clock, 0, (key) => this.sync(writer, key), `finalizer ${writer.finalizer}`),
    );
  }

  start(): void {
    if (this.writers.length === 0) return;
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    for (const writer of this.writers)
      for (const obj of this.store.list(writer.kind)) this.onEvent({ type: 'ADDED', object: obj, resourceVersion: 0 });
  }

  stop(): void {
    this.unsubscribe?.();
    for (const queue of this.queues) queue.stop();
  }

  private onEvent({ type, object }: StoreEvent): void {
    if (type === 'DELETED') return;
    this.writers.forEach((writer, index) => {
      if (object.kind !== writer.kind) return;
      const has = (object.metadata.finalizers ?? []).includes(writer.finalizer);
      const wanted = wants(writer, object);
      const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      if (wanted && !has) this.queues[index]!.add(key, writer.addAfterMs ?? 500);
      else if (!wanted && has && (writer.removeAfterMs ?? 1000) >= 0)
        this.queues[index]!.add(key, writer.removeAfterMs ?? 1000);
    });
  }

  private sync(writer: FinalizerWriter, key: string): void {
    const [namespace, name] = splitKey(key);
    const obj = this.store.get(writer.kind, namespace, name);
    if (!obj) return;
    const finalizers = obj.metadata.finalizers ?? [];
    const has = finalizers.includes(writer.finalizer);
    const wanted = wants(writer, obj);
    if (wanted === has) return;
    obj.metadata.finalizers = wanted
      ? [...finalizers, writer.finalizer]
      : finalizers.filter((finalizer) => finalizer !== writer.finalizer);
    if (obj.metadata.finalizers.length === 0) delete obj.metadata.finalizers;
    this.writer.update(writer.manager ?? DEFAULT_MANAGER, obj);
  }
}

/** Whether the controller manages this object now: it matches and is not being deleted. */
function wants(writer: FinalizerWriter, obj: KubeObject): boolean {
  if (obj.metadata.deletionTimestamp) return false;
  return Object.entries(writer.match ?? {}).every(([path, value]) => String(valueAt(obj, path)) === value);
}

function valueAt(obj: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (current, part) =>
        current && typeof current === 'object' ? (current as Record<string, unknown>)[part] : undefined,
      obj,
    );
}
