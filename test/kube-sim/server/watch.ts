// `?watch=true` on a list path: a chunked stream of `{"type":…,"object":…}\n` lines.
//   resourceVersion absent or "0"  → synthetic ADDED for every current object, then live changes
//   resourceVersion=N              → replay changes after N from history, then live changes;
//                                    an ERROR event (410 Expired) if N is older than the history
//   sendInitialEvents=true         → (a streaming list, KEP-3157: client-go's WatchListClient, on
//                                    in kubectl 1.35) synthetic ADDED for every current object, then a
//                                    BOOKMARK annotated "k8s.io/initial-events-end": "true" at the
//                                    current resourceVersion, then live changes. It needs
//                                    resourceVersionMatch=NotOlderThan, as the API server's
//                                    validateWatchOptions (apimachinery meta/internalversion/validation) says.
// The stream ends after timeoutSeconds, when the client goes away, or when faults cut it.

import type { ServerResponse } from 'node:http';
import { invalid, type ApiError } from '../errors.js';
import { resourceTypeForKind, apiVersionOf } from '../kinds.js';
import { parseLabelSelector, matchesRequirements } from '../selectors.js';
import type { KubeObject } from '../types.js';
import { matchesFields, parseFieldSelector } from './fieldSelector.js';
import type { ResourceRoute } from './routing.js';
import type { ApiContext } from './context.js';
import { tableOf, type TableVersion } from './tables/index.js';
import type { HistoryEntry } from './watchHistory.js';

const BOOKMARK_INTERVAL_MS = 1000;

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export function serveWatch(
  context: ApiContext,
  route: ResourceRoute,
  query: URLSearchParams,
  res: ServerResponse,
  table?: TableVersion,
): void {
  const matches = matcherFor(route, query);
  const requestedVersion = query.get('resourceVersion');
  const initialEvents = query.get('sendInitialEvents');
  const match = query.get('resourceVersionMatch');
  if (initialEvents !== null && match !== 'NotOlderThan')
    throw listOptionsInvalid(
      'resourceVersionMatch',
      'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  if (initialEvents === null && match)
    throw listOptionsInvalid(
      'resourceVersionMatch',
      'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
  const streamingList = initialEvents === 'true';
  const replay =
    !streamingList && requestedVersion && requestedVersion !== '0'
      ? context.history.since(Number(requestedVersion))
      : undefined;

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Node sends headers only with the first body write; kubectl waits for them before it considers
  // the watch started (and `rollout status` then hangs forever), so send them now.
  res.flushHeaders();
  const send = (type: EventType, object: object): void => {
    if (res.writableEnded) return;
    // `kubectl get -w` without -o asks for Tables: each event then carries a one-row Table.
    const printed =
      table && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')
        ? tableOf(route.type.kind, [object as KubeObject], {
            version: table,
            now: context.clock.now(),
            includeObject: query.get('includeObject'),
          })
        : object;
    res.write(`${JSON.stringify({ type, object: printed })}\n`);
  };

  if (replay === 'expired') {
    send('ERROR', {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `too old resource version: ${requestedVersion} (${context.history.oldestReplayableVersion()})`,
      reason: 'Expired',
      code: 410,
    });
    res.end();
    return;
  }

  if (replay === undefined) {
    for (const obj of context.store.list(route.type.kind, route.namespace)) if (matches(obj)) send('ADDED', obj);
    if (streamingList) {
      const type = resourceTypeForKind(route.type.kind)!;
      send('BOOKMARK', {
        kind: type.kind,
        apiVersion: apiVersionOf(type),
        metadata: {
          resourceVersion: String(context.store.currentResourceVersion()),
          creationTimestamp: null,
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      });
    }
  } else {
    for (const entry of replay) forward(entry);
  }
  const unsubscribe = context.history.subscribe(forward);
  context.openWatches.add(res);

  const timers: NodeJS.Timeout[] = [];
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '');
  if (timeoutSeconds > 0) timers.push(setTimeout(() => res.end(), timeoutSeconds * 1000));
  if (query.get('allowWatchBookmarks') === 'true') {
    const type = resourceTypeForKind(route.type.kind)!;
    const bookmark = (): void =>
      send('BOOKMARK', {
        kind: type.kind,
        apiVersion: apiVersionOf(type),
        metadata: { resourceVersion: String(context.store.currentResourceVersion()), creationTimestamp: null },
      });
    timers.push(setInterval(bookmark, BOOKMARK_INTERVAL_MS));
  }

  // `res` 'close' fires when the client disconnects; `req` 'close' fires as soon as the request
  // body has been read, which would end the watch at once.
  res.on('close', () => {
    unsubscribe();
    for (const timer of timers) clearTimeout(timer);
    context.openWatches.delete(res);
  });

  function forward(entry: HistoryEntry): void {
    if (entry.object.kind !== route.type.kind) return;
    const matchesNow = matches(entry.object);
    // Without a known previous state, assume the match did not change.
    const matchedBefore = entry.previous ? matches(entry.previous) : matchesNow;
    if (entry.type === 'ADDED' && matchesNow) send('ADDED', entry.object);
    if (entry.type === 'DELETED' && matchesNow) send('DELETED', entry.object);
    if (entry.type === 'MODIFIED') {
      // As the watch cache does: an object entering the selection is ADDED, one leaving it DELETED.
      if (matchesNow && matchedBefore) send('MODIFIED', entry.object);
      else if (matchesNow) send('ADDED', entry.object);
      else if (matchedBefore) send('DELETED', entry.object);
    }
  }
}

function matcherFor(route: ResourceRoute, query: URLSearchParams): (obj: KubeObject) => boolean {
  const labelRequirements = parseLabelSelector(query.get('labelSelector') ?? '');
  const fieldRequirements = parseFieldSelector(query.get('fieldSelector'));
  return (obj) =>
    (route.namespace === undefined || obj.metadata.namespace === route.namespace) &&
    (route.name === undefined || obj.metadata.name === route.name) &&
    matchesRequirements(labelRequirements, obj.metadata.labels) &&
    matchesFields(fieldRequirements, obj);
}

/** A watch's options the API server refuses (422 Invalid, kind ListOptions of meta.k8s.io). */
function listOptionsInvalid(field: string, detail: string): ApiError {
  return invalid('ListOptions', 'meta.k8s.io', '', [
    { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` },
  ]);
}
