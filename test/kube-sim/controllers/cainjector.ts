// cert-manager's cainjector (pkg/controller/cainjector/reconciler.go and injectors.go), when the
// scenario turns it on (`caInjector`): ValidatingWebhookConfigurations and
// MutatingWebhookConfigurations (every webhook's clientConfig.caBundle), APIServices
// (spec.caBundle) and CustomResourceDefinitions with a Webhook conversion
// (spec.conversion.webhook.clientConfig.caBundle) annotated `cert-manager.io/inject-ca-from:
// <namespace>/<certificate>` get the CA bundle written a moment after each create or update,
// with a plain Update whose field manager is `cainjector` (its User-Agent; the ServerSideApply
// feature gate, off by default, would apply as cert-manager-cainjector). Objects being deleted
// are left alone. The bundle is the scenario's, not read from a Certificate's Secret.

import type { SimClock } from '../clock.js';
import type { CaInjectorKnobs } from '../scenario-crowd.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { ApiWriter } from './api-writer.js';
import { WorkQueue, splitKey } from './workqueue.js';

export const INJECT_CA_FROM = 'cert-manager.io/inject-ca-from';
const MANAGER = 'cainjector';
const INJECTABLE = [
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'CustomResourceDefinition',
];

export class CaInjector {
  private readonly queue: WorkQueue | undefined;
  private readonly writer: ApiWriter;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    clock: SimClock,
    private readonly knobs: CaInjectorKnobs | undefined,
  ) {
    this.writer = new ApiWriter(store, clock);
    if (knobs) this.queue = new WorkQueue(clock, knobs.delayMs, (key) => this.sync(key), 'cainjector');
  }

  start(): void {
    if (!this.queue) return;
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    for (const kind of INJECTABLE)
      for (const obj of this.store.list(kind)) this.onEvent({ type: 'ADDED', object: obj, resourceVersion: 0 });
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue?.stop();
  }

  private onEvent({ type, object }: StoreEvent): void {
    if (type === 'DELETED' || !INJECTABLE.includes(object.kind) || !object.metadata.annotations?.[INJECT_CA_FROM])
      return;
    this.queue!.add(`${object.kind}/${object.metadata.name}`);
  }

  private sync(key: string): void {
    const [kind, name] = splitKey(key);
    const target = this.store.get(kind, '', name);
    if (!target || target.metadata.deletionTimestamp || !target.metadata.annotations?.[INJECT_CA_FROM]) return;
    const injected = structuredClone(target);
    setCA(injected, this.knobs!.caBundle);
    if (JSON.stringify(injected) === JSON.stringify(target)) return;
    this.writer.update(MANAGER, injected);
  }
}

/** injectors.go SetCA per kind. */
function setCA(obj: KubeObject, caBundle: string): void {
  switch (obj.kind) {
    case 'APIService':
      obj.spec = { ...(obj.spec ?? {}), caBundle };
      return;
    case 'CustomResourceDefinition': {
      const conversion = obj.spec?.conversion;
      if (conversion?.strategy !== 'Webhook') return;
      conversion.webhook ??= {};
      conversion.webhook.clientConfig = { ...(conversion.webhook.clientConfig ?? {}), caBundle };
      return;
    }
    default:
      for (const webhook of (obj['webhooks'] ?? []) as { clientConfig?: Record<string, unknown> }[]) {
        webhook.clientConfig = { ...(webhook.clientConfig ?? {}), caBundle };
      }
  }
}
