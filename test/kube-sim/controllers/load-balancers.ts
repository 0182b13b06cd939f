// Who writes status.loadBalancer.ingress (scenario `loadBalancers`, on by default):
//
// - the cloud provider's service controller (k8s.io/cloud-provider controllers/service/
//   controller.go): for a Service that wantsLoadBalancer (type LoadBalancer and no
//   spec.loadBalancerClass: "if LoadBalancerClass is set, the user does not want the default
//   cloud-provider Load Balancer"), a while after each create or update it records Normal
//   EnsuringLoadBalancer "Ensuring load balancer", writes the address the cloud gave (an ip from
//   203.0.113.0/24, TEST-NET-3) into status and records Normal EnsuredLoadBalancer "Ensured load
//   balancer". When the cloud refuses, it records Warning SyncLoadBalancerFailed "Error syncing
//   load balancer: failed to ensure load balancer: <the cloud's error>" and retries with the
//   service queue's back-off (5 s doubling to 300 s). A Service that stops being a LoadBalancer
//   gets its status emptied (the deleteLoadBalancer path). Services with a loadBalancerClass are
//   never touched: in the simulator no controller serves any class, as on a cluster without one.
// - an ingress controller, standing for ingress-nginx and its kind: it serves the Ingresses of
//   every IngressClass whose spec.controller is `kube-sim.kguard.dev/ingress-controller` (an
//   Ingress names its class by spec.ingressClassName or the kubernetes.io/ingress.class
//   annotation) and writes its own address (198.51.100.0/24, TEST-NET-2) into their status a
//   while after each change. Ingresses of other classes are some other controller's, which the
//   simulator does not run: like Contour or Traefik by default, nothing writes their status.
//
// A test makes either never give an address with the annotation `sim.kguard.dev/load-balancer:
// never` on the Service or Ingress (a cloud out of addresses, a controller that rejects the rule).

import type { SimClock } from '../clock.js';
import type { LoadBalancerKnobs } from '../scenario-crowd.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { ApiWriter } from './api-writer.js';
import type { EventRecorder } from './events.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { QueuedController } from './queued-controller.js';

export const SIM_INGRESS_CONTROLLER = 'kube-sim.kguard.dev/ingress-controller';
export const LOAD_BALANCER_ANNOTATION = 'sim.kguard.dev/load-balancer';
const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
/** controller.go minRetryDelay / maxRetryDelay. */
const MIN_RETRY_MS = 5_000;
const MAX_RETRY_MS = 300_000;

type Addresses = Array<{ ip?: string; hostname?: string }>;

function addressesOf(obj: KubeObject): Addresses {
  return ((obj.status?.loadBalancer?.ingress ?? []) as Addresses).filter((entry) => entry.ip || entry.hostname);
}

function refused(obj: KubeObject): boolean {
  return obj.metadata.annotations?.[LOAD_BALANCER_ANNOTATION] === 'never';
}

export class ServiceLoadBalancerController extends QueuedController {
  private readonly writer: ApiWriter;
  private readonly retryMs = new Map<string, number>();
  private readonly provisioned = new Set<string>();
  private nextAddress = 10;

  constructor(
    store: Store,
    clock: SimClock,
    private readonly recorder: EventRecorder,
    private readonly knobs: LoadBalancerKnobs,
  ) {
    super(store, clock, knobs.provisionMs, 'service-controller');
    this.writer = new ApiWriter(store, clock);
  }

  override start(): void {
    if (this.knobs.cloud) super.start();
  }

  protected override queueExisting(): void {
    for (const service of this.store.list('Service'))
      this.onEvent({ type: 'ADDED', object: service, resourceVersion: 0 });
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind !== 'Service' || type === 'DELETED') return;
    const key = namespacedKey(object.metadata.namespace, object.metadata.name);
    if (wantsLoadBalancer(object) || this.provisioned.has(key)) this.queue.add(key);
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const service = this.store.get('Service', namespace, name);
    if (!service || service.metadata.deletionTimestamp) {
      this.provisioned.delete(key);
      return;
    }
    if (!wantsLoadBalancer(service)) {
      if (!this.provisioned.delete(key) || addressesOf(service).length === 0) return;
      this.writer.updateStatus('cloud-controller-manager', {
        ...structuredClone(service),
        status: { ...(service.status ?? {}), loadBalancer: {} },
      });
      this.recorder.record(
        service,
        { component: 'service-controller' },
        'Normal',
        'DeletedLoadBalancer',
        'Deleted load balancer',
      );
      return;
    }
    if (addressesOf(service).length > 0) return;
    this.recorder.record(
      service,
      { component: 'service-controller' },
      'Normal',
      'EnsuringLoadBalancer',
      'Ensuring load balancer',
    );
    if (refused(service)) {
      this.recorder.record(
        service,
        { component: 'service-controller' },
        'Warning',
        'SyncLoadBalancerFailed',
        `Error syncing load balancer: failed to ensure load balancer: the simulated cloud has no address to give (${LOAD_BALANCER_ANNOTATION}: never)`,
      );
      const delay = this.retryMs.get(key) ?? MIN_RETRY_MS;
      this.retryMs.set(key, Math.min(delay * 2, MAX_RETRY_MS));
      this.queue.add(key, delay);
      return;
    }
    this.retryMs.delete(key);
    const updated = structuredClone(service);
    updated.status = {
      ...(service.status ?? {}),
      loadBalancer: { ingress: [{ ip: `203.0.113.${this.nextAddress++}`, ipMode: 'VIP' }] },
    };
    this.writer.updateStatus('cloud-controller-manager', updated);
    this.provisioned.add(key);
    this.recorder.record(
      service,
      { component: 'service-controller' },
      'Normal',
      'EnsuredLoadBalancer',
      'Ensured load balancer',
    );
  }
}

/** controller.go wantsLoadBalancer. */
function wantsLoadBalancer(service: KubeObject): boolean {
  return (
    service.spec?.type === 'LoadBalancer' &&
    (service.spec.loadBalancerClass === undefined || service.spec.loadBalancerClass === null)
  );
}

export class IngressStatusController extends QueuedController {
  private readonly writer: ApiWriter;
  private readonly address: string;

  constructor(store: Store, clock: SimClock, knobs: LoadBalancerKnobs) {
    super(store, clock, knobs.provisionMs, 'ingress-controller');
    this.writer = new ApiWriter(store, clock);
    // The address of the controller's own LoadBalancer Service, which it publishes for every Ingress it serves.
    this.address = '198.51.100.10';
  }

  protected override queueExisting(): void {
    for (const ingress of this.store.list('Ingress'))
      this.onEvent({ type: 'ADDED', object: ingress, resourceVersion: 0 });
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (type === 'DELETED') return;
    if (object.kind === 'Ingress') this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
    // A class created after its Ingresses: they are served from then on.
    if (object.kind === 'IngressClass')
      for (const ingress of this.store.list('Ingress'))
        this.queue.add(namespacedKey(ingress.metadata.namespace, ingress.metadata.name));
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const ingress = this.store.get('Ingress', namespace, name);
    if (!ingress || ingress.metadata.deletionTimestamp || refused(ingress) || addressesOf(ingress).length > 0) return;
    const className = ingress.spec?.ingressClassName ?? ingress.metadata.annotations?.[LEGACY_CLASS_ANNOTATION];
    if (typeof className !== 'string') return;
    if (this.store.get('IngressClass', '', className)?.spec?.controller !== SIM_INGRESS_CONTROLLER) return;
    const updated = structuredClone(ingress);
    updated.status = { ...(ingress.status ?? {}), loadBalancer: { ingress: [{ ip: this.address }] } };
    this.writer.updateStatus('kube-sim-ingress-controller', updated);
  }
}
