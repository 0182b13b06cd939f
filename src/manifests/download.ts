// Manifests from a URL: downloaded once, with a deadline and a size limit, so a slow or endless
// server cannot hang the run and what kubectl applies is what kguard checked.
import { InputError } from '../errors.js';
import { networkCause } from '../http/cause.js';
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
  // Its only signal is its deadline: an abort is the deadline too.
  const late = `no complete answer within ${limits.deadlineMs / 1000}s`;
  try {
    response = await fetchAsKubectlWould(url, { signal, redirect: 'follow' }, env);
  } catch (error) {
    throw fail(networkCause(error, late, late));
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
    throw fail(networkCause(error, late, late));
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
