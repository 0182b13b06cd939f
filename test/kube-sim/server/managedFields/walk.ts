// Field sets of JSON objects: what an applied configuration sets (typed/tofieldset.go), what
// changed between two versions of an object (typed/compare.go), and removing paths from an
// object (typed/remove.go), all from structured-merge-diff.

import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../json.js';
import { emptySet, insertPath, type FieldSet } from './fieldSet.js';
import { isAtomicMap, isAlwaysPresent, keyDefault, listShape, type ListShape } from './schema.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

interface Location {
  path: string[];
  schemaPath: string[];
}

/** typed/tofieldset.go: scalars, atomic values, list elements, and null or empty maps. */
export function fieldSetOf(config: JsonObject, objectKind: string): FieldSet {
  const set = emptySet();
  const visit = (value: JsonValue, at: Location): void => {
    if (Array.isArray(value)) {
      const shape = listShape(at.schemaPath, objectKind);
      if (shape.kind === 'atomic') return insertPath(set, at.path);
      for (const [element, item] of listElements(value, shape)) {
        const elementAt = { path: [...at.path, element], schemaPath: [...at.schemaPath, '*'] };
        insertPath(set, elementAt.path);
        if (isJsonObject(item)) visitMap(item, elementAt);
      }
      return;
    }
    if (isJsonObject(value) && !isAtomicMap(at.schemaPath)) return visitMap(value, at);
    insertPath(set, at.path);
  };
  const visitMap = (map: JsonObject, at: Location): void => {
    for (const [key, child] of Object.entries(map)) {
      const childAt = { path: [...at.path, `f:${key}`], schemaPath: [...at.schemaPath, key] };
      if (child === null || (isJsonObject(child) && Object.keys(child).length === 0)) insertPath(set, childAt.path);
      else visit(child, childAt);
    }
  };
  visitMap(config, { path: [], schemaPath: [] });
  return set;
}

/** typed/compare.go: leaves are added, modified or removed; a map or list element only added or removed. */
export function compareObjects(live: JsonObject, next: JsonObject, objectKind: string): Comparison {
  const comparison: Comparison = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  const compare = (lhs: JsonValue | undefined, rhs: JsonValue | undefined, at: Location): void => {
    const sample = rhs ?? lhs;
    const shape = Array.isArray(sample) ? listShape(at.schemaPath, objectKind) : undefined;
    const granularMap = isJsonObject(sample) && !isAtomicMap(at.schemaPath);
    if (!granularMap && (!shape || shape.kind === 'atomic')) {
      if (lhs === undefined) insertPath(comparison.added, at.path);
      else if (rhs === undefined) insertPath(comparison.removed, at.path);
      else if (!jsonEqual(lhs, rhs)) insertPath(comparison.modified, at.path);
      return;
    }
    if (granularMap) {
      const left = isJsonObject(lhs) ? lhs : undefined;
      const right = isJsonObject(rhs) ? rhs : undefined;
      for (const key of new Set([...Object.keys(left ?? {}), ...Object.keys(right ?? {})])) {
        const childSchemaPath = [...at.schemaPath, key];
        let l = present(left?.[key]);
        let r = present(right?.[key]);
        if (left && right && isAlwaysPresent(childSchemaPath)) {
          const empty = (other: JsonValue | undefined): JsonValue => (Array.isArray(other) ? [] : {});
          l ??= empty(r);
          r ??= empty(l);
        }
        if (l === undefined && r === undefined) continue;
        compare(l, r, { path: [...at.path, `f:${key}`], schemaPath: childSchemaPath });
      }
    } else {
      const left = new Map(listElements(Array.isArray(lhs) ? lhs : [], shape!));
      const right = new Map(listElements(Array.isArray(rhs) ? rhs : [], shape!));
      for (const element of new Set([...left.keys(), ...right.keys()])) {
        const elementAt = { path: [...at.path, element], schemaPath: [...at.schemaPath, '*'] };
        if (shape!.kind === 'set') {
          if (!left.has(element)) insertPath(comparison.added, elementAt.path);
          else if (!right.has(element)) insertPath(comparison.removed, elementAt.path);
          continue;
        }
        compare(left.get(element), right.get(element), elementAt);
      }
    }
    if (lhs === undefined) insertPath(comparison.added, at.path);
    else if (rhs === undefined) insertPath(comparison.removed, at.path);
  };
  compare(live, next, { path: [], schemaPath: [] });
  return comparison;
}

/**
 * Removes the values at `paths` (each a member path from a field set) from `obj`, in place.
 * Paths whose parent is gone already are skipped.
 */
export function removePaths(obj: JsonObject, paths: string[][], objectKind: string): void {
  for (const path of paths) {
    let container: JsonValue | undefined = obj;
    const schemaPath: string[] = [];
    for (let index = 0; index < path.length && container !== undefined; index++) {
      const element = path[index]!;
      const last = index === path.length - 1;
      if (element.startsWith('f:') && isJsonObject(container)) {
        const field = element.slice(2);
        schemaPath.push(field);
        if (last) delete container[field];
        else container = present(container[field]);
      } else if (Array.isArray(container)) {
        const shape = listShape(schemaPath, objectKind);
        schemaPath.push('*');
        const position = listElements(container, shape).findIndex(([candidate]) => candidate === element);
        if (position < 0) container = undefined;
        else if (last) container.splice(position, 1);
        else container = container[position];
      } else {
        container = undefined;
      }
    }
  }
}

/** Each list element with its FieldsV1 element string. */
function listElements(list: JsonValue[], shape: ListShape): [string, JsonValue][] {
  return list.map((item, index): [string, JsonValue] => {
    if (shape.kind === 'set') return [`v:${JSON.stringify(item)}`, item];
    if (shape.kind === 'map' && isJsonObject(item)) {
      const keys: JsonObject = {};
      for (const key of [...shape.keys].sort()) {
        const value = item[key] ?? keyDefault(key);
        if (value !== undefined) keys[key] = value;
      }
      return [`k:${JSON.stringify(keys)}`, item];
    }
    return [`i:${index}`, item];
  });
}

function present(value: JsonValue | undefined): JsonValue | undefined {
  return value === null ? undefined : value;
}
