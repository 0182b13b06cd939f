// The simulated cluster's etcd + registry: every object, one global resourceVersion counter,
// and a synchronous change feed. Callers always get deep copies, so nothing outside can mutate
// stored state without going through create/update/delete (and thus the feed).

import { randomUUID } from 'node:crypto';
import type { SimClock } from './clock.js';
import { ApiError, alreadyExists, conflict, invalid, notFound } from './errors.js';
import { jsonClone, jsonEqual } from './json.js';
import { resourceTypeForKind, type ResourceType } from './kinds.js';
import { matchesRequirements, parseLabelSelector } from './selectors.js';
import type { KubeObject, StoreEvent, WatchEventType } from './types.js';

export { ApiError } from './errors.js';

type Listener = (event: StoreEvent) => void;

export interface WriteOptions {
  /** `?dryRun=All`: compute and return the result without storing it, bumping the resourceVersion or notifying anyone. */
  dryRun?: boolean;
  /**
   * update/updateStatus: the object's new metadata.managedFields, computed by the API layer
   * (server/managedFields). Without it the stored ones stay: the simulated controllers write
   * through the store and own no fields.
   */
  managedFields?: unknown;
  /** create: the uid the API layer already gave the object (a Job's generated selector names it). */
  uid?: string;
}

export interface DeleteOptions extends WriteOptions {
  /** `propagationPolicy: Orphan`: leave dependents in place. */
  orphanDependents?: boolean;
}

export class Store {
  /** kind → "namespace/name" → object. Cluster-scoped objects use namespace ''. */
  private readonly objectsByKind = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<Listener>();
  private resourceVersion = 0;

  constructor(private readonly clock: SimClock) {}

  create(input: KubeObject, options: WriteOptions = {}): KubeObject {
    const obj = jsonClone(input);
    const type = typeOf(obj.kind);
    obj.metadata ??= { name: '' };
    const metadata = obj.metadata;
    if (!metadata.name && metadata.generateName) metadata.name = metadata.generateName + randomSuffix();
    if (!metadata.name) {
      throw invalid(obj.kind, type.group, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    if (type.namespaced) metadata.namespace ||= 'default';
    else delete metadata.namespace;
    const objects = this.objectsOf(obj.kind);
    const key = keyOf(metadata.namespace ?? '', metadata.name);
    if (objects.has(key)) throw alreadyExists(type, metadata.name);

    metadata.uid = options.uid ?? randomUUID();
    metadata.creationTimestamp = this.clock.nowIso();
    if (type.hasGeneration) metadata.generation = 1;
    else delete metadata.generation;
    if (options.dryRun) return obj;
    metadata.resourceVersion = String(++this.resourceVersion);
    objects.set(key, obj);
    this.emit('ADDED', obj);
    return jsonClone(obj);
  }

  get(kind: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.objectsOf(kind).get(keyOf(this.scopedNamespace(kind, namespace), name));
    return found && jsonClone(found);
  }

  /**
   * Copies of the objects of a kind (in a namespace, matching a label selector). `where` picks on
   * the stored objects, before they are copied: a controller that wants a node's pods or a
   * ReplicaSet's must not copy every pod of the cluster to find them (a 1,000-object apply spent
   * three quarters of the simulator's time in those copies). It must not change what it is given.
   */
  list(
    kind: string,
    namespace?: string,
    labelSelector?: string,
    where?: (stored: Readonly<KubeObject>) => boolean,
  ): KubeObject[] {
    const requirements = parseLabelSelector(labelSelector ?? '');
    const matching: KubeObject[] = [];
    for (const obj of this.objectsOf(kind).values()) {
      if (namespace !== undefined && (obj.metadata.namespace ?? '') !== this.scopedNamespace(kind, namespace)) continue;
      if (!matchesRequirements(requirements, obj.metadata.labels)) continue;
      if (where && !where(obj)) continue;
      matching.push(jsonClone(obj));
    }
    // The real API lists in key order (namespace, then name); kubectl output relies on it.
    return matching.sort((left, right) =>
      keyOf(left.metadata.namespace ?? '', left.metadata.name).localeCompare(
        keyOf(right.metadata.namespace ?? '', right.metadata.name),
      ),
    );
  }

  update(input: KubeObject, options: WriteOptions = {}): KubeObject {
    const stored = this.storedFor(input);
    const next = jsonClone(input);
    next.metadata = { ...next.metadata, ...serverOwnedMetadata(stored) };
    this.setManagedFields(next, stored, options);
    // registry/generic/registry/store.go Update (shouldDeleteDuringUpdate): the update that takes
    // the last finalizer off an object being deleted deletes it instead of storing it.
    if (
      stored.metadata.deletionTimestamp &&
      !stored.metadata.deletionGracePeriodSeconds &&
      hasFinalizers(stored) &&
      !hasFinalizers(next)
    ) {
      const requestedVersion = next.metadata.resourceVersion;
      if (requestedVersion && requestedVersion !== stored.metadata.resourceVersion)
        throw conflict(typeOf(stored.kind), stored.metadata.name);
      if (options.dryRun) return next;
      return this.removeNow(stored, options);
    }
    return this.commitUpdate(stored, next, options);
  }

  updateStatus(input: KubeObject, options: WriteOptions = {}): KubeObject {
    const stored = this.storedFor(input);
    const next = jsonClone(stored);
    if (input.status === undefined) delete next.status;
    else next.status = jsonClone(input.status);
    if (input.metadata?.resourceVersion) next.metadata.resourceVersion = input.metadata.resourceVersion;
    this.setManagedFields(next, stored, options);
    return this.commitUpdate(stored, next, options);
  }

  /**
   * Deletes and cascades. An object with finalizers is not removed: as registry/generic/registry/
   * store.go Delete (updateForGracefulDeletionAndFinalizers) does, it gets deletionTimestamp (now)
   * and deletionGracePeriodSeconds 0 and stays until an update takes its last finalizer off.
   * The returned copy tells which happened: it still has finalizers when the object stays.
   */
  delete(kind: string, namespace: string, name: string, options: DeleteOptions = {}): KubeObject | undefined {
    const objects = this.objectsOf(kind);
    const key = keyOf(this.scopedNamespace(kind, namespace), name);
    const stored = objects.get(key);
    if (!stored) return undefined;
    if (hasFinalizers(stored)) return this.markDeleting(stored, options);
    if (options.dryRun) return jsonClone(stored);
    return this.removeNow(stored, options);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  currentResourceVersion(): number {
    return this.resourceVersion;
  }

  /** Every stored object, of every kind (copies): for tests that compare whole cluster states. */
  everything(): KubeObject[] {
    return [...this.objectsByKind.values()].flatMap((objects) => [...objects.values()].map((obj) => jsonClone(obj)));
  }

  private markDeleting(stored: KubeObject, options: DeleteOptions): KubeObject {
    if (stored.metadata.deletionTimestamp) return jsonClone(stored);
    const next = jsonClone(stored);
    next.metadata.deletionTimestamp = this.clock.nowIso();
    next.metadata.deletionGracePeriodSeconds = 0;
    if (options.dryRun) return next;
    next.metadata.resourceVersion = String(++this.resourceVersion);
    this.objectsOf(stored.kind).set(keyOf(stored.metadata.namespace ?? '', stored.metadata.name), next);
    this.emit('MODIFIED', next);
    return jsonClone(next);
  }

  private removeNow(stored: KubeObject, options: DeleteOptions): KubeObject {
    this.objectsOf(stored.kind).delete(keyOf(stored.metadata.namespace ?? '', stored.metadata.name));
    const deleted = jsonClone(stored);
    deleted.metadata.resourceVersion = String(++this.resourceVersion);
    this.emit('DELETED', deleted);
    if (!options.orphanDependents) this.deleteDependents(deleted);
    return jsonClone(deleted);
  }

  /** Background cascading deletion, done at once: what the garbage collector would do shortly after. */
  private deleteDependents(owner: KubeObject): void {
    const dependents: KubeObject[] = [];
    for (const objects of this.objectsByKind.values()) {
      for (const obj of objects.values()) {
        const ownedByIt = obj.metadata.ownerReferences?.some((reference) => reference.uid === owner.metadata.uid);
        const insideDeletedNamespace = owner.kind === 'Namespace' && obj.metadata.namespace === owner.metadata.name;
        if (ownedByIt || insideDeletedNamespace) dependents.push(obj);
      }
    }
    for (const dependent of dependents) {
      this.delete(dependent.kind, dependent.metadata.namespace ?? '', dependent.metadata.name);
    }
  }

  private commitUpdate(stored: KubeObject, next: KubeObject, options: WriteOptions): KubeObject {
    const type = typeOf(stored.kind);
    const requestedVersion = next.metadata.resourceVersion;
    if (requestedVersion && requestedVersion !== stored.metadata.resourceVersion)
      throw conflict(type, stored.metadata.name);
    next.metadata.resourceVersion = stored.metadata.resourceVersion;
    if (jsonEqual(next, stored)) return jsonClone(stored);

    if (type.hasGeneration && !jsonEqual(next.spec, stored.spec))
      next.metadata.generation = (stored.metadata.generation ?? 0) + 1;
    if (options.dryRun) return next;
    next.metadata.resourceVersion = String(++this.resourceVersion);
    this.objectsOf(stored.kind).set(keyOf(stored.metadata.namespace ?? '', stored.metadata.name), next);
    this.emit('MODIFIED', next);
    return jsonClone(next);
  }

  private setManagedFields(next: KubeObject, stored: KubeObject, options: WriteOptions): void {
    const managedFields = 'managedFields' in options ? options.managedFields : stored.metadata.managedFields;
    if (managedFields === undefined) delete next.metadata.managedFields;
    else next.metadata.managedFields = jsonClone(managedFields);
  }

  private storedFor(input: KubeObject): KubeObject {
    const type = typeOf(input.kind);
    const name = input.metadata?.name ?? '';
    const stored = this.objectsOf(input.kind).get(
      keyOf(this.scopedNamespace(input.kind, input.metadata?.namespace), name),
    );
    if (!stored) throw notFound(type, name);
    return stored;
  }

  private scopedNamespace(kind: string, namespace: string | undefined): string {
    if (!typeOf(kind).namespaced) return '';
    return namespace || 'default';
  }

  private objectsOf(kind: string): Map<string, KubeObject> {
    let objects = this.objectsByKind.get(kind);
    if (!objects) {
      objects = new Map();
      this.objectsByKind.set(kind, objects);
    }
    return objects;
  }

  private emit(type: WatchEventType, obj: KubeObject): void {
    const event: StoreEvent = { type, object: obj, resourceVersion: Number(obj.metadata.resourceVersion) };
    // Each listener gets its own copy so one cannot corrupt what another (or the store) sees.
    for (const listener of [...this.listeners]) listener({ ...event, object: jsonClone(obj) });
  }
}

/** Fields only the server sets; an update cannot change them. */
function serverOwnedMetadata(stored: KubeObject): Partial<KubeObject['metadata']> {
  const { name, namespace, uid, creationTimestamp, generation } = stored.metadata;
  const owned: Partial<KubeObject['metadata']> = { name, uid, creationTimestamp };
  if (namespace !== undefined) owned.namespace = namespace;
  if (generation !== undefined) owned.generation = generation;
  return owned;
}

function hasFinalizers(obj: KubeObject): boolean {
  return Array.isArray(obj.metadata.finalizers) && obj.metadata.finalizers.length > 0;
}

function typeOf(kind: string): ResourceType {
  const type = resourceTypeForKind(kind);
  if (!type) throw new ApiError(404, 'NotFound', `the server could not find the requested resource (kind ${kind})`);
  return type;
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += alphabet[Math.floor(Math.random() * alphabet.length)];
  return suffix;
}
