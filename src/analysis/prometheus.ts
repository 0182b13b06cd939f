// The Prometheus client: instant queries (GET /api/v1/query?query=…&time=…) with a deadline on
// every request, a bearer token or basic auth read from a file or the environment when the client
// is made, a CA file, and the proxy kubectl would use (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, never
// for a loopback address: manifests/download.ts proxyFor) through undici only then, as the image
// check does (images/transport.ts). No redirect is followed. Nothing it says holds a credential:
// the address carries none (the schema refuses one) and every message is scrubbed of the secrets.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { InputError } from '../errors.js';
import { proxyFor } from '../manifests/download.js';
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
  const straight = direct(provider.timeoutMs, ca);
  let proxied: Promise<{ get: HttpGet; close(): Promise<void> }> | undefined;
  const get: HttpGet = async (url, sent, signal) => {
    if (!proxyFor(url, env)) return straight.get(url, sent, signal);
    proxied ??= import('./proxied.js').then((module) => module.proxiedGet(provider.timeoutMs, env, ca));
    return (await proxied).get(url, sent, signal);
  };
  return {
    query: (promql, atMs, signal) => instantQuery(provider, get, headers, secrets, promql, atMs, signal),
    async close() {
      await Promise.all([straight.close(), proxied?.then((opened) => opened.close())]);
    },
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
      message: scrub(`${provider.address} did not answer (${networkCause(error, provider.timeoutMs)})`, secrets),
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

/** Node's http and https, with connections kept for the next evaluation. */
function direct(timeoutMs: number, ca: string | undefined): { get: HttpGet; close(): Promise<void> } {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({
      keepAlive: true, // Node's `ca` replaces the bundled roots: they stay trusted beside the CA file.
      ...(ca ? { ca: [...rootCertificates, ca] } : {}),
    }),
  };
  const get: HttpGet = (url, headers, stop) =>
    new Promise((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = stop ? AbortSignal.any([deadline, stop]) : deadline;
      const failed = (error: unknown) => reject(signal.aborted ? signal.reason : error);
      const request = (secure ? https : http).request(
        url,
        { method: 'GET', headers, agent: secure ? agents.https : agents.http, signal },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
            if (body.length > MAX_ANSWER_BYTES) {
              response.destroy();
              reject(
                new Error(`its answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; aggregate in the query (sum by …)`),
              );
            }
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          response.on('error', failed);
          response.on('close', () => {
            if (!response.complete) failed(new Error('the connection closed before the answer ended'));
          });
        },
      );
      request.on('error', failed);
      request.end();
    });
  return {
    get,
    async close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** ECONNREFUSED, a deadline, a TLS refusal: in a few words. */
export function networkCause(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000}s`;
  if (error instanceof Error && error.name === 'AbortError') return 'stopped: the run was cancelled';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Every secret replaced by [redacted]: a message may quote what it was sent. */
export function scrub(text: string, secrets: readonly string[]): string {
  return secrets.reduce((scrubbed, secret) => (secret ? scrubbed.split(secret).join('[redacted]') : scrubbed), text);
}
