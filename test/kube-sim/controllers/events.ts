// Records Events the way the real components do, so `kubectl get events` and kguard's diagnosis
// see the same objects as on a real cluster.
//
// Two shapes exist on a real 1.32 cluster:
// - the kubelet and the controller-manager (deployment-controller, replicaset-controller) use the
//   core/v1 recorder: `source {component, host}`, `firstTimestamp` / `lastTimestamp`, and a repeat
//   of the same (object, type, reason, message, source) bumps `count` on the existing Event;
// - the scheduler uses the events.k8s.io/v1 recorder: read through core/v1 it has `source: {}`,
//   null first/lastTimestamp, a microsecond `eventTime`, `action`, `reportingComponent:
//   default-scheduler`, and repeats show up as `series {count, lastObservedTime}`.

import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  component: string;
  host?: string;
}

export class EventRecorder {
  /** aggregation key → Event name */
  private readonly recorded = new Map<string, string>();
  private lastNanos = 0n;

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
  ) {}

  /** core/v1 Event, aggregated on repeats (kubelet, deployment-controller, replicaset-controller). */
  record(
    involved: KubeObject,
    source: EventSource,
    type: EventType,
    reason: string,
    message: string,
    fieldPath?: string,
  ): void {
    const involvedObject = referenceTo(involved, fieldPath);
    const namespace = involved.metadata.namespace ?? 'default';
    const key = JSON.stringify([
      source.component,
      source.host ?? '',
      involvedObject.kind,
      namespace,
      involvedObject.name,
      involvedObject.uid,
      fieldPath ?? '',
      type,
      reason,
      message,
    ]);
    const now = this.clock.nowIso();
    this.aggregate(
      key,
      involved,
      (existing) => {
        existing.count = Number(existing.count ?? 1) + 1;
        existing.lastTimestamp = now;
      },
      {
        involvedObject,
        reason,
        message,
        source: source.host ? { component: source.component, host: source.host } : { component: source.component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: source.component,
        reportingInstance: source.host ?? '',
      },
    );
  }

  /** events.k8s.io/v1 Event as core/v1 shows it (the scheduler). Repeats become a `series`. */
  recordSeries(
    involved: KubeObject,
    reportingComponent: string,
    reportingInstance: string,
    action: string,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    const involvedObject = referenceTo(involved);
    const key = JSON.stringify([reportingComponent, involvedObject.uid, action, type, reason, message]);
    this.aggregate(
      key,
      involved,
      (existing) => {
        const previous = existing.series as { count?: number } | undefined;
        existing.series = { count: (previous?.count ?? 1) + 1, lastObservedTime: microTime(this.clock.now()) };
      },
      {
        involvedObject,
        reason,
        message,
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        eventTime: microTime(this.clock.now()),
        action,
        type,
        reportingComponent,
        reportingInstance,
      },
    );
  }

  /** A repeat of an Event already recorded under `key` updates it; a new one is created. */
  private aggregate(
    key: string,
    involved: KubeObject,
    repeat: (existing: KubeObject) => void,
    fields: Record<string, unknown>,
  ): void {
    const namespace = involved.metadata.namespace ?? 'default';
    const existingName = this.recorded.get(key);
    const existing = existingName ? this.store.get('Event', namespace, existingName) : undefined;
    if (existing) {
      repeat(existing);
      delete existing.metadata.resourceVersion;
      this.store.update(existing);
      return;
    }
    const name = this.newName(involved.metadata.name);
    this.store.create({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace }, ...fields });
    this.recorded.set(key, name);
  }

  /** `<object>.<hex nanoseconds>`, as client-go names Events; bumped when two fall on the same instant. */
  private newName(objectName: string): string {
    let nanos = BigInt(this.clock.now().getTime()) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return `${objectName}.${nanos.toString(16)}`;
  }
}

export function referenceTo(obj: KubeObject, fieldPath?: string): Record<string, string> {
  const reference: Record<string, string> = {
    kind: obj.kind,
    namespace: obj.metadata.namespace ?? 'default',
    name: obj.metadata.name,
    uid: obj.metadata.uid ?? '',
    apiVersion: obj.apiVersion,
    resourceVersion: obj.metadata.resourceVersion ?? '',
  };
  if (fieldPath) reference.fieldPath = fieldPath;
  return reference;
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
