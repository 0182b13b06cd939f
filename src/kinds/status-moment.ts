// Which moment a custom resource's status speaks for: kguard's own write (the apply, or the
// restore), or the spec before it. A controller answers a new generation some time after the
// write; until then the status on the object is the one it wrote for the previous spec.
//
// - A kind that reports the generation it judged (status.observedGeneration, a condition's own
//   observedGeneration as metav1.Condition has it, a route parent's conditions) says so itself:
//   nothing is judged, failure rules included, until it reaches the generation kguard wrote.
// - A kind that does not (ExternalSecret, KEDA ScaledObject, cert-manager Issuers as many versions
//   write them, Knative samples): its status counts only once it was written after kguard's write.
//   "Written after" is read from what the API server gives for free on every read, cheapest first:
//   * resourceVersion: every write changes it (apimachinery: "opaque", equality only), so the one
//     kguard's write left tells whether anything wrote since; alone it cannot tell a status write
//     from another writer's label.
//   * the status itself: a status that differs from the one kguard's write answered with was
//     written since. A controller whose answer equals the standing status writes nothing: the API
//     server drops a no-op update and does not bump the managedFields time of it either
//     (fieldmanager's IgnoreManagedFieldsTimestampsTransformer, Kubernetes 1.27); only the
//     --status-grace wait ends that case.
//   * everything but status, resourceVersion and managedFields unchanged while resourceVersion
//     moved: the write was to the status subresource (a status write cannot touch anything else).
//   Not used: the managedFields entry of `subresource: status` carries a time to the second only,
//   as does a condition's lastTransitionTime, which moves only when a condition flips: neither
//   tells a write in the same second as kguard's apart from one before it. Pure.
import { isDeepStrictEqual } from 'node:util';
import { type KubeObject, valueAt } from '../objects/model.js';

interface WithStatus {
  metadata: { generation?: number };
  status?: Record<string, unknown>;
}

interface GenerationCondition {
  type?: string;
  observedGeneration?: number;
}

/** Whether the status names the generation it was written for anywhere kguard reads it. */
export function reportsGeneration(object: unknown, each?: string): boolean {
  const status = (object as WithStatus).status;
  if (!status) return false;
  if (numericGeneration(status.observedGeneration) !== undefined) return true;
  if (conditionsOf(status).some((condition) => typeof condition.observedGeneration === 'number')) return true;
  if (each === undefined) return false;
  const entries = valueAt(object, each);
  return (
    Array.isArray(entries) &&
    entries.some((entry) => conditionsOf(entry).some((condition) => typeof condition.observedGeneration === 'number'))
  );
}

/**
 * The generation the status speaks for: status.observedGeneration (a number, or a numeric string
 * as Argo Rollouts writes it); when that is below zero (Flux writes -1 until a first reconcile
 * succeeds, fluxcd/pkg runtime/patch) or behind, the newest generation a condition names.
 */
export function statusGeneration(object: unknown): number | undefined {
  const status = (object as WithStatus).status;
  if (!status) return undefined;
  const top = numericGeneration(status.observedGeneration);
  const byConditions = conditionsOf(status)
    .map((condition) => condition.observedGeneration)
    .filter((generation): generation is number => typeof generation === 'number');
  const newest = byConditions.length > 0 ? Math.max(...byConditions) : undefined;
  if (top === undefined) return newest;
  return newest !== undefined && newest > top ? newest : top;
}

/** Whether anything was written to the object's status since kguard's write left it as `written`. */
export function statusWrittenSince(written: KubeObject, live: KubeObject): boolean {
  if (written.metadata.uid !== undefined && live.metadata.uid !== written.metadata.uid) return true;
  if (live.metadata.resourceVersion === written.metadata.resourceVersion) return false;
  const statusOf = (object: KubeObject) => (object as { status?: unknown }).status ?? {};
  if (!isDeepStrictEqual(statusOf(written), statusOf(live))) return true;
  return isDeepStrictEqual(apartFromStatus(written), apartFromStatus(live));
}

/** Whether kguard's write gave the object a new generation (a spec change its controller must answer). */
export function writeChangedGeneration(written: KubeObject, generationBefore: number | undefined): boolean {
  return generationBefore === undefined || written.metadata.generation !== generationBefore;
}

function apartFromStatus(object: KubeObject): unknown {
  const { status: _status, ...rest } = object as KubeObject & { status?: unknown };
  const { resourceVersion: _version, managedFields: _fields, ...metadata } = rest.metadata as Record<string, unknown>;
  return { ...rest, metadata };
}

function numericGeneration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

function conditionsOf(holder: unknown): GenerationCondition[] {
  const conditions = (holder as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as GenerationCondition[]) : [];
}
