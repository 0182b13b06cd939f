// Writes by the simulated controllers that a real cluster shows in managedFields: the HPA's
// /scale writes, a controller's finalizers, cainjector's caBundle. They go through the API
// server's own update path (defaults, validation, field manager), as a client-go Update would,
// so the object records the writer (`kube-controller-manager`, subresource `scale`; `cainjector`).
// The other simulated controllers write through the store and own no fields.

import type { SimClock } from '../clock.js';
import { resourceTypeForKind } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { writeScale } from '../server/subresources.js';
import { createObject, replaceObject, type WriteRequest } from '../server/writes.js';

export class ApiWriter {
  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
  ) {}

  /** POST of a new object. */
  create(manager: string, obj: KubeObject): KubeObject {
    const { name: _name, ...route } = this.routeOf(obj);
    return createObject(this.store, route, obj, this.request(manager)).body as KubeObject;
  }

  /** PUT of the whole object (its resourceVersion, if set, is the precondition: 409 when stale). */
  update(manager: string, obj: KubeObject): KubeObject {
    return replaceObject(this.store, this.routeOf(obj), obj, this.request(manager)).body as KubeObject;
  }

  /** PUT of the status subresource. */
  updateStatus(manager: string, obj: KubeObject): KubeObject {
    return replaceObject(this.store, { ...this.routeOf(obj), subresource: 'status' }, obj, this.request(manager))
      .body as KubeObject;
  }

  /** PUT of the scale subresource: what the HPA controller's scale client sends. */
  scale(manager: string, target: KubeObject, replicas: number): void {
    const route = { ...this.routeOf(target), subresource: 'scale' };
    writeScale(
      this.store,
      route,
      {
        body: {
          kind: 'Scale',
          apiVersion: 'autoscaling/v1',
          metadata: { name: target.metadata.name },
          spec: { replicas },
        },
      },
      this.request(manager),
    );
  }

  private routeOf(obj: KubeObject) {
    const type = resourceTypeForKind(obj.kind);
    if (!type) throw new Error(`kind ${obj.kind} is not served`);
    return {
      type,
      namespace: type.namespaced ? (obj.metadata.namespace ?? 'default') : undefined,
      name: obj.metadata.name,
    };
  }

  private request(manager: string): WriteRequest {
    return {
      dryRun: false,
      fieldValidation: 'Ignore',
      fieldManager: { manager, now: this.clock.nowIso(), force: false },
    };
  }
}
