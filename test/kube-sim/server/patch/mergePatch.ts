// JSON merge patch (RFC 7386, application/merge-patch+json): objects merge recursively,
// `null` deletes a member, anything else (arrays included) replaces.

import { isJsonObject, jsonClone, type JsonValue } from '../../json.js';

export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return jsonClone(patch);
  const result = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
