// A set of field paths, kept as a tree whose edges are FieldsV1 path elements: `f:<field>`,
// `k:{"name":"web"}` (a list element by its keys), `v:<json>` (a set item), `i:<n>` (an index).
// A node is a member when the path to it is itself in the set; FieldsV1 writes that as `".": {}`
// when the node also has children. Follows structured-merge-diff fieldpath/set.go and
// fieldpath/serialize.go (the encoding) and fieldpath/element.go (the printed form).

import type { JsonObject, JsonValue } from '../../json.js';
import { isJsonObject } from '../../json.js';

export interface FieldSet {
  member: boolean;
  children: Map<string, FieldSet>;
}

export function emptySet(): FieldSet {
  return { member: false, children: new Map() };
}

export function insertPath(set: FieldSet, path: readonly string[]): void {
  let node = set;
  for (const element of path) {
    let child = node.children.get(element);
    if (!child) {
      child = emptySet();
      node.children.set(element, child);
    }
    node = child;
  }
  node.member = true;
}

export function isEmptySet(set: FieldSet): boolean {
  if (set.member) return false;
  for (const child of set.children.values()) if (!isEmptySet(child)) return false;
  return true;
}

export function hasPath(set: FieldSet, path: readonly string[]): boolean {
  let node: FieldSet | undefined = set;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return false;
  }
  return node.member;
}

export function union(left: FieldSet, right: FieldSet): FieldSet {
  const result: FieldSet = { member: left.member || right.member, children: new Map() };
  for (const key of new Set([...left.children.keys(), ...right.children.keys()])) {
    result.children.set(key, union(left.children.get(key) ?? emptySet(), right.children.get(key) ?? emptySet()));
  }
  return prune(result);
}

/** Members of `left` that are not members of `right` (set.go Difference: membership, not subtrees). */
export function difference(left: FieldSet, right: FieldSet | undefined): FieldSet {
  if (!right) return clone(left);
  const result: FieldSet = { member: left.member && !right.member, children: new Map() };
  for (const [key, child] of left.children) result.children.set(key, difference(child, right.children.get(key)));
  return prune(result);
}

export function intersection(left: FieldSet, right: FieldSet | undefined): FieldSet {
  if (!right) return emptySet();
  const result: FieldSet = { member: left.member && right.member, children: new Map() };
  for (const [key, child] of left.children) result.children.set(key, intersection(child, right.children.get(key)));
  return prune(result);
}

/** Removes every path in `subtrees` and everything below it (set.go RecursiveDifference). */
export function withoutSubtrees(set: FieldSet, subtrees: FieldSet | undefined): FieldSet {
  if (!subtrees) return clone(set);
  if (subtrees.member) return emptySet();
  const result: FieldSet = { member: set.member, children: new Map() };
  for (const [key, child] of set.children) result.children.set(key, withoutSubtrees(child, subtrees.children.get(key)));
  return prune(result);
}

export function setEqual(left: FieldSet, right: FieldSet): boolean {
  return JSON.stringify(toFieldsV1(left)) === JSON.stringify(toFieldsV1(right));
}

/** Every member path, parents before children. */
export function memberPaths(set: FieldSet, prefix: string[] = []): string[][] {
  const paths: string[][] = set.member && prefix.length > 0 ? [prefix] : [];
  for (const key of sortedKeys(set)) paths.push(...memberPaths(set.children.get(key)!, [...prefix, key]));
  return paths;
}

export function toFieldsV1(set: FieldSet): JsonObject {
  const encoded: JsonObject = {};
  if (set.member && set.children.size > 0) encoded['.'] = {};
  for (const key of sortedKeys(set)) encoded[key] = toFieldsV1(set.children.get(key)!);
  return encoded;
}

export function fromFieldsV1(encoded: JsonValue | undefined): FieldSet {
  const set = emptySet();
  if (!isJsonObject(encoded)) return set;
  for (const [key, value] of Object.entries(encoded)) {
    if (key === '.') {
      set.member = true;
      continue;
    }
    const child = fromFieldsV1(value);
    // A child written as `{}` is a member with no children.
    if (!isJsonObject(value) || Object.keys(value).length === 0) child.member = true;
    set.children.set(key, child);
  }
  return set;
}

/** `.spec.template.spec.containers[name="web"].image`, as structured-merge-diff prints a path in conflicts. */
export function pathString(path: readonly string[]): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as JsonObject;
          return `[${Object.entries(keys)
            .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

function sortedKeys(set: FieldSet): string[] {
  return [...set.children.keys()].sort();
}

function clone(set: FieldSet): FieldSet {
  return union(set, emptySet());
}

function prune(set: FieldSet): FieldSet {
  for (const [key, child] of set.children) if (isEmptySet(child)) set.children.delete(key);
  return set;
}
