// API-level faults for reliability tests: an unreachable server, slow answers, scripted error
// answers (with the same Status bodies the real server sends), and cut watch streams.

import { ApiError, type StatusDetails } from '../errors.js';
import { qualifiedResource } from '../kinds.js';
import { AccessControl, forbiddenError, type AccessAttributes } from './access.js';
import type { ResourceRoute } from './routing.js';

export interface Faults {
  /**
   * Stop listening and drop every open connection, so kubectl gets "connection refused".
   * Resolves once the server is down. It comes back after `ms` of wall time, or on restore().
   */
  unreachable(ms?: number): Promise<void>;
  /** Undo every fault: listen again, no latency, no pending failures. */
  restore(): Promise<void>;
  /** Delay every answer by `ms` of wall time (0 turns it off). */
  latency(ms: number): void;
  /**
   * Answer the next `count` matching requests with `status` (500, 503, 429, 403, 409, 504…) and the
   * Status body the real server would send. Without `match` only resource requests count
   * (not /version, discovery or OpenAPI); with it, `match` is tested against "METHOD /path?query",
   * e.g. /^PATCH .*\/deployments\/web/.
   */
  failNext(status: number, count?: number, match?: RegExp | string): void;
  /**
   * Answer the next `count` matching requests `ms` of wall time late (a slow or hung API server
   * for one kind of request, e.g. /^PATCH [^?]*\/deployments\/web\?(?!.*dryRun)/ for the apply).
   * Matching as for failNext; the delay adds to latency().
   */
  slowNext(ms: number, count?: number, match?: RegExp | string): void;
  /** How many requests slowNext holds right now: a test acts while one is in flight. */
  held(): number;
  /** Lets every request slowNext holds go on now, as if its delay had passed. */
  release(): void;
  /**
   * The next `count` matching writes (POST, PUT, PATCH; DELETE with a `match`) are applied to the
   * store and then answered 504 Timeout, as when the API server's request deadline passes while
   * the storage write goes on (apiserver endpoints/handlers/finisher/finisher.go FinishRequest:
   * `Timeout: request did not complete within requested timeout - context deadline exceeded`).
   * A client that retries then meets its own write: 409 AlreadyExists for a create.
   */
  commitThenTimeout(count?: number, match?: RegExp | string): void;
  /** End every open watch stream (kubectl get -w exits 0; reflectors re-list and re-watch). */
  cutWatches(): void;
  /**
   * RBAC without the rule: from now on (until restore()) `verb` on `resource` ("configmaps",
   * "pods", "deployments/scale"; any group unless `group` is given), in `namespace` or in every
   * one, is refused with the RBAC authorizer's 403, and a SelfSubjectAccessReview about it says
   * allowed: false (server/access.ts). Everything else stays allowed.
   */
  deny(verb: string, resource: string, options?: { group?: string; namespace?: string }): void;
}

/** What the faults need from the HTTP server. */
export interface FaultTransport {
  goOffline(): Promise<void>;
  goOnline(): Promise<void>;
  endWatches(): void;
}

interface PendingFailure {
  status: number;
  remaining: number;
  match?: RegExp;
}

interface PendingDelay {
  ms: number;
  remaining: number;
  match?: RegExp;
}

export interface RequestFacts {
  method: string;
  /** Path plus query string, as received. */
  url: string;
  route?: ResourceRoute;
  isWatch: boolean;
}

export class FaultInjector implements Faults {
  private delayMs = 0;
  private failures: PendingFailure[] = [];
  private delays: PendingDelay[] = [];
  /** The requests slowNext holds now: each one's way to go on at once. */
  private holding = new Set<() => void>();
  private lateTimeouts: PendingDelay[] = [];
  private comeBackTimer: NodeJS.Timeout | undefined;
  /** What the simulated user may do: everything but the denied rules. */
  readonly access = new AccessControl();

  constructor(private readonly transport: FaultTransport) {}

  async unreachable(ms?: number): Promise<void> {
    clearTimeout(this.comeBackTimer);
    await this.transport.goOffline();
    if (ms !== undefined) {
      this.comeBackTimer = setTimeout(() => void this.transport.goOnline(), ms);
      this.comeBackTimer.unref();
    }
  }

  async restore(): Promise<void> {
    clearTimeout(this.comeBackTimer);
    this.delayMs = 0;
    this.failures = [];
    this.delays = [];
    this.lateTimeouts = [];
    this.access.clear();
    await this.transport.goOnline();
  }

  deny(verb: string, resource: string, options: { group?: string; namespace?: string } = {}): void {
    this.access.deny({ verb, resource, ...options });
  }

  /** The 403 for a resource request a denied rule covers, if any. */
  deniedFor(request: RequestFacts): ApiError | undefined {
    const route = request.route;
    if (!route) return undefined;
    const attributes: AccessAttributes = {
      verb: verbOf(request),
      group: route.type.group,
      resource: route.type.plural,
      subresource: route.subresource,
      namespace: route.namespace,
      name: route.name,
    };
    return this.access.allows(attributes) ? undefined : forbiddenError(attributes, route.type);
  }

  latency(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }

  failNext(status: number, count = 1, match?: RegExp | string): void {
    const pattern = typeof match === 'string' ? new RegExp(match) : match;
    this.failures.push({ status, remaining: count, match: pattern });
  }

  slowNext(ms: number, count = 1, match?: RegExp | string): void {
    const pattern = typeof match === 'string' ? new RegExp(match) : match;
    this.delays.push({ ms: Math.max(0, ms), remaining: count, match: pattern });
  }

  commitThenTimeout(count = 1, match?: RegExp | string): void {
    const pattern = typeof match === 'string' ? new RegExp(match) : match;
    this.lateTimeouts.push({ ms: 0, remaining: count, match: pattern });
  }

  cutWatches(): void {
    this.transport.endWatches();
  }

  /** Whether this write is to be stored and then answered 504 (and consumes the fault). */
  timesOutAfterCommit(request: RequestFacts): boolean {
    const isWrite = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(request.method);
    const pending = this.lateTimeouts.find((candidate) =>
      candidate.match
        ? candidate.match.test(`${request.method} ${request.url}`)
        : request.route !== undefined && isWrite && request.method !== 'DELETE',
    );
    if (!pending || !isWrite) return false;
    pending.remaining--;
    if (pending.remaining <= 0) this.lateTimeouts = this.lateTimeouts.filter((candidate) => candidate !== pending);
    return true;
  }

  /** Called by the server for each request; resolves after the injected latency. */
  async delay(request?: RequestFacts): Promise<void> {
    const slow = request ? this.slowDelayFor(request) : 0;
    const total = this.delayMs + slow;
    if (total <= 0) return;
    if (slow <= 0) {
      await new Promise((resolve) => setTimeout(resolve, total));
      return;
    }
    await new Promise<void>((resolve) => {
      const goOn = () => {
        clearTimeout(timer);
        this.holding.delete(goOn);
        resolve();
      };
      const timer = setTimeout(goOn, total);
      this.holding.add(goOn);
    });
  }

  held(): number {
    return this.holding.size;
  }

  release(): void {
    for (const goOn of [...this.holding]) goOn();
  }

  /** The pending slowNext delay for this request, if any (and consumes it). */
  private slowDelayFor(request: RequestFacts): number {
    const delay = this.delays.find((candidate) =>
      candidate.match ? candidate.match.test(`${request.method} ${request.url}`) : request.route !== undefined,
    );
    if (!delay) return 0;
    delay.remaining--;
    if (delay.remaining <= 0) this.delays = this.delays.filter((candidate) => candidate !== delay);
    return delay.ms;
  }

  /** The scripted error for this request, if one is pending (and consumes it). */
  failureFor(request: RequestFacts): ApiError | undefined {
    const failure = this.failures.find((candidate) =>
      candidate.match ? candidate.match.test(`${request.method} ${request.url}`) : request.route !== undefined,
    );
    if (!failure) return undefined;
    failure.remaining--;
    if (failure.remaining <= 0) this.failures = this.failures.filter((candidate) => candidate !== failure);
    return errorFor(failure.status, request);
  }

  stop(): void {
    clearTimeout(this.comeBackTimer);
  }
}

/** errors.NewTimeoutError(…, 0) from FinishRequest once the request's context is done. */
export function requestDeadlineExceeded(): ApiError {
  return new ApiError(
    504,
    'Timeout',
    'Timeout: request did not complete within requested timeout - context deadline exceeded',
    {},
  );
}

function errorFor(status: number, request: RequestFacts): ApiError {
  switch (status) {
    case 403:
      return forbidden(request);
    case 409:
      return new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${describe(request)}: the object has been modified; please apply your changes to the latest version and try again`,
        detailsOf(request),
      );
    case 429:
      // client-go retries a 429 carrying Retry-After by itself, as it would against a real server.
      return new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', {
        ...detailsOf(request),
        retryAfterSeconds: 1,
      });
    case 500:
      return new ApiError(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out', {
        ...detailsOf(request),
        causes: [{ message: 'etcdserver: request timed out' }],
      });
    case 503:
      return new ApiError(
        503,
        'ServiceUnavailable',
        'the server is currently unable to handle the request',
        detailsOf(request),
      );
    case 504:
      return new ApiError(
        504,
        'Timeout',
        'Timeout: request did not complete within the allotted timeout',
        detailsOf(request),
      );
    default:
      return new ApiError(
        status,
        'Unknown',
        `the server responded with the status code ${status} but did not return more information`,
        detailsOf(request),
      );
  }
}

/** Worded like the RBAC authorizer's denial. */
function forbidden(request: RequestFacts): ApiError {
  const route = request.route;
  const user = 'User "system:anonymous"';
  if (!route) {
    const path = request.url.split('?')[0];
    return new ApiError(
      403,
      'Forbidden',
      `forbidden: ${user} cannot ${request.method.toLowerCase()} path "${path}"`,
      {},
    );
  }
  const resource = route.subresource ? `${route.type.plural}/${route.subresource}` : route.type.plural;
  const scope = route.namespace !== undefined ? `in the namespace "${route.namespace}"` : 'at the cluster scope';
  const subject =
    route.name !== undefined ? `${qualifiedResource(route.type)} "${route.name}"` : qualifiedResource(route.type);
  return new ApiError(
    403,
    'Forbidden',
    `${subject} is forbidden: ${user} cannot ${verbOf(request)} resource "${resource}" in API group "${route.type.group}" ${scope}`,
    detailsOf(request),
  );
}

function verbOf(request: RequestFacts): string {
  const named = request.route?.name !== undefined;
  switch (request.method) {
    case 'GET':
      return request.isWatch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return request.method.toLowerCase();
  }
}

function describe(request: RequestFacts): string {
  const route = request.route;
  if (!route) return 'the object';
  return route.name !== undefined ? `${qualifiedResource(route.type)} "${route.name}"` : qualifiedResource(route.type);
}

function detailsOf(request: RequestFacts): StatusDetails {
  const route = request.route;
  if (!route) return {};
  return { name: route.name, group: route.type.group || undefined, kind: route.type.plural };
}
