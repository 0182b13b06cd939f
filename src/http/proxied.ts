// The HTTP client's way through a proxy: undici's request through its EnvHttpProxyAgent, with the
// proxy kubectl would use (client.ts loads this module only for a proxied URL). Named by a static
// import: the CLI bundle's own part for a CommonJS package, imported dynamically, would give only
// its default export.
//
// The deadline is kguard's own as well as undici's: a proxy that closes the CONNECT tunnel while it
// is set up (one that does not tunnel) makes undici 7 reconnect in a tight loop that neither
// settles the request nor heeds its signal (nodejs/undici#3897, fixed by #5441 in a release that
// needs Node 22). At the deadline the request is given up and the agent destroyed, which ends the
// loop; a later request gets a new agent.
import { EnvHttpProxyAgent, request } from 'undici';
import { proxySettings } from './proxy.js';
import {
  type HttpAnswer,
  type HttpClient,
  type HttpClientOptions,
  type Method,
  requestSignal,
  trusting,
} from './request.js';

export function proxiedClient({
  timeoutMs,
  maxBodyBytes,
  env = process.env,
  ca,
  cancel,
}: HttpClientOptions): HttpClient {
  const tls = trusting(ca);
  const newAgent = () =>
    new EnvHttpProxyAgent({
      ...proxySettings(env),
      connect: { timeout: timeoutMs, ...tls },
      // Through a tunnel, the TLS to the origin: given only with a CA (a set requestTls takes its servername).
      ...(ca ? { requestTls: tls } : {}),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  let agent = newAgent();
  const ask = async (
    url: string | URL,
    method: Method,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer> => {
    const response = await request(url, { method, headers, dispatcher: agent, signal });
    let body = '';
    let cut = false;
    if (method === 'GET') {
      for await (const chunk of response.body) {
        body += (chunk as Buffer).toString('utf8');
        cut = body.length > maxBodyBytes;
        if (cut) break;
      }
    }
    await response.body.dump().catch(() => undefined);
    return { status: response.statusCode, headers: response.headers, body, cut };
  };
  return {
    send(url, method, headers, stop) {
      const signal = requestSignal(timeoutMs, cancel, stop);
      return new Promise<HttpAnswer>((resolve, reject) => {
        const giveUp = () => {
          reject(signal.reason);
          const stuck = agent;
          agent = newAgent();
          stuck.destroy().catch(() => undefined);
        };
        signal.addEventListener('abort', giveUp, { once: true });
        ask(url, method, headers, signal)
          .then(resolve, reject)
          .finally(() => signal.removeEventListener('abort', giveUp));
      });
    },
    close: () => agent.destroy(),
  };
}
