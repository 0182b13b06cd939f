// metadata.managedFields: who owns which field. Follows k8s.io/apimachinery
// pkg/util/managedfields/internal (fieldmanager.go, managedfields.go, managedfieldsupdater.go,
// stripmeta.go, lastappliedmanager.go, lastappliedupdater.go, conflict.go) and
// structured-merge-diff merge/update.go. Not modelled: capmanagers.go (at most 10 Update
// entries, older ones merged into "ancient-changes") and versioncheck.go.

import { ApiError } from '../../errors.js';
import { isJsonObject, jsonClone, jsonEqual, type JsonObject, type JsonValue } from '../../json.js';
import type { KubeObject } from '../../types.js';
import {
  difference,
  emptySet,
  fromFieldsV1,
  hasPath,
  intersection,
  insertPath,
  isEmptySet,
  memberPaths,
  pathString,
  setEqual,
  toFieldsV1,
  union,
  withoutSubtrees,
  type FieldSet,
} from './fieldSet.js';
import { compareObjects, fieldSetOf, removePaths } from './walk.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export interface FieldManagerRequest {
  /** `?fieldManager=`, or the User-Agent up to its first `/` (handlers/rest.go managerOrUserAgent). */
  manager: string;
  /** The request's group/version, e.g. `apps/v1`. */
  apiVersion: string;
  /** `status` for writes to /status, otherwise undefined. */
  subresource?: string;
  /** Whether the type has a /status subresource, whose fields the main resource does not own. */
  hasStatusSubresource: boolean;
  now: string;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** One entry per manager identity (managedfields.go BuildManagerIdentifier: time and fields left out; apiVersion too for Apply). */
interface Owner {
  entry: Omit<ManagedFieldsEntry, 'fieldsV1' | 'time'>;
  set: FieldSet;
  time?: string;
}
type Owners = Map<string, Owner>;

/**
 * A create, PUT or non-apply PATCH (fieldmanager.go Update + managedfieldsupdater.go + merge/update.go
 * Updater.Update): the updater takes every field whose value it added or changed from whoever
 * owned it; removed fields leave every set. `next` is the object about to be stored, `live`
 * the stored one (undefined on create). Sets next.metadata.managedFields.
 */
export function recordUpdate(live: KubeObject | undefined, next: KubeObject, request: FieldManagerRequest): void {
  const owners = ownersForUpdate(live, next, request);
  const comparison = comparisonIgnoring(live, next, request);
  const changed = union(comparison.modified, comparison.added);
  for (const owner of owners.values()) {
    owner.set = difference(difference(owner.set, changed), comparison.removed);
  }
  const id = identity({
    manager: request.manager,
    operation: 'Update',
    apiVersion: request.apiVersion,
    subresource: request.subresource,
  });
  if (!isEmptySet(changed)) {
    const previous = owners.get(id);
    owners.set(id, {
      entry: entryHead(request, 'Update'),
      set: union(changed, previous?.set ?? emptySet()),
      time: request.now,
    });
  }
  next.metadata.managedFields = encode(owners);
}

/**
 * Server-side apply (merge/update.go Updater.Apply, without the merge: `merged` is the live
 * object with the configuration merged in). Prunes what this manager applied before and no one
 * owns any more, checks conflicts, and returns the object to store with its managedFields.
 * Throws the 409 Conflict of conflict.go unless `force`.
 */
export function recordApply(
  live: KubeObject | undefined,
  merged: KubeObject,
  config: JsonObject,
  request: FieldManagerRequest,
  force: boolean,
  finish: (obj: KubeObject) => KubeObject,
): KubeObject {
  const owners = decode(live?.metadata.managedFields);
  const id = identity({ manager: request.manager, operation: 'Apply', subresource: request.subresource });
  const configSet = ignoring(fieldSetOf(config, merged.kind), request);
  const lastSet = owners.get(id)?.set;
  const previousTime = owners.get(id)?.time;
  owners.set(id, { entry: entryHead(request, 'Apply'), set: configSet, time: previousTime });

  const result = jsonClone(merged);
  if (lastSet)
    removePaths(result as unknown as JsonObject, unownedPaths(difference(lastSet, configSet), owners), merged.kind);
  const stored = finish(result);

  const comparison = comparisonIgnoring(live, stored, request);
  const changed = union(comparison.modified, comparison.added);
  let conflicts = conflictsOf(owners, id, changed);
  if (conflicts.length > 0 && !force && request.manager === 'kubectl') {
    // lastappliedmanager.go: kubectl upgrading from client-side apply may take over what the
    // last-applied annotation says it set, as long as the live value still matches it.
    const allowed = allowedByLastApplied(live, request);
    conflicts = conflicts.filter((conflict) => !hasPath(allowed, conflict.path));
    if (conflicts.length === 0) force = true;
  }
  if (conflicts.length > 0 && !force) throw conflictError(conflicts, owners);
  for (const [ownerId, owner] of owners) {
    if (ownerId === id) continue;
    owner.set = difference(difference(owner.set, changed), comparison.removed);
  }
  // managedfieldsupdater.go Apply: the time moves only when the object changed. (An entry
  // created by a no-op apply gets one too here; upstream leaves it without a time.)
  const applier = owners.get(id)!;
  if (!jsonEqual(withoutManagedFields(live), withoutManagedFields(stored)) || !applier.time) applier.time = request.now;
  if (request.manager === 'kubectl' && live?.metadata.annotations?.[LAST_APPLIED] !== undefined) {
    // lastappliedupdater.go: kubectl's server-side apply keeps the client-side annotation in step.
    stored.metadata.annotations = { ...stored.metadata.annotations, [LAST_APPLIED]: lastAppliedOf(config) };
  }
  stored.metadata.managedFields = encode(owners);
  return stored;
}

/** fieldmanager.go decodeLiveOrNew: the request's entries win unless absent or undecodable; `[]` or `[{}]` resets. */
function ownersForUpdate(live: KubeObject | undefined, next: KubeObject, request: FieldManagerRequest): Owners {
  const requested = next.metadata.managedFields;
  if (request.subresource) return decode(live?.metadata.managedFields);
  if (Array.isArray(requested) && (requested.length === 0 || (requested.length === 1 && jsonEqual(requested[0], {}))))
    return new Map();
  const fromRequest = decode(requested);
  return fromRequest.size > 0 ? fromRequest : decode(live?.metadata.managedFields);
}

function decode(entries: unknown): Owners {
  const owners: Owners = new Map();
  if (!Array.isArray(entries)) return owners;
  for (const raw of entries) {
    if (!isJsonObject(raw)) return new Map();
    const entry = raw as unknown as ManagedFieldsEntry;
    // managedfields.go decodeManagedFieldsEntrySet: anything but Apply/Update is an error, and the whole list is ignored.
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') return new Map();
    const head: Owner['entry'] = {
      manager: entry.manager ?? '',
      operation: entry.operation,
      apiVersion: entry.apiVersion ?? '',
      fieldsType: 'FieldsV1',
    };
    if (entry.subresource) head.subresource = entry.subresource;
    owners.set(identity(head), { entry: head, set: fromFieldsV1(entry.fieldsV1), time: entry.time });
  }
  return owners;
}

/** managedfields.go sortEncodedManagedFields: Apply before Update, then by time, manager, apiVersion, subresource. */
function encode(owners: Owners): ManagedFieldsEntry[] | undefined {
  const entries: ManagedFieldsEntry[] = [];
  for (const owner of owners.values()) {
    if (isEmptySet(owner.set)) continue;
    const entry: ManagedFieldsEntry = {
      manager: owner.entry.manager,
      operation: owner.entry.operation,
      apiVersion: owner.entry.apiVersion,
    } as ManagedFieldsEntry;
    if (owner.time) entry.time = owner.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = toFieldsV1(owner.set);
    if (owner.entry.subresource) entry.subresource = owner.entry.subresource;
    entries.push(entry);
  }
  if (entries.length === 0) return undefined;
  const seconds = (entry: ManagedFieldsEntry): number => (entry.time ? Date.parse(entry.time) / 1000 : 0);
  return entries.sort(
    (p, q) =>
      compareText(p.operation, q.operation) ||
      seconds(p) - seconds(q) ||
      compareText(p.manager, q.manager) ||
      compareText(p.apiVersion, q.apiVersion) ||
      compareText(p.subresource ?? '', q.subresource ?? ''),
  );
}

function identity(entry: { manager: string; operation: string; apiVersion?: string; subresource?: string }): string {
  return JSON.stringify([
    entry.manager,
    entry.operation,
    entry.operation === 'Apply' ? '' : (entry.apiVersion ?? ''),
    entry.subresource ?? '',
  ]);
}

function entryHead(request: FieldManagerRequest, operation: 'Apply' | 'Update'): Owner['entry'] {
  const head: Owner['entry'] = {
    manager: request.manager,
    operation,
    apiVersion: request.apiVersion,
    fieldsType: 'FieldsV1',
  };
  if (request.subresource) head.subresource = request.subresource;
  return head;
}

/**
 * stripmeta.go (these exact paths are never owned) and the strategies' reset fields (status on the
 * main resource of a type with /status; everything but status on /status).
 */
function ignoring(set: FieldSet, request: FieldManagerRequest): FieldSet {
  const strip = emptySet();
  for (const path of [['f:apiVersion'], ['f:kind'], ['f:metadata']].concat(
    [
      'name',
      'namespace',
      'creationTimestamp',
      'selfLink',
      'uid',
      'clusterName',
      'generation',
      'managedFields',
      'resourceVersion',
    ].map((field) => ['f:metadata', `f:${field}`]),
  )) {
    insertPath(strip, path);
  }
  let result = withoutSubtrees(difference(set, strip), subtree(['f:metadata', 'f:managedFields']));
  if (request.subresource === 'status') {
    const status = emptySet();
    if (result.children.has('f:status')) status.children.set('f:status', result.children.get('f:status')!);
    return status;
  }
  if (request.hasStatusSubresource) result = withoutSubtrees(result, subtree(['f:status']));
  return result;
}

function comparisonIgnoring(live: KubeObject | undefined, next: KubeObject, request: FieldManagerRequest) {
  const comparison = compareObjects(withoutManagedFields(live), withoutManagedFields(next), next.kind);
  return {
    added: ignoring(comparison.added, request),
    modified: ignoring(comparison.modified, request),
    removed: ignoring(comparison.removed, request),
  };
}

/** merge/update.go prune: paths this manager dropped that nobody (itself included, through its new set) owns. */
function unownedPaths(dropped: FieldSet, owners: Owners): string[][] {
  let owned = emptySet();
  for (const owner of owners.values()) owned = union(owned, owner.set);
  return memberPaths(dropped).filter((path) => !hasPath(owned, path) && !ownsBelow(owned, path));
}

function ownsBelow(owned: FieldSet, path: string[]): boolean {
  let node: FieldSet | undefined = owned;
  for (const element of path) node = node?.children.get(element);
  return node !== undefined && node.children.size > 0;
}

interface Conflict {
  ownerId: string;
  path: string[];
}

function conflictsOf(owners: Owners, applier: string, changed: FieldSet): Conflict[] {
  const conflicts: Conflict[] = [];
  for (const [ownerId, owner] of owners) {
    if (ownerId === applier) continue;
    for (const path of memberPaths(intersection(owner.set, changed))) conflicts.push({ ownerId, path });
  }
  return conflicts;
}

/** conflict.go NewConflictError / getConflictMessage / printManager. */
function conflictError(conflicts: Conflict[], owners: Owners): ApiError {
  const printManager = (ownerId: string): string => {
    const { entry } = owners.get(ownerId)!;
    let text = JSON.stringify(entry.manager);
    if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
    return entry.operation === 'Update' ? `${text} using ${entry.apiVersion}` : text;
  };
  const causes = conflicts.map((conflict) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(conflict.ownerId)}`,
    field: pathString(conflict.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.ownerId)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const conflict of conflicts)
      byManager.set(conflict.ownerId, [...(byManager.get(conflict.ownerId) ?? []), pathString(conflict.path)]);
    const lines: string[] = [];
    for (const ownerId of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(ownerId)}:`, ...byManager.get(ownerId)!.map((path) => `- ${path}`));
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/** lastappliedmanager.go allowedConflictsFromLastApplied: fields of the annotation whose value the live object still has. */
function allowedByLastApplied(live: KubeObject | undefined, request: FieldManagerRequest): FieldSet {
  const text = live?.metadata.annotations?.[LAST_APPLIED];
  if (!live || !text) return emptySet();
  let lastApplied: JsonValue;
  try {
    lastApplied = JSON.parse(text) as JsonValue;
  } catch {
    return emptySet();
  }
  if (!isJsonObject(lastApplied) || lastApplied['apiVersion'] !== request.apiVersion) return emptySet();
  const comparison = compareObjects(lastApplied, withoutManagedFields(live), live.kind);
  return difference(
    difference(difference(fieldSetOf(lastApplied, live.kind), comparison.modified), comparison.added),
    comparison.removed,
  );
}

/** lastappliedupdater.go buildLastApplied: the applied configuration without the annotation itself. */
function lastAppliedOf(config: JsonObject): string {
  const copy = jsonClone(config);
  const metadata = copy['metadata'];
  if (isJsonObject(metadata) && isJsonObject(metadata['annotations'])) delete metadata['annotations'][LAST_APPLIED];
  return JSON.stringify(copy);
}

function withoutManagedFields(obj: KubeObject | undefined): JsonObject {
  if (!obj) return {};
  const copy = jsonClone(obj) as unknown as JsonObject;
  delete (copy['metadata'] as JsonObject)['managedFields'];
  return copy;
}

function subtree(path: string[]): FieldSet {
  const set = emptySet();
  insertPath(set, path);
  return set;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

export { setEqual };
