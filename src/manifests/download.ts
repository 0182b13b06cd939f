// Manifests from a URL: downloaded once, with a deadline and a size limit, so a slow or endless
// server cannot hang the run and what kubectl applies is what kguard checked.
import { InputError } from '../errors.js';

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
 * Through the proxy kubectl would use, so `-f https://…` reaches what `kubectl apply -f https://…`
 * reaches: Go's http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy) takes HTTPS_PROXY for
 * https and HTTP_PROXY for http (or their lowercase names), skips hosts NO_PROXY lists, and never
 * proxies localhost or a loopback address. Node's own fetch reads none of them (Node 20 and 22),
 * so a proxied download goes through undici's EnvHttpProxyAgent, which reads the same variables
 * and NO_PROXY list; it is loaded only then.
 */
async function fetchAsKubectlWould(url: string, init: RequestInit, env: NodeJS.ProcessEnv): Promise<Response> {
  if (!proxyFor(new URL(url), env)) return fetch(url, init);
  const { fetch: proxiedFetch, EnvHttpProxyAgent } = await import('./proxied-fetch.js');
  const dispatcher = new EnvHttpProxyAgent({
    httpProxy: env.HTTP_PROXY ?? env.http_proxy,
    httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
    noProxy: env.NO_PROXY ?? env.no_proxy,
  });
  return (await proxiedFetch(url, { ...(init as object), dispatcher })) as unknown as Response;
}

/** The proxy kubectl would send this URL through, before NO_PROXY (EnvHttpProxyAgent applies it). */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || /^127\./.test(host) || host === '::1') return undefined;
  const proxy =
    url.protocol === 'https:'
      ? (env.HTTPS_PROXY ?? env.https_proxy)
      : url.protocol === 'http:'
        ? (env.HTTP_PROXY ?? env.http_proxy)
        : undefined;
  return proxy || undefined;
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
