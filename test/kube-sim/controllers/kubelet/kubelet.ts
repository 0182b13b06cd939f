// The kubelets of all simulated nodes: one PodWorker per pod bound to a known node. Node-level
// state the real kubelet keeps (pulled images, image and restart back-off) lives here.

import type { SimClock } from '../../clock.js';
import { kubeletAtLeast, type Scenario } from '../../scenario.js';
import type { Store } from '../../store.js';
import type { KubeObject, StoreEvent } from '../../types.js';
import type { EventRecorder } from '../events.js';
import { Backoff } from './backoff.js';
import { SimulatedRegistry } from './images.js';
import { PodWorker, type KubeletServices } from './pod-worker.js';

export class Kubelets {
  private readonly workers = new Map<string, PodWorker>();
  private readonly images = new Map<string, Set<string>>();
  private readonly nextIp = new Map<string, number>();
  private readonly services: KubeletServices;
  private readonly pendingStarts = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
    recorder: EventRecorder,
    private readonly scenario: Scenario,
  ) {
    const timing = scenario.timing;
    this.services = {
      store,
      clock,
      recorder,
      registry: new SimulatedRegistry(scenario),
      timing,
      legacyBackOffMessage: !kubeletAtLeast(scenario, 32),
      imageBackoff: new Backoff(timing.imageBackOffInitialMs, timing.imageBackOffMaxMs),
      crashBackoff: new Backoff(timing.crashBackOffInitialMs, timing.crashBackOffMaxMs),
      imagesOn: (node) => {
        let set = this.images.get(node);
        if (!set) this.images.set(node, (set = new Set()));
        return set;
      },
    };
  }

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    for (const pod of this.store.list('Pod')) this.maybeStart(pod);
  }

  stop(): void {
    this.unsubscribe?.();
    for (const cancel of this.pendingStarts) cancel();
    for (const worker of this.workers.values()) worker.stop();
    this.workers.clear();
  }

  private onEvent({ type, object }: StoreEvent): void {
    if (object.kind !== 'Pod') return;
    const uid = object.metadata.uid ?? '';
    if (type === 'DELETED') {
      this.workers.get(uid)?.onDeleted(object);
      this.workers.delete(uid);
      return;
    }
    if (object.metadata.deletionTimestamp) {
      const worker = this.workers.get(uid);
      // A pod no kubelet runs has nothing to stop: remove it at once.
      if (worker) worker.terminate(object);
      else this.store.delete('Pod', object.metadata.namespace ?? 'default', object.metadata.name);
      return;
    }
    // Someone else wrote the pod (a readiness gate's condition): the status manager syncs again.
    const worker = this.workers.get(uid);
    if (worker && type === 'MODIFIED' && object.spec?.readinessGates) worker.refresh();
    this.maybeStart(object);
  }

  private maybeStart(pod: KubeObject): void {
    const uid = pod.metadata.uid ?? '';
    const nodeName: string | undefined = pod.spec?.nodeName;
    if (!nodeName || this.workers.has(uid)) return;
    const nodeIndex = this.scenario.nodes.findIndex((node) => node.name === nodeName);
    if (nodeIndex < 0) return;
    const ipSuffix = (this.nextIp.get(nodeName) ?? 1) + 1;
    this.nextIp.set(nodeName, ipSuffix > 254 ? 1 : ipSuffix);
    const worker = new PodWorker(
      pod,
      nodeName,
      hostIpOf(nodeIndex),
      `10.244.${nodeIndex + 1}.${ipSuffix}`,
      this.services,
    );
    this.workers.set(uid, worker);
    // The kubelet learns about the binding through its watch a moment later.
    const cancel = this.clock.after(this.scenario.timing.controllerStepMs, () => {
      this.pendingStarts.delete(cancel);
      if (this.workers.get(uid) === worker) worker.start();
    });
    this.pendingStarts.add(cancel);
  }
}

export function hostIpOf(nodeIndex: number): string {
  return `172.18.0.${nodeIndex + 2}`;
}
