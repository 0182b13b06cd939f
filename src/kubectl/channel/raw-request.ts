// kguard's raw API calls (`kubectl get|replace|create|delete --raw PATH [-f -]`), read back from
// their argv, and an HTTP answer written as kubectl would have printed it. Pure: the API channel
// (api-channel.ts) sends such a call through one long-lived `kubectl proxy` instead of a process
// of its own, and everything above it (transient retries, write results, diagnoses) reads the
// same ExecResult either way.
import type { ExecResult } from '../process/exec.js';

export interface RawRequest {
  /** The connection flags before the verb (--context=… --cluster=… --user=…, --kubeconfig…). */
  connection: readonly string[];
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** The REST path with its query, exactly as given to --raw. */
  path: string;
  /** `-f -`: the request body is the call's stdin. */
  body: boolean;
}

const METHODS = { get: 'GET', replace: 'PUT', create: 'POST', delete: 'DELETE' } as const;

/**
 * The request a kubectl argv makes, when it is one of the raw calls kguard makes and nothing
 * else: a verb, --raw PATH, at most `-f -` and --request-timeout. Anything else stays a process.
 */
export function rawRequestOf(args: readonly string[]): RawRequest | undefined {
  const at = args.indexOf('--raw');
  if (at < 1 || at + 1 >= args.length) return undefined;
  const verb = args[at - 1] as keyof typeof METHODS;
  const method = Object.hasOwn(METHODS, verb) ? METHODS[verb] : undefined;
  const path = args[at + 1] as string;
  if (!method || !path.startsWith('/')) return undefined;
  const connection = args.slice(0, at - 1);
  const rest = args.slice(at + 2).filter((arg) => !arg.startsWith('--request-timeout='));
  const body = rest.length === 2 && rest[0] === '-f' && rest[1] === '-';
  if (rest.length > 0 && !body) return undefined;
  if (body === (method === 'GET')) return undefined;
  return { connection, method, path, body };
}

/** A watch (`?watch=1`, or the old `/watch/` paths): a stream, not an answer. */
export function isWatch(path: string): boolean {
  const query = path.includes('?') ? new URLSearchParams(path.slice(path.indexOf('?') + 1)) : undefined;
  return (
    query?.get('watch') === '1' ||
    query?.get('watch') === 'true' ||
    /^\/(api\/[^/?]+|apis\/[^/?]+\/[^/?]+)\/watch\//.test(path)
  );
}

/**
 * An HTTP answer as `kubectl … --raw` prints it: the body on stdout when it succeeded; otherwise
 * exit 1 and "Error from server (Reason): message" on stderr, as kubectl's CheckErr prints an
 * API status (kubectl/pkg/cmd/util/helpers.go), and client-go's words for a body that is not a
 * Status (apimachinery/pkg/api/errors/errors.go, NewGenericServerResponse). Warning headers come
 * first, as client-go's warning handler prints them ("Warning: text").
 */
export function kubectlStyleAnswer(status: number, body: string, warnings: readonly string[] = []): ExecResult {
  const warned = warnings.map((text) => `Warning: ${text}\n`).join('');
  if (status >= 200 && status < 300) return { exitCode: 0, stdout: body, stderr: warned };
  return { exitCode: 1, stdout: '', stderr: `${warned}${errorLine(status, body)}\n` };
}

function errorLine(status: number, body: string): string {
  const parsed = statusOf(body);
  if (parsed?.message)
    return parsed.reason
      ? `Error from server (${parsed.reason}): ${parsed.message}`
      : `Error from server: ${parsed.message}`;
  const generic = GENERIC[status];
  const text = body.trim();
  if (generic) return `Error from server (${generic.reason}): ${generic.message(text)}`;
  return status >= 500
    ? `Error from server (InternalError): an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`
    : `Error from server: the server responded with the status code ${status} but did not return more information`;
}

function statusOf(body: string): { reason?: string; message?: string } | undefined {
  try {
    const value = JSON.parse(body) as { kind?: string; reason?: string; message?: string };
    return value && value.kind === 'Status' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** NewGenericServerResponse's reason and message per status code, for answers without a Status body. */
const GENERIC: Record<number, { reason: string; message: (body: string) => string }> = {
  400: { reason: 'BadRequest', message: () => 'the server rejected our request for an unknown reason' },
  401: { reason: 'Unauthorized', message: () => 'the server has asked for the client to provide credentials' },
  403: { reason: 'Forbidden', message: () => 'the server does not allow access to the requested resource' },
  404: { reason: 'NotFound', message: () => 'the server could not find the requested resource' },
  405: { reason: 'MethodNotAllowed', message: () => 'the server does not allow this method on the requested resource' },
  409: { reason: 'Conflict', message: () => 'the server reported a conflict' },
  410: { reason: 'Expired', message: () => 'the server reported the resource has expired' },
  413: {
    reason: 'RequestEntityTooLarge',
    message: () => 'the server has rejected the request because it is too large',
  },
  422: { reason: 'Invalid', message: () => 'the server rejected our request due to an error in our request' },
  429: {
    reason: 'TooManyRequests',
    message: () => 'the server has received too many requests and has asked us to try again later',
  },
  // kubectl proxy answers 500 itself when it cannot reach the API server, its body saying why
  // ("dial tcp 127.0.0.1:1: connect: connection refused", seen with kubectl 1.32); any other 5xx
  // without a Status is worded the same way below.
  500: {
    reason: 'InternalError',
    message: (body) => `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`,
  },
  503: { reason: 'ServiceUnavailable', message: () => 'the server is currently unable to handle the request' },
  504: {
    reason: 'Timeout',
    message: () =>
      'the server was unable to return a response in the time allotted, but may still be processing the request',
  },
};

/** The text of each `Warning: 299 - "text"` header (RFC 7234 warn-text, as the API server sends it). */
export function warningTexts(headers: readonly string[]): string[] {
  return headers.flatMap((header) =>
    [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => (match[1] as string).replace(/\\(.)/g, '$1')),
  );
}
