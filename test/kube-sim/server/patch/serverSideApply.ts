// Server-side apply, approximated: the applied configuration is merged like a strategic merge
// patch, and what the same field manager applied last time but no longer applies is removed
// (so deleting an env var from the manifest deletes it from the object, as with real SSA).
// There is no field ownership across managers and so no apply conflicts.

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../json.js';
import { mergeKeyFor } from './strategicMerge.js';

export class AppliedConfigurations {
  /** object uid → field manager → the configuration it applied last. */
  private readonly byObject = new Map<string, Map<string, JsonValue>>();

  /** A strategic merge patch deleting what `manager` applied before but not in `configuration`. */
  removalPatch(uid: string, manager: string, configuration: JsonValue): JsonObject | undefined {
    const previous = this.byObject.get(uid)?.get(manager);
    if (!isJsonObject(previous) || !isJsonObject(configuration)) return undefined;
    const patch = removedFields(previous, configuration, []);
    return Object.keys(patch).length > 0 ? patch : undefined;
  }

  remember(uid: string, manager: string, configuration: JsonValue): void {
    let managers = this.byObject.get(uid);
    if (!managers) {
      managers = new Map();
      this.byObject.set(uid, managers);
    }
    managers.set(manager, configuration);
  }
}

function removedFields(previous: JsonObject, next: JsonObject, path: string[]): JsonObject {
  const patch: JsonObject = {};
  for (const [key, before] of Object.entries(previous)) {
    const after = next[key];
    if (after === undefined || after === null) {
      patch[key] = null;
    } else if (isJsonObject(before) && isJsonObject(after)) {
      const nested = removedFields(before, after, [...path, key]);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (Array.isArray(before) && Array.isArray(after)) {
      // A list without a merge key is replaced whole by the new configuration anyway.
      const mergeKey = mergeKeyFor(key, path);
      if (mergeKey) {
        const changes = removedListElements(before, after, mergeKey, [...path, key]);
        if (changes.length > 0) patch[key] = changes;
      }
    }
  }
  return patch;
}

function removedListElements(previous: JsonValue[], next: JsonValue[], mergeKey: string, path: string[]): JsonValue[] {
  const changes: JsonValue[] = [];
  for (const before of previous) {
    if (!isJsonObject(before)) continue;
    const after = next.find((candidate) => isJsonObject(candidate) && jsonEqual(candidate[mergeKey], before[mergeKey]));
    if (!isJsonObject(after)) {
      changes.push({ [mergeKey]: before[mergeKey] ?? null, $patch: 'delete' });
      continue;
    }
    const nested = removedFields(before, after, path);
    if (Object.keys(nested).length > 0) changes.push({ ...nested, [mergeKey]: before[mergeKey] ?? null });
  }
  return changes;
}
