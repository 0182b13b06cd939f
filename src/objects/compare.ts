// Pure comparisons of two copies of one object: did the apply change it, did anyone else change
// it since, and how a restored object differs from its pre-apply copy.
import type { KubeObject } from './model.js';
import type { ChangeKind, ObjectChange } from '../model/result.js';

/**
 * Metadata the API server or a controller writes, never the user: comparing it would call every
 * status heartbeat a change. `deployment.kubernetes.io/revision` is written by the deployment
 * controller (pkg/controller/deployment/sync.go, SetNewReplicaSetAnnotations) after any template
 * change, so it follows the content rather than being part of it.
 */
const SERVER_METADATA = ['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'uid', 'selfLink'];
const CONTROLLER_ANNOTATIONS = new Set([
  'deployment.kubernetes.io/revision',
  // The API server's daemonset strategy (pkg/registry/apps/daemonset/strategy.go) counts template changes here.
  'deprecated.daemonset.template.generation',
]);

/** What a user or a manifest decides about an object: everything but status and server metadata. */
export function contentOf(object: KubeObject): Record<string, unknown> {
  const { status: _status, metadata, ...rest } = object;
  const meta: Record<string, unknown> = { ...metadata };
  for (const key of SERVER_METADATA) delete meta[key];
  const annotations = Object.entries(metadata.annotations ?? {}).filter(([key]) => !CONTROLLER_ANNOTATIONS.has(key));
  if (annotations.length > 0) meta.annotations = Object.fromEntries(annotations);
  else delete meta.annotations;
  if (meta.labels && Object.keys(meta.labels as object).length === 0) delete meta.labels;
  return { ...rest, metadata: meta };
}

/** `before`'s annotations with the controller-kept ones as `live` has them now; undefined when none remain. */
export function withControllerAnnotations(before: KubeObject, live: KubeObject): Record<string, string> | undefined {
  const annotations = Object.fromEntries(
    Object.entries(before.metadata.annotations ?? {}).filter(([key]) => !CONTROLLER_ANNOTATIONS.has(key)),
  );
  for (const [key, value] of Object.entries(live.metadata.annotations ?? {}))
    if (CONTROLLER_ANNOTATIONS.has(key)) annotations[key] = value;
  return Object.keys(annotations).length > 0 || before.metadata.annotations !== undefined ? annotations : undefined;
}

/** Stable JSON: object keys sorted, so two copies compare equal whatever order the server used. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

export function sameContent(a: KubeObject, b: KubeObject): boolean {
  return canonicalJson(contentOf(a)) === canonicalJson(contentOf(b));
}

/**
 * Server-side-apply ownership (managers of operation Apply, without their timestamps): an apply
 * that sets the same values under a new field manager changes only this, and a restore must
 * put it back, or the next `kubectl apply --server-side` conflicts.
 */
export function applyOwnership(object: KubeObject): string {
  const entries = (object.metadata.managedFields ?? []) as Array<Record<string, unknown>>;
  return canonicalJson(
    entries
      .filter((entry) => entry.operation === 'Apply' && entry.subresource === undefined)
      .map(({ time: _time, ...entry }) => entry),
  );
}

/** What the apply did to one object, from its copies before and after. */
export function changeOf(before: KubeObject | undefined, after: KubeObject | undefined): ObjectChange {
  if (!before) return after ? { change: 'created', after } : { change: 'absent' };
  if (!after) return { change: 'deleted', before };
  if (before.metadata.uid !== after.metadata.uid) return { change: 'recreated', before, after };
  const paths = changedPaths(contentOf(before), contentOf(after));
  if (paths.length === 0 && applyOwnership(before) !== applyOwnership(after)) {
    return { change: 'configured', before, after, paths: ['metadata.managedFields'] };
  }
  return paths.length > 0 ? { change: 'configured', before, after, paths } : { change: 'unchanged', before, after };
}

/** Dotted paths (lists by index) whose values differ between two JSON values, at most `limit`. */
export function changedPaths(a: unknown, b: unknown, prefix = '', limit = 20): string[] {
  const out: string[] = [];
  walk(a, b, prefix, out, limit);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (canonicalJson(a) === canonicalJson(b)) return;
  const bothObjects =
    a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects || (Array.isArray(a) && Array.isArray(b) && a.length !== b.length)) {
    out.push(path || '(whole object)');
    return;
  }
  const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
  for (const key of [...keys].sort()) {
    const child = Array.isArray(a) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], child, out, limit);
  }
}

export function summarizePaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/** Whether the apply changed the object at all: the one definition of "a change". */
export function isChange(object: { changeKind: ChangeKind }): boolean {
  return isChangeKind(object.changeKind);
}

export function isChangeKind(kind: ChangeKind): boolean {
  return kind !== 'unchanged' && kind !== 'absent';
}
