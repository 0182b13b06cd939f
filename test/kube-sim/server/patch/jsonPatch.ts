// JSON patch (RFC 6902, application/json-patch+json). `kubectl rollout undo` sends `replace`
// operations on /spec/template and /metadata/annotations; the rest is here for completeness.

import { ApiError } from '../../errors.js';
import { isJsonObject, jsonClone, jsonEqual, type JsonValue } from '../../json.js';

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: JsonValue;
}

export function applyJsonPatch(document: JsonValue, operations: unknown): JsonValue {
  if (!Array.isArray(operations)) throw invalidPatch('a JSON patch must be an array of operations');
  let result = jsonClone(document);
  for (const operation of operations as Operation[]) result = applyOperation(result, operation);
  return result;
}

function applyOperation(document: JsonValue, operation: Operation): JsonValue {
  switch (operation.op) {
    case 'add':
      return insert(document, pointer(operation.path), requireValue(operation), false);
    case 'replace':
      get(document, pointer(operation.path), operation.path);
      return insert(document, pointer(operation.path), requireValue(operation), true);
    case 'remove':
      return remove(document, pointer(operation.path), operation.path);
    case 'test':
      if (!jsonEqual(get(document, pointer(operation.path), operation.path), operation.value)) {
        throw invalidPatch(`testing value ${operation.path} failed: test failed`);
      }
      return document;
    case 'move': {
      const from = requireFrom(operation);
      const value = get(document, pointer(from), from);
      return insert(remove(document, pointer(from), from), pointer(operation.path), value, false);
    }
    case 'copy': {
      const from = requireFrom(operation);
      return insert(document, pointer(operation.path), jsonClone(get(document, pointer(from), from)), false);
    }
    default:
      throw invalidPatch(`Unexpected kind: ${operation.op}`);
  }
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw invalidPatch(`JSON pointer must start with "/": ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(document: JsonValue, tokens: string[], path: string): JsonValue {
  let current: JsonValue | undefined = document;
  for (const token of tokens) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isJsonObject(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw invalidPatch(`missing value at ${path}`);
  }
  return current;
}

/** Sets (or, in arrays and without `replaceExisting`, inserts) the value at `tokens`. */
function insert(document: JsonValue, tokens: string[], value: JsonValue, replaceExisting: boolean): JsonValue {
  if (tokens.length === 0) return value;
  const parentPath = `/${tokens.slice(0, -1).join('/')}`;
  const parent = get(document, tokens.slice(0, -1), parentPath);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length)
      throw invalidPatch(`index out of range: ${last}`);
    parent.splice(index, replaceExisting ? 1 : 0, value);
  } else if (isJsonObject(parent)) {
    parent[last] = value;
  } else {
    throw invalidPatch(`cannot add to a non-container at ${parentPath}`);
  }
  return document;
}

function remove(document: JsonValue, tokens: string[], path: string): JsonValue {
  get(document, tokens, path);
  const parent = get(document, tokens.slice(0, -1), path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isJsonObject(parent)) delete parent[last];
  return document;
}

function requireValue(operation: Operation): JsonValue {
  if (operation.value === undefined) throw invalidPatch(`missing value for "${operation.op}" at ${operation.path}`);
  return jsonClone(operation.value);
}

function requireFrom(operation: Operation): string {
  if (operation.from === undefined) throw invalidPatch(`missing "from" for "${operation.op}"`);
  return operation.from;
}

function invalidPatch(message: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${message}`);
}
