// The Prometheus client: instant queries (GET /api/v1/query?query=…&time=…) through kguard's HTTP
// client (http/client.ts, as the image check's: a deadline on every request, a CA file, the proxy
// kubectl would use, no redirect followed), with a bearer token or basic auth read from a file or
// the environment when the client is made. Nothing it says holds a credential: the address
// carries none (the schema refuses one) and every message is scrubbed of the secrets.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { networkCause } from '../http/cause.js';
import { httpClient } from '../http/client.js';
import { scrub } from '../http/request.js';
import type { PrometheusProvider, SecretSource } from '../model/analysis.js';
import { MAX_ANSWER_BYTES, readAnswer, type HttpGet, type PrometheusAnswer } from './answer.js';

export interface PrometheusClient {
  /** The query evaluated at `atMs` (epoch ms); never rejects: a network failure is an answer too. */
  query(promql: string, atMs: number, signal?: AbortSignal): Promise<PrometheusAnswer>;
  close(): Promise<void>;
}

export function prometheusClient(provider: PrometheusProvider, env: NodeJS.ProcessEnv = process.env): PrometheusClient {
  const { headers, secrets } = credentials(provider, env);
  const ca = provider.caFile ? readCa(provider.caFile) : undefined;
  const client = httpClient({ timeoutMs: provider.timeoutMs, maxBodyBytes: MAX_ANSWER_BYTES, env, ca, secrets });
  const get: HttpGet = async (url, sent, signal) => {
    const { status, body, cut } = await client.send(url, 'GET', sent, signal);
    if (cut)
      throw new Error(`its answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; aggregate in the query (sum by …)`);
    return { status, body };
  };
  return {
    query: (promql, atMs, signal) => instantQuery(provider, get, headers, secrets, promql, atMs, signal),
    close: () => client.close(),
  };
}

/**
 * The run's one client: the query check before the apply and the analysis after it ask through
 * it (one set of connections, the credentials read once). It is made at the first query, so a run
 * that asks none (a preview) reads no credential; `close` ends it, if it was made.
 */
export function runPrometheusClient(
  provider: PrometheusProvider,
  env: NodeJS.ProcessEnv = process.env,
  make: typeof prometheusClient = prometheusClient,
): PrometheusClient {
  let client: PrometheusClient | undefined;
  return {
    query: (promql, atMs, signal) => (client ??= make(provider, env)).query(promql, atMs, signal),
    close: async () => client?.close(),
  };
}

/** One instant query through `get`: its answer, or why there is none, scrubbed of `secrets`. */
export async function instantQuery(
  provider: Pick<PrometheusProvider, 'address' | 'timeoutMs'>,
  get: HttpGet,
  headers: Record<string, string>,
  secrets: readonly string[],
  promql: string,
  atMs: number,
  signal?: AbortSignal,
): Promise<PrometheusAnswer> {
  const url = new URL(`${provider.address}/api/v1/query`);
  url.searchParams.set('query', promql);
  url.searchParams.set('time', (atMs / 1000).toFixed(3));
  // Prometheus's own deadline for the evaluation, under ours.
  url.searchParams.set('timeout', `${Math.max(1, Math.floor(provider.timeoutMs / 1000))}s`);
  try {
    const { status, body } = await get(url, { ...headers, accept: 'application/json' }, signal);
    const answer = readAnswer(status, body);
    return answer.ok ? answer : { ...answer, message: scrub(answer.message, secrets) };
  } catch (error) {
    return {
      ok: false,
      badQuery: false,
      message: scrub(
        `${provider.address} did not answer (${networkCause(error, `no answer within ${provider.timeoutMs / 1000}s`)})`,
        secrets,
      ),
    };
  }
}

/** The credential values the provider sends, for the run's redactor. */
export function secretValues(provider: PrometheusProvider, env: NodeJS.ProcessEnv = process.env): string[] {
  return credentials(provider, env).secrets;
}

function credentials(
  provider: PrometheusProvider,
  env: NodeJS.ProcessEnv,
): { headers: Record<string, string>; secrets: string[] } {
  if (provider.bearerToken) {
    const token = secretOf(provider.bearerToken, 'prometheus.bearerToken', env);
    return { headers: { authorization: `Bearer ${token}` }, secrets: [token] };
  }
  if (provider.basicAuth) {
    const password = secretOf(provider.basicAuth.password, 'prometheus.basicAuth.password', env);
    const encoded = Buffer.from(`${provider.basicAuth.username}:${password}`).toString('base64');
    return { headers: { authorization: `Basic ${encoded}` }, secrets: [password, encoded] };
  }
  return { headers: {}, secrets: [] };
}

function secretOf(source: SecretSource, field: string, env: NodeJS.ProcessEnv): string {
  if ('env' in source) {
    const value = env[source.env];
    if (!value)
      throw new InputError(
        `--analysis: ${field} names the environment variable ${source.env}, which is not set; set it, or give a file.`,
      );
    return value.trim();
  }
  try {
    const value = readFileSync(source.file, 'utf8').trim();
    if (value) return value;
    throw new InputError(`--analysis: ${field} names ${source.file}, which is empty; put the credential in it.`);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      `--analysis: ${field} names ${source.file}, which kguard cannot read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}).`,
    );
  }
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(
      `--analysis: prometheus.tls.caFile ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); give a PEM file.`,
    );
  }
}
