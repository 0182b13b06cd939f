// Pure readings of what kubectl printed (JSON documents, api-resources tables, write failures) and
// the small pieces of its command lines. No process is started here.
import { KubectlError } from '../../errors.js';
import type { KubeList } from '../../kube.js';
import type { ApplyOptions } from '../../model/options.js';
import type { AppliedObject } from '../../model/result.js';
import type { KubeObject } from '../../objects/model.js';
import { diagnoseKubectlFailure } from './diagnose.js';
import type { ExecResult } from '../process/exec.js';
import { isTransientFailure } from '../transient.js';
import type { ApiResource, ApplyRequest, CollectionQuery, LogsResult, WriteResult } from '../types.js';

export function writeFailure(result: ExecResult, deadlineMs: number): WriteResult {
  const stderr = result.stderr;
  const message = result.timedOut
    ? `kubectl did not finish within ${seconds(deadlineMs)} (--rollback-timeout) and was killed`
    : diagnoseKubectlFailure(result).detail;
  return {
    ok: false,
    conflict: /\(Conflict\)|the object has been modified|Precondition failed/.test(stderr),
    notFound: /\(NotFound\)/.test(stderr),
    message,
    stderr,
  };
}

/** What `kubectl logs` printed, or its own words about why it could not. */
export function logsResult(result: ExecResult): LogsResult {
  if (result.exitCode === 0) return { ok: true, text: result.stdout };
  const said = result.stderr.split('\n').find((line) => line.trim() !== '') ?? '';
  return {
    ok: false,
    error: result.timedOut
      ? 'kubectl did not answer in time'
      : said.replace(/^error: /, '').trim() || `kubectl exited ${result.exitCode}`,
  };
}

export function selectorsOf(query: CollectionQuery): Record<string, string> {
  return {
    ...(query.labelSelector ? { labelSelector: query.labelSelector } : {}),
    ...(query.fieldSelector ? { fieldSelector: query.fieldSelector } : {}),
  };
}

export function withQuery(path: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * Worth asking again after a pause: the API server is unreachable, slow or busy (5xx, 429: the
 * transient table), as client-go's reflector backs off on connection refused and 429 and relists.
 */
export function isRetryable(result: ExecResult): boolean {
  const kind = diagnoseKubectlFailure(result).kind;
  return kind === 'unreachable' || kind === 'timeout' || isTransientFailure(result);
}

/**
 * kubectl's --request-timeout bounds each HTTP request; a call's deadline bounds the process. A
 * request may not outlive its process: with a shorter deadline, the request gets the deadline.
 */
/** kubectl's --request-timeout value for --request-timeout in milliseconds: "30s". */
export function requestTimeoutOf(requestTimeoutMs: number): string {
  return `${requestTimeoutMs / 1000}s`;
}

export function requestTimeoutWithin(requestTimeout: string, deadlineMs: number): string {
  const requestMs = /^(\d+)s$/.exec(requestTimeout) ? Number(requestTimeout.slice(0, -1)) * 1000 : undefined;
  if (requestMs === undefined || deadlineMs >= requestMs) return requestTimeout;
  return `${Math.max(1, Math.floor(deadlineMs / 1000))}s`;
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/** `kubectl api-resources -o wide`: NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES. */
export function parseApiResources(stdout: string): Map<string, ApiResource> {
  const resources = new Map<string, ApiResource>();
  const [header, ...rows] = stdout.split('\n').filter((line) => line.trim() !== '');
  if (!header) return resources;
  const columns = ['APIVERSION', 'NAMESPACED', 'KIND'].map((name) => header.indexOf(name));
  const [apiVersionAt, namespacedAt, kindAt] = columns as [number, number, number];
  for (const row of rows) {
    const name = row.split(/\s+/)[0] ?? '';
    const apiVersion = row.slice(apiVersionAt).split(/\s+/)[0] ?? '';
    const namespaced = row.slice(namespacedAt).split(/\s+/)[0] === 'true';
    const kind = row.slice(kindAt).split(/\s+/)[0] ?? '';
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    resources.set(`${group}/${kind}`, { name, namespaced });
  }
  return resources;
}

/** Every JSON value in a stream of concatenated documents (kubectl -o json prints one per object). */
export function jsonDocuments(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0 && start !== -1) {
        documents.push(JSON.parse(text.slice(start, index + 1)));
        start = -1;
      }
    }
  }
  return documents;
}

export function itemsOfValue<T>(parsed: unknown): T[] {
  // Only a List wraps objects: a custom resource may have a top-level `items` field of its own.
  const list = parsed as KubeList<T>;
  if (typeof parsed === 'object' && parsed !== null && list.kind === 'List' && Array.isArray(list.items))
    return list.items;
  return [parsed as T];
}

export function itemsOf<T>(stdout: string): T[] {
  const text = stdout.trim();
  if (text === '') return [];
  return itemsOfValue<T>(JSON.parse(text));
}

export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** kubectl apply flags that kubectl diff takes as well. */
export const DIFF_FLAGS = /^--(server-side|force-conflicts|field-manager=|prune$|prune-allowlist=|selector=)|^-l/;

/** Restores are written under kguard's own field manager, so they are told apart in managedFields. */
export const RESTORE_FIELD_MANAGER = 'kguard-restore';

export function withFieldManager(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}fieldManager=${RESTORE_FIELD_MANAGER}`;
}

/** A failed kubectl call as the error kguard reports: what it could not do, why, and the next step. */
export function kubectlFailure(
  what: string,
  result: ExecResult,
  deadline: { ms: number; flag?: string },
  applied: AppliedObject[] = [],
): KubectlError {
  if (result.timedOut) {
    const within = deadline.flag ? `${seconds(deadline.ms)} (${deadline.flag})` : seconds(deadline.ms);
    return new KubectlError(
      `kubectl did not ${what} within ${within} and was killed. Next: check that the API server answers (kubectl get --raw /readyz) and run kguard again.`,
      undefined,
      result.stderr,
      applied,
    );
  }
  const diagnosis = diagnoseKubectlFailure(result);
  // kubectl that could not be started is the whole story: not "kubectl could not run kubectl" (#45).
  const opening = diagnosis.kind === 'missing-binary' ? '' : `kubectl could not ${what}: `;
  return new KubectlError(
    `${opening}${diagnosis.detail}. Next: ${diagnosis.nextStep}.`,
    undefined,
    result.stderr,
    applied,
  );
}

/**
 * A list as the API server returns it (`get --raw` of a collection): its items, which lists leave
 * without kind and apiVersion, get them back as `kubectl get -o json` prints them; and the list's
 * resourceVersion, to watch from.
 */
export function listedItems(stdout: string): { items: KubeObject[]; resourceVersion: string } {
  const list = JSON.parse(stdout) as {
    apiVersion?: string;
    kind?: string;
    metadata?: { resourceVersion?: string };
    items?: KubeObject[] | null;
  };
  const kind = (list.kind ?? '').replace(/List$/, '');
  const items = (list.items ?? []).map((item) => ({
    ...item,
    apiVersion: item.apiVersion ?? list.apiVersion ?? '',
    kind: item.kind ?? kind,
  }));
  return { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
}

/** `kubectl apply` over the request's inputs, namespace and apply flags (dry runs add theirs). */
/** What kubectl apply is asked to read and do, from the run's options: every dry run and the apply itself take it. */
export function applyRequest(
  options: Pick<ApplyOptions, 'namespace' | 'applyArgs' | 'timeoutMs'>,
  inputs: { filenames: readonly string[]; recursive: boolean },
): ApplyRequest {
  return {
    filenames: inputs.filenames,
    recursive: inputs.recursive,
    namespace: options.namespace,
    applyArgs: options.applyArgs,
    deadlineMs: options.timeoutMs,
  };
}

export function applyCommand(request: ApplyRequest): string[] {
  const args = ['apply'];
  for (const filename of request.filenames) args.push('-f', filename);
  if (request.recursive) args.push('-R');
  if (request.namespace) args.push('-n', request.namespace);
  args.push(...request.applyArgs);
  return args;
}

/**
 * kubectl apply's own argv for a client-side apply and its dry runs: `--openapi-patch=false`
 * unless the user chose (`--openapi-patch`) or the apply is server-side. kubectl then computes
 * each object's strategic merge patch from the types built into it instead of the server's
 * OpenAPI v3 document of the object's group version, which it parses twice per object
 * (kubectl pkg/cmd/apply/patcher.go: gvkSupportsPatchOpenAPIV3 and
 * buildStrategicMergePatchFromOpenAPIV3 each call openapi3.Root.GVSpec, which unmarshals the
 * whole document every time): about 50 ms of CPU an object, measured (docs/performance.md).
 * Built-in kinds get the same patch either way (both read the same patchStrategy/patchMergeKey
 * of the Kubernetes types); a kind kubectl does not know gets a JSON merge patch either way. The
 * dry run and the apply take the same argv, so what is applied is what the dry run said. Where
 * kubectl's types lack a field the object holds (a server newer than kubectl), kubectl refuses
 * (`unable to find api field`) before sending anything: the run asks again with kubectl's default
 * (`withOpenApiPatch`, run/apply/understand.ts).
 */
export function applyArgv(request: ApplyRequest): string[] {
  const args = applyCommand(request);
  const chosen = request.applyArgs.some((arg) => /^--openapi-patch(=|$)/.test(arg));
  const serverSide = request.applyArgs.some((arg) => arg === '--server-side' || arg === '--server-side=true');
  if (!chosen && !serverSide) args.push('--openapi-patch=false');
  return args;
}

/** kubectl could not make a patch from its built-in types: a field of the object is newer than them. */
export function builtInTypesLack(stderr: string): boolean {
  return /unable to find api field in struct/.test(stderr);
}

/** The same request with kubectl's default patch computation (the server's OpenAPI document). */
export function withOpenApiPatch(request: ApplyRequest): ApplyRequest {
  return { ...request, applyArgs: [...request.applyArgs, '--openapi-patch=true'] };
}
