// Dispatches a request on a resource path to the read, write, watch or subresource handler.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { KubeObject } from '../types.js';
import type { ApiContext } from './context.js';
import { patchTypeOf } from './patch/index.js';
import { decodeProtobufObject, isProtobuf } from './protobuf.js';
import { getObject, listObjects } from './reads.js';
import { parseJson, readBody, sendJson, sendText } from './responses.js';
import type { ResourceRoute } from './routing.js';
import { getScale, podLog, writeScale } from './subresources.js';
import { negotiateTable, tableContentType, tableOf } from './tables/index.js';
import { serveWatch } from './watch.js';
import { deleteCollection, deleteObject, deleteRequestOf } from './deletes.js';
import { createObject, patchObject, replaceObject, type WriteRequest, type WriteResult } from './writes.js';

export function isWatchRequest(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1';
}

export async function serveResource(
  context: ApiContext,
  route: ResourceRoute,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method === 'GET') return serveRead(context, route, query, req, res);
  return serveWrite(context, route, query, req, res);
}

function serveRead(
  context: ApiContext,
  route: ResourceRoute,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const { store } = context;
  const table = negotiateTable(req.headers.accept);
  const printTable = (objects: KubeObject[], resourceVersion?: string): void => {
    const options = {
      version: table!,
      now: context.clock.now(),
      includeObject: query.get('includeObject'),
      resourceVersion,
    };
    sendJson(res, 200, tableOf(route.type.kind, objects, options), tableContentType(table!));
  };
  if (route.name === undefined) {
    if (isWatchRequest(query)) return serveWatch(context, route, query, res, table);
    const list = listObjects(store, route, query);
    if (table) return printTable(list.items, list.metadata.resourceVersion);
    return sendJson(res, 200, list);
  }
  const named = { ...route, name: route.name };
  if (route.subresource === 'log') return sendText(res, 200, podLog(store, named, query));
  if (route.subresource === 'scale') return sendJson(res, 200, getScale(store, named));
  const obj = getObject(store, named);
  if (table && route.subresource === undefined) return printTable([obj]);
  return sendJson(res, 200, obj);
}

async function serveWrite(
  context: ApiContext,
  route: ResourceRoute,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { store } = context;
  const dryRun = query.getAll('dryRun').includes('All');
  const request: WriteRequest = {
    dryRun,
    fieldValidation: fieldValidationOf(query),
    fieldManager: {
      manager: query.get('fieldManager') || managerFromUserAgent(req.headers['user-agent']),
      now: context.clock.nowIso(),
      force: query.get('force') === 'true',
    },
  };
  const body = await readBody(req);
  // Typed kubectl generators (`create deployment|namespace|configmap|secret|service`) send protobuf.
  const protobuf = isProtobuf(req.headers['content-type']);
  const bodyText = protobuf ? '' : body.toString('utf8');
  const parseBody = (): unknown => (protobuf ? decodeProtobufObject(body) : parseJson(bodyText));

  if (req.method === 'DELETE') {
    const deleteRequest = deleteRequestOf(bodyText, query, context.clock.now());
    const result =
      route.name === undefined
        ? deleteCollection(store, route, query.get('labelSelector') ?? undefined, deleteRequest)
        : deleteObject(store, { ...route, name: route.name }, deleteRequest);
    return sendJson(res, result.code, result.body);
  }
  if (req.method === 'POST' && route.name === undefined)
    return sendWriteResult(res, createObject(store, route, parseBody(), request));
  if (route.name === undefined || route.subresource === 'log' || (req.method !== 'PUT' && req.method !== 'PATCH')) {
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }

  const named = { ...route, name: route.name };
  const patchType = req.method === 'PATCH' ? patchTypeOf(req.headers['content-type']) : undefined;
  const change = (patchType ? parseJson(bodyText) : parseBody()) as JsonValue;
  if (route.subresource === 'scale')
    return sendJson(res, 200, writeScale(store, named, { patchType, body: change }, request));
  const result = patchType
    ? patchObject(store, named, patchType, change, request)
    : replaceObject(store, named, change, request);
  return sendWriteResult(res, result);
}

/** apiserver handlers/rest.go prefixFromUserAgent: what precedes the first `/` (kubectl sends `kubectl/v1.32.4 (…)`). */
function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0]!.slice(0, 128);
}

function fieldValidationOf(query: URLSearchParams): WriteRequest['fieldValidation'] {
  const requested = query.get('fieldValidation');
  return requested === 'Strict' || requested === 'Ignore' ? requested : 'Warn';
}

/** Warnings become `Warning: 299 - "…"` headers, which kubectl prints as `Warning: …`. */
function sendWriteResult(res: ServerResponse, result: WriteResult): void {
  if (result.warnings?.length)
    res.setHeader(
      'Warning',
      result.warnings.map((warning) => `299 - ${JSON.stringify(warning)}`),
    );
  sendJson(res, result.code, result.body);
}
