// A stand-in for the controllers custom resources have (cert-manager, Flux, an operator): it
// reconciles every object of a kind a CustomResourceDefinition serves and reports in its status
// what the kstatus conventions read: observedGeneration, and a Ready condition (metav1.Condition
// shape, with observedGeneration). What it reports is set per object by an annotation:
//   sim.kguard.dev/ready: "true" (default) | "false" | "stalled"   (stalled: Stalled True, Ready False)
//                         | "silent"   (writes no status at all: an operator that is not running, or never reports)
//   sim.kguard.dev/ready-reason, sim.kguard.dev/ready-message       (the reason and message of a False)
//   sim.kguard.dev/reconcile-after: "<seconds>"   (the first reconcile of an object with no status comes
//                         this many simulated seconds late: a busy controller, as in fluxcd/kustomize-controller#387)
//   sim.kguard.dev/answer-after: "<seconds>"   (every new generation is answered this many simulated
//                         seconds after the write: until then the status written for the previous spec stands)
//   sim.kguard.dev/observed-generation: "false"   (the status names no generation, neither at the top nor
//                         in a condition, as ExternalSecret, KEDA and many cert-manager versions write it)
//   sim.kguard.dev/status: '<JSON>'   (the status to write, as it is: a real controller's, e.g. a case of
//                         Argo CD's health tests; its generations (top level, conditions, route parents',
//                         Gateway listeners') follow the object's, or are removed, per the knob above: stamped())

import type { SimClock } from '../clock.js';
import { resourceTypeForKind } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { QueuedController } from './queued-controller.js';

const READY_KNOB = 'sim.kguard.dev/ready';
const LATE_KNOB = 'sim.kguard.dev/reconcile-after';
const ANSWER_KNOB = 'sim.kguard.dev/answer-after';
const GENERATION_KNOB = 'sim.kguard.dev/observed-generation';
const STATUS_KNOB = 'sim.kguard.dev/status';

interface Condition {
  type: string;
  status: 'True' | 'False';
  observedGeneration: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export class CustomResourceReconciler extends QueuedController {
  /** The generation each object's status was last written for (by key). */
  private readonly answered = new Map<string, number | undefined>();

  constructor(
    store: Store,
    private readonly clock: SimClock,
    stepMs: number,
  ) {
    super(store, clock, stepMs, 'custom-resource-reconciler');
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (type === 'DELETED' || !resourceTypeForKind(object.kind)?.custom) return;
    const late = Number(object.metadata.annotations?.[LATE_KNOB] ?? 0);
    const answer = Number(object.metadata.annotations?.[ANSWER_KNOB] ?? 0);
    const delayMs =
      object.status === undefined && Number.isFinite(late) && late > 0
        ? late * 1000
        : Number.isFinite(answer) && answer > 0 && this.answered.get(keyOf(object)) !== object.metadata.generation
          ? answer * 1000
          : undefined;
    this.queue.add(keyOf(object), delayMs);
  }

  protected override sync(key: string): void {
    const [kind, namespace, name] = JSON.parse(key) as [string, string, string];
    if (!resourceTypeForKind(kind)?.custom) return;
    const object = this.store.get(kind, namespace, name);
    if (!object) return;
    if (object.metadata.annotations?.[READY_KNOB] === 'silent') return;
    const generation = object.metadata.generation ?? 1;
    const withGeneration = object.metadata.annotations?.[GENERATION_KNOB] !== 'false';
    const given = object.metadata.annotations?.[STATUS_KNOB];
    const status = given
      ? stamped(JSON.parse(given) as Record<string, unknown>, withGeneration ? generation : undefined)
      : stamped(
          {
            ...(object.status ?? {}),
            observedGeneration: generation,
            conditions: this.conditionsFor(object, generation),
          },
          withGeneration ? generation : undefined,
        );
    this.answered.set(key, generation);
    if (JSON.stringify(object.status ?? {}) === JSON.stringify(status)) return;
    this.store.updateStatus({ ...object, metadata: { ...object.metadata, resourceVersion: undefined }, status });
  }

  /** Conditions keep their lastTransitionTime while their status stays. */
  private conditionsFor(object: KubeObject, generation: number): Condition[] {
    const knob = object.metadata.annotations?.[READY_KNOB] ?? 'true';
    const reason = object.metadata.annotations?.['sim.kguard.dev/ready-reason'] ?? 'ReconcileFailed';
    const message =
      object.metadata.annotations?.['sim.kguard.dev/ready-message'] ??
      `the simulated controller cannot reconcile generation ${generation}`;
    const previous = (object.status?.conditions ?? []) as Condition[];
    const condition = (type: string, status: 'True' | 'False', why: string, text: string): Condition => {
      const before = previous.find((candidate) => candidate.type === type);
      const since = before && before.status === status ? before.lastTransitionTime : this.clock.nowIso();
      return { type, status, observedGeneration: generation, lastTransitionTime: since, reason: why, message: text };
    };
    if (knob === 'stalled')
      return [condition('Stalled', 'True', reason, message), condition('Ready', 'False', reason, message)];
    if (knob === 'false') return [condition('Ready', 'False', reason, message)];
    return [condition('Ready', 'True', 'Reconciled', `generation ${generation} reconciled`)];
  }
}

function keyOf(object: KubeObject): string {
  return JSON.stringify([object.kind, object.metadata.namespace ?? '', object.metadata.name]);
}

/**
 * The status as the object's controller would write it for `generation`, or with no generation
 * named at all (`undefined`). The places a status names a generation: status.observedGeneration
 * (a number, or a string as Argo Rollouts v1 writes it), each condition's observedGeneration
 * (metav1.Condition), and each condition of a Gateway API route's status.parents[] and a
 * Gateway's status.listeners[] (apis/v1/shared_types.go RouteParentStatus, gateway_types.go
 * ListenerStatus: metav1.Condition each). A given status that names generations (a case of Argo
 * CD's health tests, written for its own object) keeps them relative to the newest it names, so a
 * condition written for an older generation (a stale route parent, Flux's Released) stays older,
 * never below 1, and Flux's -1 (no successful reconcile yet, fluxcd/pkg runtime/patch) stays -1;
 * one that names none gets `generation` everywhere.
 */
function stamped(status: Record<string, unknown>, generation: number | undefined): Record<string, unknown> {
  const named = namedGenerations(status).filter((value) => value >= 0);
  const newest = named.length > 0 ? Math.max(...named) : undefined;
  const restamp = (value: unknown): unknown => {
    if (generation === undefined) return undefined;
    const number = generationOf(value);
    const next =
      newest === undefined
        ? generation
        : number === undefined || number < 0
          ? number
          : Math.max(1, number + generation - newest);
    if (next === undefined) return value;
    return typeof value === 'string' ? String(next) : next;
  };
  const conditions = (list: unknown): unknown =>
    Array.isArray(list)
      ? (list as Array<Record<string, unknown>>).map(({ observedGeneration, ...condition }) => {
          const next =
            newest !== undefined && observedGeneration === undefined ? undefined : restamp(observedGeneration);
          return next === undefined ? condition : { ...condition, observedGeneration: next };
        })
      : list;
  const entries = (list: unknown): unknown =>
    Array.isArray(list)
      ? (list as Array<Record<string, unknown>>).map((entry) =>
          'conditions' in entry ? { ...entry, conditions: conditions(entry.conditions) } : entry,
        )
      : list;
  const { observedGeneration, ...rest } = status;
  const out: Record<string, unknown> = { ...rest };
  if ('conditions' in rest) out.conditions = conditions(rest.conditions);
  if ('parents' in rest) out.parents = entries(rest.parents);
  if ('listeners' in rest) out.listeners = entries(rest.listeners);
  const top = newest !== undefined && observedGeneration === undefined ? undefined : restamp(observedGeneration);
  return top === undefined ? out : { ...out, observedGeneration: top };
}

/** Every generation a status names (status-moment.ts reads the same places). */
function namedGenerations(status: Record<string, unknown>): number[] {
  const ofConditions = (list: unknown): unknown[] =>
    Array.isArray(list)
      ? (list as Array<Record<string, unknown>>).map((condition) => condition.observedGeneration)
      : [];
  const ofEntries = (list: unknown): unknown[] =>
    Array.isArray(list)
      ? (list as Array<Record<string, unknown>>).flatMap((entry) => ofConditions(entry.conditions))
      : [];
  return [
    status.observedGeneration,
    ...ofConditions(status.conditions),
    ...ofEntries(status.parents),
    ...ofEntries(status.listeners),
  ]
    .map(generationOf)
    .filter((value): value is number => value !== undefined);
}

function generationOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}
