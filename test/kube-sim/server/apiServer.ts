// The HTTP front of the simulated API server: plain HTTP on 127.0.0.1, no auth. Serves
// /version, discovery, OpenAPI v3 and the REST resources, with faults applied first.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { ApiContext } from './context.js';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  isKnownGroup,
  isKnownGroupVersion,
  legacyApiVersions,
  legacyGroup,
  legacyGroupList,
  legacyResourceList,
  negotiateAggregatedDiscovery,
} from './discovery.js';
import type { AggregatedApiService } from '../scenario-crowd.js';
import {
  legacyAggregatedGroups,
  sendServiceUnavailable,
  servedByUnavailable,
  staleDiscoveryItems,
  unavailableGroupVersions,
} from './aggregation.js';
import { controlFaults, CONTROL_PATH } from './control.js';
import { FaultInjector, requestDeadlineExceeded, type Faults } from './faults.js';
import { openApiDocument, openApiRoot } from './openapi.js';
import { isWatchRequest, serveResource } from './resources.js';
import { reviewSelfAccess } from './access.js';
import { decodeProtobufObject, isProtobuf } from './protobuf.js';
import { parseJson, readBody, sendError, sendJson, sendText } from './responses.js';
import { parseGroupPath, parseGroupVersionPath, parseResourcePath } from './routing.js';
import { WatchHistory } from './watchHistory.js';

/** kubectl's dispatcher picks the kubectl matching the server's minor version; 1.32 keeps its built-in one. */
const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export interface RequestRecord {
  method: string;
  url: string;
  status: number;
}

export interface ApiServer {
  url: string;
  port: number;
  faults: Faults;
  /** The most recent requests (up to 1000), oldest first: handy to see what kubectl sent. */
  requests: RequestRecord[];
  /** "METHOD /path?query" of each request as it arrives, before any answer (or injected latency). */
  arrivals: string[];
  /** How many watch streams are open now. */
  openWatchCount(): number;
  close(): Promise<void>;
}

const REQUEST_LOG_SIZE = 1000;

export interface ApiServerOptions {
  port?: number;
  /** false: /api and /apis answer only the legacy documents (a server before 1.27, or a proxy). Default true. */
  aggregatedDiscovery?: boolean;
  /** Registered APIServices whose backend does not answer (server/aggregation.ts). */
  unavailableApiServices?: AggregatedApiService[];
}

export async function startApiServer(
  store: Store,
  clock: SimClock,
  options: ApiServerOptions = {},
): Promise<ApiServer> {
  const unavailable = unavailableGroupVersions(options.unavailableApiServices ?? []);
  const history = new WatchHistory(store);
  const openWatches = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const requests: RequestRecord[] = [];
  const arrivals: string[] = [];
  const context: ApiContext = { store, clock, history, openWatches };
  let listening = false;

  const server: Server = createServer((req, res) => {
    arrivals.push(`${req.method ?? ''} ${req.url ?? ''}`);
    if (arrivals.length > REQUEST_LOG_SIZE) arrivals.splice(0, arrivals.length - REQUEST_LOG_SIZE);
    // Logged once the server is done with it: answered, or (a watch) its client went away.
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      requests.push({ method: req.method ?? '', url: req.url ?? '', status: res.statusCode });
      if (requests.length > REQUEST_LOG_SIZE) requests.splice(0, requests.length - REQUEST_LOG_SIZE);
    };
    res.on('finish', log);
    res.on('close', log);
    handleRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, error);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const endWatches = (): void => {
    for (const res of [...openWatches]) res.end();
  };
  const goOffline = async (): Promise<void> => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  const goOnline = async (): Promise<void> => {
    if (listening) return;
    await listen(server, port);
    listening = true;
  };
  const faults = new FaultInjector({ goOffline, goOnline, endWatches });

  await listen(server, options.port ?? 0);
  listening = true;
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;

  async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = new URL(req.url ?? '/', url);
    const pathname = parsed.pathname.replace(/\/+$/, '') || '/';
    const query = parsed.searchParams;
    const route = parseResourcePath(pathname);

    // The shell's way to inject faults (control.ts): never itself slowed or failed.
    if (pathname === CONTROL_PATH && req.method === 'POST') return controlFaults(req, res, faults);
    const facts = { method: req.method ?? 'GET', url: req.url ?? '/', route, isWatch: isWatchRequest(query) };
    await faults.delay(facts);
    const failure = faults.failureFor(facts) ?? faults.deniedFor(facts);
    if (failure) return sendError(res, failure);
    if (route?.type.kind === 'SelfSubjectAccessReview') {
      if (req.method !== 'POST' || route.name !== undefined)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      const body = await readBody(req);
      const review = reviewSelfAccess(
        isProtobuf(req.headers['content-type']) ? decodeProtobufObject(body) : parseJson(body.toString('utf8')),
        faults.access,
      );
      return sendJson(res, review.code, review.body);
    }

    if (servedByUnavailable(pathname, unavailable)) return sendServiceUnavailable(res);
    if (route && faults.timesOutAfterCommit(facts))
      return serveThenTimeOut(req, res, () => serveResource(context, route, query, req, res));
    if (route) return serveResource(context, route, query, req, res);
    if (req.method !== 'GET') throw notFoundPath();
    return serveNonResource(pathname, req, res);
  }

  /**
   * The write runs to the end (stored, watch events sent) but its answer is dropped: the client
   * gets the 504 a timed-out request gets, unless the write itself failed.
   */
  async function serveThenTimeOut(
    _req: IncomingMessage,
    res: ServerResponse,
    serve: () => Promise<void>,
  ): Promise<void> {
    const writeHead = res.writeHead.bind(res);
    const end = res.end.bind(res);
    let head: Parameters<typeof res.writeHead> | undefined;
    let body: Parameters<typeof res.end> | undefined;
    res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
      head = args;
      return res;
    }) as typeof res.writeHead;
    res.end = ((...args: Parameters<typeof res.end>) => {
      body = args;
      return res;
    }) as typeof res.end;
    try {
      await serve();
    } finally {
      res.writeHead = writeHead;
      res.end = end;
    }
    if (head && head[0] >= 400) {
      writeHead(...head);
      end(...(body ?? []));
      return;
    }
    sendError(res, requestDeadlineExceeded());
  }

  function serveNonResource(pathname: string, req: IncomingMessage, res: ServerResponse): void {
    if (pathname === '/version') return sendJson(res, 200, VERSION_INFO);
    if (pathname === '/healthz' || pathname === '/livez' || pathname === '/readyz') return sendText(res, 200, 'ok');
    if (pathname === '/api' || pathname === '/apis') {
      const aggregated =
        options.aggregatedDiscovery === false ? undefined : negotiateAggregatedDiscovery(req.headers.accept);
      const core = pathname === '/api';
      if (aggregated) {
        res.setHeader('Vary', 'Accept');
        const document = aggregatedDiscovery(aggregated, core) as { items: object[] };
        if (!core) document.items.push(...staleDiscoveryItems(unavailable));
        return sendJson(res, 200, document, aggregatedContentType(aggregated));
      }
      if (core) return sendJson(res, 200, legacyApiVersions(`127.0.0.1:${port}`));
      const groups = legacyGroupList() as { groups: object[] };
      groups.groups.push(...legacyAggregatedGroups(unavailable));
      return sendJson(res, 200, groups);
    }
    const groupVersion = parseGroupVersionPath(pathname);
    if (groupVersion && isKnownGroupVersion(groupVersion.group, groupVersion.version)) {
      return sendJson(res, 200, legacyResourceList(groupVersion.group, groupVersion.version));
    }
    const group = parseGroupPath(pathname);
    if (group && isKnownGroup(group)) return sendJson(res, 200, legacyGroup(group));
    const aggregatedGroup = legacyAggregatedGroups(unavailable).find(
      (candidate) => (candidate as { name: string }).name === group,
    );
    if (aggregatedGroup) return sendJson(res, 200, aggregatedGroup);
    if (pathname === '/openapi/v3') return sendJson(res, 200, openApiRoot());
    const document = pathname.startsWith('/openapi/v3/') ? openApiDocument(pathname) : undefined;
    if (document) return sendJson(res, 200, document);
    // /openapi/v2 stays 404 on purpose: kubectl ≥1.29 then uses its compiled-in types.
    throw notFoundPath();
  }

  return {
    url,
    port,
    faults,
    requests,
    arrivals,
    openWatchCount: () => openWatches.size,
    async close() {
      faults.stop();
      endWatches();
      history.stop();
      await goOffline();
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
