// POST, PUT, PATCH and DELETE on resources (the object itself and its /status). Every write
// goes through the same admission steps as in the real server: namespace must exist, server-set
// fields are protected, defaults are applied, then validation; `?dryRun=All` stops before storing.

import { randomUUID } from 'node:crypto';
import { ApiError, badRequest, notFound, preconditionConflict } from '../errors.js';
import { apiVersionOf, resourceTypeForKind, type ResourceType } from '../kinds.js';
import { isJsonObject, jsonClone, jsonEqual, type JsonObject, type JsonValue } from '../json.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { applyDefaults } from './defaults.js';
import { admitDefaultIngressClass } from './default-ingress-class.js';
import { applyPatch, type PatchType } from './patch/index.js';
import { recordApply, recordUpdate, type FieldManagerRequest } from './managedFields/index.js';
import { strictDecodingMessage, unknownFields } from './knownFields.js';
import { prepareJobForCreate } from './jobs.js';
import { getObject } from './reads.js';
import type { ResourceRoute } from './routing.js';
import { validate } from './validation.js';

export interface WriteResult {
  code: number;
  body: object;
  /** For `Warning` headers (unknown fields under fieldValidation=Warn). */
  warnings?: string[];
}

export interface WriteRequest {
  dryRun: boolean;
  /** The `fieldValidation` query parameter; the real server's default is Warn. */
  fieldValidation: 'Strict' | 'Warn' | 'Ignore';
  /** Who is writing, for metadata.managedFields. */
  fieldManager: FieldManagerIdentity;
}

export interface FieldManagerIdentity {
  /** `?fieldManager=`, or what the User-Agent gives (handlers/rest.go managerOrUserAgent). */
  manager: string;
  now: string;
  /** `?force=true` (`kubectl apply --server-side --force-conflicts`). */
  force: boolean;
  /** Set by the /scale handler, which writes the parent object. */
  subresource?: string;
}

type NamedRoute = ResourceRoute & { name: string };

export function createObject(store: Store, route: ResourceRoute, body: unknown, request: WriteRequest): WriteResult {
  const obj = asObjectFor(route.type, body);
  const warnings = checkFields(obj, route.type, request);
  const bodyNamespace = obj.metadata.namespace;
  if (route.type.namespaced) {
    if (route.namespace === undefined)
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    if (bodyNamespace && bodyNamespace !== route.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    requireNamespace(store, route.namespace);
    obj.metadata.namespace = route.namespace;
  }
  // The status of a type with a /status subresource is the controllers' to write, not the client's.
  if (route.type.subresources.includes('status')) delete obj.status;
  delete obj.metadata.deletionTimestamp;
  delete obj.metadata.deletionGracePeriodSeconds;
  applyDefaults(obj);
  admitDefaultIngressClass(store, obj);
  recordUpdate(undefined, obj, managerOf(route, request));
  const uid = prepareForCreate(obj);
  validate(obj);
  return { code: 201, body: store.create(obj, { dryRun: request.dryRun, uid }), warnings };
}

/**
 * The registry strategy's PrepareForCreate, after defaulting and the field manager (as the real
 * create handler orders them, so a Job's generated selector is owned by no one). The uid is
 * given here, as rest.FillObjectMetaSystemFields does before the strategy runs.
 */
function prepareForCreate(obj: KubeObject): string {
  const uid = randomUUID();
  obj.metadata.uid = uid;
  if (obj.kind === 'Job') prepareJobForCreate(obj, uid);
  if (obj.kind === 'DaemonSet') setTemplateGeneration(obj, 1);
  return uid;
}

/**
 * The registry strategy's PrepareForUpdate: a DaemonSet's template generation (kept in the
 * deprecated.daemonset.template.generation annotation in apps/v1) goes up when its template
 * changes, and is the server's, whatever the client sent (pkg/registry/apps/daemonset/strategy.go).
 */
function prepareForUpdate(obj: KubeObject, stored: KubeObject): void {
  if (obj.kind !== 'DaemonSet') return;
  const current = Number(stored.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION] ?? 1) || 1;
  setTemplateGeneration(obj, jsonEqual(obj.spec?.template, stored.spec?.template) ? current : current + 1);
}

const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  obj.metadata.annotations = {
    ...(obj.metadata.annotations ?? {}),
    [TEMPLATE_GENERATION_ANNOTATION]: String(generation),
  };
}

function managerOf(route: ResourceRoute, request: WriteRequest): FieldManagerRequest {
  const subresource = route.subresource ?? request.fieldManager.subresource;
  return {
    manager: request.fieldManager.manager,
    apiVersion: apiVersionOf(route.type),
    subresource,
    hasStatusSubresource: route.type.subresources.includes('status'),
    now: request.fieldManager.now,
  };
}

export function replaceObject(store: Store, route: NamedRoute, body: unknown, request: WriteRequest): WriteResult {
  const obj = asObjectFor(route.type, body);
  if (obj.metadata.name !== route.name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${route.name})`,
    );
  }
  const stored = getObject(store, route);
  const warnings = checkFields(obj, route.type, request, stored);
  obj.metadata.namespace = stored.metadata.namespace;
  requireUid(route, obj, stored);
  if (route.subresource === 'status')
    return { code: 200, body: updateStatus(store, route, obj, stored, request), warnings };
  return { code: 200, body: admitUpdate(store, route, obj, stored, request), warnings };
}

/**
 * A uid in the body is a precondition (registry/rest/update.go defaultUpdatedObjectInfo.Preconditions),
 * checked by the storage before the resourceVersion (storage/etcd3/store.go checkPreconditions) and
 * reported through storage/errors InterpretUpdateError as a Conflict around the StorageError text.
 */
function requireUid(route: NamedRoute, obj: KubeObject, stored: KubeObject): void {
  const uid = obj.metadata.uid;
  if (!uid || uid === stored.metadata.uid) return;
  const key = `/registry/${route.type.plural}/${stored.metadata.namespace ? `${stored.metadata.namespace}/` : ''}${stored.metadata.name}`;
  const storageError = `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.metadata.uid}`;
  throw preconditionConflict(route.type, stored.metadata.name, storageError);
}

function updateStatus(
  store: Store,
  route: NamedRoute,
  obj: KubeObject,
  stored: KubeObject,
  request: WriteRequest,
): KubeObject {
  const next = { ...jsonClone(stored), status: obj.status };
  recordUpdate(stored, next, managerOf(route, request));
  return store.updateStatus(obj, { dryRun: request.dryRun, managedFields: next.metadata.managedFields });
}

export function patchObject(
  store: Store,
  route: NamedRoute,
  patchType: PatchType,
  patch: JsonValue,
  request: WriteRequest,
): WriteResult {
  const stored = store.get(route.type.kind, route.namespace ?? '', route.name);
  const apply = patchType === 'apply' && !route.subresource;
  if (patchType === 'apply' && !isJsonObject(patch)) throw badRequest('the apply configuration must be an object');
  if (!stored) {
    // Server-side apply creates what does not exist yet.
    if (!apply) throw notFound(route.type, route.name);
    return applyToMissing(store, route, patch as JsonObject, request);
  }
  const patched = applyPatch(patchType, stored as unknown as JsonValue, patch);
  if (!isJsonObject(patched)) throw badRequest('the patch did not produce an object');
  const obj = patched as unknown as KubeObject;
  obj.kind = stored.kind;
  obj.apiVersion = stored.apiVersion;
  obj.metadata = { ...obj.metadata, name: stored.metadata.name };
  if (stored.metadata.namespace !== undefined) obj.metadata.namespace = stored.metadata.namespace;
  const warnings = checkFields(obj, route.type, request, stored);
  if (route.subresource === 'status')
    return { code: 200, body: updateStatus(store, route, obj, stored, request), warnings };
  if (!apply) return { code: 200, body: admitUpdate(store, route, obj, stored, request), warnings };
  const applied = recordApply(
    stored,
    obj,
    patch as JsonObject,
    managerOf(route, request),
    request.fieldManager.force,
    (merged) => {
      keepStoredStatus(route.type, merged, stored);
      keepDeletionState(merged, stored);
      applyDefaults(merged);
      prepareForUpdate(merged, stored);
      validate(merged, stored);
      return merged;
    },
  );
  return {
    code: 200,
    body: store.update(applied, { dryRun: request.dryRun, managedFields: applied.metadata.managedFields }),
    warnings,
  };
}

function applyToMissing(store: Store, route: NamedRoute, patch: JsonObject, request: WriteRequest): WriteResult {
  const skeleton = { apiVersion: apiVersionOf(route.type), kind: route.type.kind, metadata: { name: route.name } };
  const merged = applyPatch('apply', skeleton, patch) as unknown as KubeObject;
  const obj = asObjectFor(route.type, { ...merged, metadata: { ...merged.metadata, name: route.name } });
  const warnings = checkFields(obj, route.type, request);
  if (route.type.namespaced && route.namespace !== undefined) {
    requireNamespace(store, route.namespace);
    obj.metadata.namespace = route.namespace;
  }
  if (route.type.subresources.includes('status')) delete obj.status;
  const created = recordApply(
    undefined,
    obj,
    patch,
    managerOf(route, request),
    request.fieldManager.force,
    (merged) => {
      applyDefaults(merged);
      admitDefaultIngressClass(store, merged);
      return merged;
    },
  );
  const uid = prepareForCreate(created);
  validate(created);
  return { code: 201, body: store.create(created, { dryRun: request.dryRun, uid }), warnings };
}

/** The object's spec may change through PUT/PATCH, its status only through /status. */
function admitUpdate(
  store: Store,
  route: NamedRoute,
  obj: KubeObject,
  stored: KubeObject,
  request: WriteRequest,
): KubeObject {
  keepStoredStatus(route.type, obj, stored);
  keepDeletionState(obj, stored);
  applyDefaults(obj);
  prepareForUpdate(obj, stored);
  validate(obj, stored);
  recordUpdate(stored, obj, managerOf(route, request));
  return store.update(obj, { dryRun: request.dryRun, managedFields: obj.metadata.managedFields });
}

/**
 * Only a DELETE starts a deletion: the client's copy neither sets nor clears deletionTimestamp
 * (registry/rest/update.go BeforeUpdate keeps the system fields of the stored object).
 */
function keepDeletionState(obj: KubeObject, stored: KubeObject): void {
  delete obj.metadata.deletionTimestamp;
  delete obj.metadata.deletionGracePeriodSeconds;
  if (stored.metadata.deletionTimestamp) obj.metadata.deletionTimestamp = stored.metadata.deletionTimestamp;
  if (stored.metadata.deletionGracePeriodSeconds !== undefined)
    obj.metadata.deletionGracePeriodSeconds = stored.metadata.deletionGracePeriodSeconds;
}

function keepStoredStatus(type: ResourceType, obj: KubeObject, stored: KubeObject): void {
  if (!type.subresources.includes('status')) return;
  if (stored.status === undefined) delete obj.status;
  else obj.status = stored.status;
}

/**
 * Strict: 400 for unknown fields. Warn and Ignore: they are dropped (as decoding does), Warn reports
 * them. Fields already in the stored object (written by the controllers) are not the client's doing.
 */
function checkFields(
  obj: KubeObject,
  type: ResourceType,
  request: WriteRequest,
  stored?: KubeObject,
): string[] | undefined {
  const preexisting = new Set(stored ? unknownFields(stored) : []);
  const unknown = unknownFields(obj, request.fieldValidation !== 'Strict').filter((field) => !preexisting.has(field));
  if (unknown.length === 0 || request.fieldValidation === 'Ignore') return undefined;
  if (request.fieldValidation === 'Strict') throw badRequest(strictDecodingMessage(type.kind, type.version, unknown));
  return unknown.map((field) => `unknown field "${field}"`);
}

function asObjectFor(type: ResourceType, body: unknown): KubeObject {
  if (!isJsonObject(body as JsonValue)) throw badRequest('the request body must be a JSON object');
  const obj = body as unknown as KubeObject;
  if (obj.kind !== undefined && obj.kind !== type.kind) {
    const bodyType = resourceTypeForKind(obj.kind);
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersionOf(type)})${bodyType ? '' : `: unknown kind ${obj.kind}`}`,
    );
  }
  obj.kind = type.kind;
  obj.apiVersion ??= apiVersionOf(type);
  if (!isJsonObject(obj.metadata as unknown as JsonValue)) obj.metadata = { name: '' };
  return obj;
}

function requireNamespace(store: Store, namespace: string): void {
  if (!store.get('Namespace', '', namespace)) throw notFound({ plural: 'namespaces', group: '' }, namespace);
}
