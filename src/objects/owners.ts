// Whose field is it. A real cluster is crowded: an HPA writes a Deployment's replicas through
// /scale, the PV binder a claim's volumeName and its pv.kubernetes.io annotations, controllers
// add finalizers, cert-manager's cainjector writes caBundle, the scheduler binds a bare Pod.
// Such writes to fields this apply did not change are normal and are kept, by the verdict and by
// the restore alike; only a change to a field this apply changed is someone else's change that
// wins (it is never overwritten). Pure.
import { contentOf, summarizePaths } from './compare.js';
import type { FieldPath, KubeObject } from './model.js';

export type { FieldPath };

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** A cap on the paths one comparison lists: past it, the rest of a difference is its parent. */
const MAX_PATHS = 500;

/** Where two JSON values differ: leaves where both are objects (lists of equal length by index). */
export function differingPaths(a: unknown, b: unknown): FieldPath[] {
  const out: FieldPath[] = [];
  walk(a, b, [], out);
  return out;
}

function walk(a: unknown, b: unknown, path: Array<string | number>, out: FieldPath[]): void {
  if (same(a, b)) return;
  const objects = isContainer(a) && isContainer(b) && Array.isArray(a) === Array.isArray(b);
  if (!objects || out.length >= MAX_PATHS || (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)) {
    out.push(path);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (const [index, item] of a.entries()) walk(item, b[index], [...path, index], out);
    return;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort())
    walk(left[key], right[key], [...path, key], out);
}

/**
 * The fields this apply decided: for an object it changed, those that differ between the
 * pre-apply copy and the applied one; for an object it created, those its manifest sets (the
 * last-applied configuration of a client-side apply, the Apply managers' fields of a server-side
 * one); the whole object when neither can be told.
 */
export function fieldsOfApply(before: KubeObject | undefined, applied: KubeObject): FieldPath[] {
  if (before) {
    // A field an autoscaler wrote through /scale before the apply stays the autoscaler's: kubectl
    // apply puts the manifest's replicas back and the HPA restores its count at its next sync.
    const autoscaled = scaleOwnedFields(before);
    return differingPaths(contentOf(before), contentOf(applied)).filter(
      (field) => !autoscaled.some((owned) => within(field, owned)),
    );
  }
  return declaredFields(applied);
}

/**
 * The fields the manifest sets: the last-applied configuration of a client-side apply, the Apply
 * managers' fields of a server-side one; the whole object ([[]]) when neither can be told.
 */
function declaredFields(applied: KubeObject): FieldPath[] {
  const lastApplied = applied.metadata.annotations?.[LAST_APPLIED];
  if (lastApplied) {
    try {
      return leafPaths(contentOf(JSON.parse(lastApplied) as KubeObject));
    } catch {
      return [[]];
    }
  }
  const applyFields = (
    (applied.metadata.managedFields ?? []) as Array<{ operation?: string; subresource?: string; fieldsV1?: unknown }>
  )
    .filter((entry) => entry.operation === 'Apply' && entry.subresource === undefined)
    .flatMap((entry) => ownedPaths(entry.fieldsV1, []));
  return applyFields.length > 0 ? applyFields : [[]];
}

/** Every leaf of a manifest; a list is one leaf (its items have no identity here). */
function leafPaths(value: unknown, path: Array<string | number> = []): FieldPath[] {
  if (!isContainer(value) || Array.isArray(value)) return [path];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [path];
  return entries.flatMap(([key, item]) => leafPaths(item, [...path, key]));
}

/**
 * A server-side apply manager's fieldsV1 as paths: `f:name` fields are followed; at a list item
 * (`k:{…}`, `v:…`, `i:N`) the list itself counts as owned, which errs towards a conflict.
 */
function ownedPaths(fields: unknown, path: string[]): FieldPath[] {
  if (!isContainer(fields) || Array.isArray(fields)) return [path];
  const keys = Object.keys(fields as Record<string, unknown>).filter((key) => key !== '.');
  if (keys.length === 0) return [path];
  if (keys.some((key) => !key.startsWith('f:'))) return [path];
  return keys.flatMap((key) => ownedPaths((fields as Record<string, unknown>)[key], [...path, key.slice(2)]));
}

/**
 * The fields last written through the /scale subresource (managedFields entries with
 * `subresource: scale`): the HorizontalPodAutoscaler's spec.replicas (pkg/controller/podautoscaler
 * horizontal.go scales through /scale, as KEDA's HPA and `kubectl scale` do). They are the
 * autoscaler's: judged and restored without them.
 */
export function scaleOwnedFields(object: KubeObject | undefined): FieldPath[] {
  return ((object?.metadata.managedFields ?? []) as Array<{ subresource?: string; fieldsV1?: unknown }>)
    .filter((entry) => entry.subresource === 'scale' && entry.fieldsV1 !== undefined)
    .flatMap((entry) => ownedPaths(entry.fieldsV1, []))
    .filter((field) => field.length > 0);
}

/**
 * What a verdict says once about fields an autoscaler writes through /scale: those it wrote since
 * the apply, and those it owned before the apply (its managedFields entry with subresource scale)
 * that the manifest sets, which its next sync writes back whenever the apply sends them. The
 * second is known at the first look, whether or not the autoscaler writes before the verdict.
 */
export function autoscalerNote(
  applied: KubeObject,
  live: KubeObject | undefined,
  ours: readonly FieldPath[] | undefined,
  before?: KubeObject,
): string[] {
  if (!live || ours === undefined) return [];
  const sinceApply = scaleOwnedFields(live);
  const beforeApply = before ? scaleOwnedFields(before) : [];
  if (sinceApply.length === 0 && beforeApply.length === 0) return [];
  const declared = beforeApply.length > 0 ? declaredFields(applied) : [];
  const written = [
    ...differingPaths(contentOf(applied), contentOf(live)).filter((field) =>
      sinceApply.some((owned) => within(field, owned)),
    ),
    // The manifest sets a field the autoscaler owned before the apply: said whether or not this
    // apply wrote it (kubectl's three-way merge sends no replicas its last apply already set).
    ...beforeApply.filter((owned) =>
      declared.some((field) => field.length > 0 && (within(field, owned) || within(owned, field))),
    ),
  ];
  if (written.length === 0) return [];
  return [autoscalerText([...new Set(written.map(fieldName))])];
}

/** The one line that says an autoscaler owns a field. */
export function autoscalerText(fields: readonly string[]): string {
  return `${summarizePaths([...fields])} is written by an autoscaler through /scale: kguard judges and restores without it`;
}

/** Whether `field` is `owner` or lies inside it. */
function within(field: FieldPath, owner: FieldPath): boolean {
  return field.length >= owner.length && owner.every((segment, index) => field[index] === segment);
}

/** Whether two fields are the same, or one holds the other. */
export function overlaps(a: FieldPath, b: FieldPath): boolean {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}

/** Others' changes since the apply: all of them, and those that touch a field this apply changed. */
export function othersChanges(
  applied: KubeObject,
  live: KubeObject,
  ours: readonly FieldPath[] | undefined,
): { theirs: FieldPath[]; clashing: FieldPath[] } {
  const theirs = differingPaths(contentOf(applied), contentOf(live));
  // Without knowing the apply's own fields, every change is someone else's change that wins.
  const clashing = ours === undefined ? theirs : theirs.filter((field) => ours.some((own) => overlaps(own, field)));
  return { theirs, clashing };
}

/**
 * Someone else's change since kguard's apply: the object is gone or was replaced, or someone
 * else changed a field this apply changed (`ours`; without it, any field). Status and server
 * metadata are not a change (controllers write them all the time), nor are others' writes to
 * fields this apply left alone.
 */
export function changeSinceApply(
  applied: KubeObject,
  live: KubeObject | undefined,
  ours?: readonly FieldPath[],
): { state: 'gone' | 'conflict'; detail: string; paths: string[] } | undefined {
  if (!live) return { state: 'gone', detail: 'it was deleted by someone else', paths: [] };
  if (live.metadata.uid !== applied.metadata.uid) {
    return { state: 'gone', detail: 'it was deleted and created again by someone else', paths: [] };
  }
  // What the live object's /scale writer owns is the autoscaler's, not someone else's change.
  const autoscaled = scaleOwnedFields(live);
  const clashing = othersChanges(applied, live, ours).clashing.filter(
    (field) => !autoscaled.some((owned) => within(field, owned)),
  );
  if (clashing.length === 0) return undefined;
  const paths = clashing.map(fieldName);
  return { state: 'conflict', detail: `someone else changed ${summarizePaths(paths)} after kguard applied it`, paths };
}

/**
 * The pre-apply copy with others' later writes to other fields kept: what a restore writes, so it
 * reverts this apply and nothing else (an HPA's replicas and a binder's volumeName stay).
 */
export function keepingOthers(
  before: KubeObject,
  applied: KubeObject,
  live: KubeObject,
  ours: readonly FieldPath[],
): KubeObject {
  const { theirs } = othersChanges(applied, live, ours);
  const target = structuredClone(before) as unknown as Record<string, unknown>;
  for (const field of theirs) {
    if (field.length === 0 || field[0] === 'status') continue;
    setAt(target, field, getAt(live, field));
  }
  return target as unknown as KubeObject;
}

/** A field in a person's words: spec.template.spec.containers[0].image, metadata.annotations["a.b/c"]. */
export function fieldName(field: FieldPath): string {
  if (field.length === 0) return '(whole object)';
  return field
    .map((segment, index) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : /^[A-Za-z_][\w-]*$/.test(segment)
          ? `${index === 0 ? '' : '.'}${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join('');
}

function getAt(root: unknown, field: FieldPath): unknown {
  let current = root;
  for (const segment of field) {
    if (!isContainer(current)) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function setAt(root: Record<string, unknown>, field: FieldPath, value: unknown): void {
  let current: Record<string | number, unknown> = root;
  for (const [index, segment] of field.slice(0, -1).entries()) {
    const next = current[segment];
    if (!isContainer(next)) {
      if (value === undefined) return;
      current[segment] = typeof field[index + 1] === 'number' ? [] : {};
    }
    current = current[segment] as Record<string | number, unknown>;
  }
  const last = field[field.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(current) && typeof last === 'number') current.splice(last, 1);
    else delete current[last];
  } else current[last] = structuredClone(value);
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

/**
 * Equal as JSON, whatever the order of keys: what JSON.stringify of both, keys sorted, would say
 * (an undefined member is absent, an undefined item null), found in one walk that stops at the
 * first difference. `walk` asks it at every level of an object, so comparing whole texts at each
 * level cost 4 s of CPU a run at 100 tracked Deployments (measured, docs/performance.md).
 */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b)) return false;
  return sameJson(a, b);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b)) return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  const left = presentKeys(a);
  const right = presentKeys(b);
  if (left.length !== right.length) return false;
  return left.every(
    (key) =>
      Object.hasOwn(b, key) &&
      (b as Record<string, unknown>)[key] !== undefined &&
      sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** The keys JSON.stringify writes: those whose value is not undefined. */
function presentKeys(value: object): string[] {
  return Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
}
