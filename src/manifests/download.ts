// Manifests from a URL: downloaded once, with a deadline and a size limit, so a slow or endless
// server cannot hang the run and what kubectl applies is what kguard checked.
import { InputError } from '../errors.js';
import { proxyFor, proxySettings } from '../http/proxy.js';

export interface DownloadLimits {
  deadlineMs: number;
  maxBytes: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = { deadlineMs: 30_000, maxBytes: 16 * 1024 * 1024 };

export async function download(
  url: string,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Uint8Array> {
  const fail = (why: string) =>
    new InputError(`-f ${url}: could not download the manifests (${why}). Check the URL; nothing was applied.`);
  let response: Response;
  const signal = AbortSignal.timeout(limits.deadlineMs);
  try {
    response = await fetchAsKubectlWould(url, { signal, redirect: 'follow' }, env);
  } catch (error) {
    throw fail(causeOf(error, limits.deadlineMs));
  }
  if (!response.ok) throw fail(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw fail(`larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw fail(causeOf(error, limits.deadlineMs));
  }
  return Buffer.concat(chunks);
}

/**
 * Through the proxy kubectl would use (http/proxy.ts), so `-f https://…` reaches what
 * `kubectl apply -f https://…` reaches. Node's own fetch reads no proxy variable (Node 20 and 22),
 * so a proxied download goes through undici's EnvHttpProxyAgent, which reads the same variables
 * and NO_PROXY list; it is loaded only then.
 */
async function fetchAsKubectlWould(url: string, init: RequestInit, env: NodeJS.ProcessEnv): Promise<Response> {
  if (!proxyFor(new URL(url), env)) return fetch(url, init);
  const { fetch: proxiedFetch, EnvHttpProxyAgent } = await import('./proxied-fetch.js');
  const dispatcher = new EnvHttpProxyAgent(proxySettings(env));
  return (await proxiedFetch(url, { ...(init as object), dispatcher })) as unknown as Response;
}

/**
 * fetch() says only "fetch failed"; the reason is on error.cause (undici): an Error with a code
 * (ECONNREFUSED, ENOTFOUND), one with only a message ("bad port"), or an AggregateError whose
 * `errors` hold one failure per address tried.
 */
export function causeOf(error: unknown, deadlineMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no complete answer within ${deadlineMs / 1000}s`;
  }
  const cause = error instanceof Error ? error.cause : undefined;
  const described = describeCause(cause);
  if (described) return described;
  // Bun's fetch (the release executables) puts the code on the error itself, the URL as `path`.
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code === 'string' && typeof path === 'string' && URL.canParse(path))
    return `${code} ${new URL(path).host}`;
  return error instanceof Error ? error.message : String(error);
}

function describeCause(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return typeof cause === 'string' && cause !== '' ? cause : undefined;
  const code = (cause as { code?: unknown }).code;
  const message =
    cause.message ||
    (cause instanceof AggregateError ? cause.errors.map(describeCause).filter(Boolean).join('; ') : '');
  if (typeof code === 'string' && message) return message.includes(code) ? message : `${code}: ${message}`;
  return (typeof code === 'string' ? code : message) || describeCause(cause.cause);
}
