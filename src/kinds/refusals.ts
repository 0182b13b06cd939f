// What the API server refuses to write back, kind by kind: the restore rules of a kind's row
// (table.ts putBack, recreate). A restore never sends a write the server would refuse, and never
// prints one for a person either: it writes the other way, or says that it cannot. Pure.
//
// | kind                 | refused write                                      | the way back                         | source (pkg/apis/…/validation/validation.go) |
// |----------------------|----------------------------------------------------|--------------------------------------|----------------------------------------------|
// | ConfigMap, Secret    | data (binaryData) of `immutable: true`, or making  | delete, then create the pre-apply    | core ValidateConfigMapUpdate,                |
// |                      | it mutable again; a Secret's type                  | copy (when nothing else changed it)  | ValidateSecretUpdate                         |
// | PersistentVolumeClaim| spec.resources.requests.storage going down         | none: a volume never shrinks         | core ValidatePersistentVolumeClaimUpdate     |
// | Job (created again)  | a copy whose selector names the old controller-uid | the copy without the generated       | batch validateGeneratedSelector              |
// |                      |                                                    | selector; never a Job that finished  |                                              |
import { canonicalJson, contentOf } from '../objects/compare.js';
import type { KubeObject } from '../objects/model.js';

/** How a pre-apply copy can be written back over the object as it is now. */
export type PutBackRule =
  /** Delete the object (by uid and resourceVersion) and create the pre-apply copy: only when nothing else changed it. */
  | { how: 'delete-and-create'; why: string }
  /** No write the server takes restores it. `fields`: where the copy must keep the current values. */
  | { how: 'impossible'; why: string; fields: readonly (readonly string[])[] };

/** What a restore creates from the pre-apply copy of an object the apply deleted. */
export type RecreateRule = { how: 'create'; copy: KubeObject } | { how: 'never'; why: string };

const IMMUTABLE_FORBIDDEN = 'field is immutable when `immutable` is set';

/**
 * A ConfigMap or Secret with `immutable: true` keeps its data and stays immutable
 * (ValidateConfigMapUpdate, ValidateSecretUpdate: `data: Forbidden: field is immutable when
 * `immutable` is set`, the same for `immutable`, `binaryData`); a Secret's type never changes
 * (`type: Invalid value: …: field is immutable`). Putting back a copy that differs there takes a
 * delete and a create, as `kubectl replace --force` or Flux's server-side apply with force do.
 */
export function immutablePutBack(before: KubeObject, current: KubeObject): PutBackRule | undefined {
  const now = current as KubeObject & { immutable?: boolean; type?: string };
  const was = before as KubeObject & { immutable?: boolean; type?: string };
  if (now.kind === 'Secret' && (was.type ?? 'Opaque') !== (now.type ?? 'Opaque')) {
    return {
      how: 'delete-and-create',
      why: `a Secret's type never changes (type: field is immutable): it is ${now.type ?? 'Opaque'} now, ${was.type ?? 'Opaque'} in the pre-apply copy`,
    };
  }
  if (now.immutable !== true) return undefined;
  if (was.immutable !== true)
    return {
      how: 'delete-and-create',
      why: `immutable: true cannot be undone by a write (immutable: Forbidden: ${IMMUTABLE_FORBIDDEN})`,
    };
  const changed = ['data', 'binaryData'].filter(
    (field) => canonicalJson(contentOf(before)[field] ?? null) !== canonicalJson(contentOf(current)[field] ?? null),
  );
  if (changed.length === 0) return undefined;
  return {
    how: 'delete-and-create',
    why: `it is immutable: true, so its ${changed.join(' and ')} cannot change (${changed[0]}: Forbidden: ${IMMUTABLE_FORBIDDEN})`,
  };
}

/** The copy with `fields` at their current values: what the server takes when the rest goes back. */
export function withCurrentValues(
  before: KubeObject,
  current: KubeObject,
  fields: readonly (readonly string[])[],
): KubeObject {
  const copy = structuredClone(before) as unknown as Record<string, unknown>;
  for (const field of fields) {
    let source: unknown = current;
    for (const segment of field)
      source = source === null || typeof source !== 'object' ? undefined : (source as Record<string, unknown>)[segment];
    let target = copy;
    for (const segment of field.slice(0, -1)) {
      const next = target[segment];
      if (next === null || typeof next !== 'object') target[segment] = {};
      target = target[segment] as Record<string, unknown>;
    }
    if (source === undefined) delete target[field[field.length - 1]!];
    else target[field[field.length - 1]!] = structuredClone(source);
  }
  return copy as unknown as KubeObject;
}
