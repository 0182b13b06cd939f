// POST, PUT, PATCH and DELETE on resources (the object itself and its /status). Every write
// goes through the same admission steps as in the real server: namespace must exist, server-set
// fields are protected, defaults are applied, then validation; `?dryRun=All` stops before storing.

import { ApiError, badRequest, notFound } from '../errors.js';
import { apiVersionOf, resourceTypeForKind, type ResourceType } from '../kinds.js';
import { isJsonObject, type JsonValue } from '../json.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { applyDefaults } from './defaults.js';
import { applyPatch, type PatchType } from './patch/index.js';
import type { AppliedConfigurations } from './patch/serverSideApply.js';
import { strictDecodingMessage, unknownFields } from './knownFields.js';
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
  /** For server-side apply: what each field manager applied before, and this request's manager. */
  serverSideApply?: { applied: AppliedConfigurations; fieldManager: string };
}

type NamedRoute = ResourceRoute & { name: string };

export function createObject(store: Store, route: ResourceRoute, body: unknown, request: WriteRequest): WriteResult {
  const obj = asObjectFor(route.type, body);
  const warnings = checkFields(obj, route.type, request);
  const bodyNamespace = obj.metadata.namespace;
  if (route.type.namespaced) {
    if (route.namespace === undefined) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    if (bodyNamespace && bodyNamespace !== route.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    requireNamespace(store, route.namespace);
    obj.metadata.namespace = route.namespace;
  }
  // The status of a type with a /status subresource is the controllers' to write, not the client's.
  if (route.type.subresources.includes('status')) delete obj.status;
  applyDefaults(obj);
  validate(obj);
  return { code: 201, body: store.create(obj, { dryRun: request.dryRun }), warnings };
}

export function replaceObject(store: Store, route: NamedRoute, body: unknown, request: WriteRequest): WriteResult {
  const obj = asObjectFor(route.type, body);
  if (obj.metadata.name !== route.name) {
    throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${route.name})`);
  }
  const stored = getObject(store, route);
  const warnings = checkFields(obj, route.type, request, stored);
  obj.metadata.namespace = stored.metadata.namespace;
  if (route.subresource === 'status') return { code: 200, body: store.updateStatus(obj, { dryRun: request.dryRun }), warnings };
  return { code: 200, body: admitUpdate(store, route.type, obj, stored, request.dryRun), warnings };
}

export function patchObject(store: Store, route: NamedRoute, patchType: PatchType, patch: JsonValue, request: WriteRequest): WriteResult {
  const stored = store.get(route.type.kind, route.namespace ?? '', route.name);
  const ssa = patchType === 'apply' && !route.subresource ? request.serverSideApply : undefined;
  if (!stored) {
    // Server-side apply creates what does not exist yet.
    if (patchType !== 'apply' || route.subresource) throw notFound(route.type, route.name);
    const skeleton = { apiVersion: apiVersionOf(route.type), kind: route.type.kind, metadata: { name: route.name } };
    const created = applyPatch('apply', skeleton, patch) as KubeObject;
    const result = createObject(store, route, { ...created, metadata: { ...created.metadata, name: route.name } }, request);
    rememberApplied(ssa, result.body as KubeObject, patch, request.dryRun);
    return result;
  }
  const removal = ssa && ssa.applied.removalPatch(stored.metadata.uid!, ssa.fieldManager, patch);
  const base = removal ? applyPatch('strategic', stored as unknown as JsonValue, removal) : (stored as unknown as JsonValue);
  const patched = applyPatch(patchType, base, patch);
  if (!isJsonObject(patched)) throw badRequest('the patch did not produce an object');
  const obj = patched as unknown as KubeObject;
  obj.kind = stored.kind;
  obj.apiVersion = stored.apiVersion;
  obj.metadata = { ...obj.metadata, name: stored.metadata.name };
  if (stored.metadata.namespace !== undefined) obj.metadata.namespace = stored.metadata.namespace;
  const warnings = checkFields(obj, route.type, request, stored);
  if (route.subresource === 'status') return { code: 200, body: store.updateStatus(obj, { dryRun: request.dryRun }), warnings };
  const updated = admitUpdate(store, route.type, obj, stored, request.dryRun);
  rememberApplied(ssa, updated, patch, request.dryRun);
  return { code: 200, body: updated, warnings };
}

function rememberApplied(ssa: WriteRequest['serverSideApply'], obj: KubeObject, configuration: JsonValue, dryRun: boolean): void {
  if (ssa && !dryRun && obj.metadata?.uid) ssa.applied.remember(obj.metadata.uid, ssa.fieldManager, configuration);
}

/** The object's spec may change through PUT/PATCH, its status only through /status. */
function admitUpdate(store: Store, type: ResourceType, obj: KubeObject, stored: KubeObject, dryRun: boolean): KubeObject {
  if (type.subresources.includes('status')) {
    if (stored.status === undefined) delete obj.status;
    else obj.status = stored.status;
  }
  applyDefaults(obj);
  validate(obj, stored);
  return store.update(obj, { dryRun });
}

/**
 * Strict: 400 for unknown fields. Warn and Ignore: they are dropped (as decoding does), Warn reports
 * them. Fields already in the stored object (written by the controllers) are not the client's doing.
 */
function checkFields(obj: KubeObject, type: ResourceType, request: WriteRequest, stored?: KubeObject): string[] | undefined {
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
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${apiVersionOf(type)})${bodyType ? '' : `: unknown kind ${obj.kind}`}`);
  }
  obj.kind = type.kind;
  obj.apiVersion ??= apiVersionOf(type);
  if (!isJsonObject(obj.metadata as unknown as JsonValue)) obj.metadata = { name: '' };
  return obj;
}

function requireNamespace(store: Store, namespace: string): void {
  if (!store.get('Namespace', '', namespace)) throw notFound({ plural: 'namespaces', group: '' }, namespace);
}
