// Applies a PATCH body to the stored object according to its Content-Type.

import { ApiError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import { applyJsonPatch } from './jsonPatch.js';
import { applyMergePatch } from './mergePatch.js';
import { applyStrategicMergePatch } from './strategicMerge.js';

export type PatchType = 'strategic' | 'merge' | 'json' | 'apply';

const PATCH_TYPES: Record<string, PatchType> = {
  'application/strategic-merge-patch+json': 'strategic',
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  // Server-side apply. kubectl sends JSON under this YAML media type; JSON is valid YAML.
  'application/apply-patch+yaml': 'apply',
};

export function patchTypeOf(contentType: string | undefined): PatchType {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = PATCH_TYPES[mediaType];
  if (!type) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_TYPES).join(', ')}`,
    );
  }
  return type;
}

export function applyPatch(type: PatchType, target: JsonValue, patch: JsonValue): JsonValue {
  switch (type) {
    case 'json':
      return applyJsonPatch(target, patch);
    case 'merge':
      return applyMergePatch(target, patch);
    case 'strategic':
    // Server-side apply merges the configuration like a strategic merge patch (lists by their
    // keys); removing what the manager stopped applying and ownership are server/managedFields.
    case 'apply':
      return applyStrategicMergePatch(target, patch);
  }
}
