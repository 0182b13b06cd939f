// Strategic merge patch (application/strategic-merge-patch+json), what client-side
// `kubectl apply` sends. Like a JSON merge patch, except that lists the Go types mark with a
// patch merge key are merged element by element (containers by name, ports by containerPort…)
// and the patch may carry directives:
//   {"$patch": "delete" | "replace"}       on a map or a list element
//   "$setElementOrder/<list>": [...]       reorders a merged list (applied here)
//   "$retainKeys": [...]                   drop keys not listed (used for `strategy`)
//   "$deleteFromPrimitiveList/<list>": []  remove values from a merged primitive list
// The real server reads merge keys from the Go struct tags; this table covers the kinds served.

import { ApiError } from '../../errors.js';
import { isJsonObject, jsonClone, jsonEqual, type JsonObject, type JsonValue } from '../../json.js';

/** Field name → merge key. `ports` is special-cased (containerPort in containers, port in services). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  conditions: 'type',
  ownerReferences: 'uid',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  schedulingGates: 'name',
};

/** Primitive lists with patchStrategy "merge": values are unioned instead of replaced. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

export function applyStrategicMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  return mergeValue(target, patch, []);
}

function mergeValue(target: JsonValue | undefined, patch: JsonValue, path: string[]): JsonValue {
  if (!isJsonObject(patch)) return jsonClone(patch);
  return mergeMap(isJsonObject(target) ? target : undefined, patch, path);
}

function mergeMap(target: JsonObject | undefined, patch: JsonObject, path: string[]): JsonObject {
  const directive = patch['$patch'];
  if (directive === 'replace') return withoutDirectives(patch);
  if (directive !== undefined && directive !== 'merge')
    throw badPatch(`unknown patch directive ${JSON.stringify(directive)} at ${path.join('.')}`);

  const result: JsonObject = target ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete result[key];
    } else if (isJsonObject(value) && value['$patch'] === 'delete') {
      delete result[key];
    } else if (Array.isArray(value)) {
      result[key] = mergeList(result[key], value, key, [...path, key]);
    } else {
      result[key] = mergeValue(result[key], value, [...path, key]);
    }
  }

  for (const [key, value] of Object.entries(patch)) {
    const field = key.startsWith('$deleteFromPrimitiveList/')
      ? key.slice('$deleteFromPrimitiveList/'.length)
      : undefined;
    if (field && Array.isArray(value) && Array.isArray(result[field])) {
      result[field] = (result[field] as JsonValue[]).filter(
        (item) => !value.some((removed) => jsonEqual(removed, item)),
      );
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    const field = key.startsWith('$setElementOrder/') ? key.slice('$setElementOrder/'.length) : undefined;
    if (field && Array.isArray(value) && Array.isArray(result[field])) {
      result[field] = reorder(result[field] as JsonValue[], value, mergeKeyFor(field, path));
    }
  }
  const retainKeys = patch['$retainKeys'];
  if (Array.isArray(retainKeys)) {
    for (const key of Object.keys(result)) if (!retainKeys.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(target: JsonValue | undefined, patch: JsonValue[], field: string, path: string[]): JsonValue {
  const original = Array.isArray(target) ? target : [];
  if (patch.some((item) => isJsonObject(item) && item['$patch'] === 'replace')) {
    return patch
      .filter((item) => !(isJsonObject(item) && item['$patch'] === 'replace'))
      .map((item) => withoutDirectivesDeep(item));
  }
  const mergeKey = mergeKeyFor(field, path.slice(0, -1));
  if (mergeKey) return mergeKeyedList(original, patch, mergeKey, path);
  if (MERGED_PRIMITIVE_LISTS.has(field)) {
    const union = [...original];
    for (const item of patch) if (!union.some((existing) => jsonEqual(existing, item))) union.push(item);
    return union;
  }
  return patch.map((item) => withoutDirectivesDeep(item));
}

function mergeKeyedList(original: JsonValue[], patch: JsonValue[], mergeKey: string, path: string[]): JsonValue[] {
  const result = original.map((item) => jsonClone(item));
  for (const item of patch) {
    if (!isJsonObject(item)) throw badPatch(`expected objects in the list at ${path.join('.')}`);
    const keyValue = item[mergeKey];
    const index = result.findIndex(
      (existing) => isJsonObject(existing) && keyValue !== undefined && jsonEqual(existing[mergeKey], keyValue),
    );
    if (item['$patch'] === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = mergeMap(result[index] as JsonObject, item, path);
    } else {
      result.push(mergeMap(undefined, item, path));
    }
  }
  return result;
}

/** Puts the listed elements in the given order; elements not listed keep their place after them. */
function reorder(list: JsonValue[], order: JsonValue[], mergeKey: string | undefined): JsonValue[] {
  const keyOf = (item: JsonValue): JsonValue | undefined =>
    mergeKey && isJsonObject(item) ? item[mergeKey] : isJsonObject(item) ? undefined : item;
  const rank = (item: JsonValue): number => {
    const key = keyOf(item);
    const position = order.findIndex((entry) =>
      jsonEqual(mergeKey && isJsonObject(entry) ? entry[mergeKey] : entry, key),
    );
    return position < 0 ? order.length : position;
  };
  return list
    .map((item, index) => ({ item, index }))
    .sort((left, right) => rank(left.item) - rank(right.item) || left.index - right.index)
    .map(({ item }) => item);
}

/** The patch merge key of a list field, given the path of the map holding it. */
export function mergeKeyFor(field: string, parentPath: string[]): string | undefined {
  if (field === 'ports') {
    // Container ports merge by containerPort, Service ports by port.
    return parentPath.includes('containers') ||
      parentPath.includes('initContainers') ||
      parentPath.includes('ephemeralContainers')
      ? 'containerPort'
      : 'port';
  }
  return MERGE_KEYS[field];
}

function withoutDirectives(map: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(map)) if (!key.startsWith('$')) result[key] = withoutDirectivesDeep(value);
  return result;
}

function withoutDirectivesDeep(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutDirectivesDeep);
  if (isJsonObject(value)) return withoutDirectives(value);
  return value;
}

function badPatch(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}
