// The registry client's way through a proxy: undici's request through its EnvHttpProxyAgent, with
// the proxy kubectl would use (transport.ts loads this module only for a proxied URL). Named by a
// static import: the CLI bundle's own part for a CommonJS package, imported dynamically, would
// give only its default export.
//
// The deadline is kguard's own as well as undici's: a proxy that closes the CONNECT tunnel while it
// is set up (one that does not tunnel) makes undici 7 reconnect in a tight loop that neither
// settles the request nor heeds its signal (nodejs/undici#3897, fixed by #5441 in a release that
// needs Node 22). At the deadline the request is given up and the agent destroyed, which ends the
// loop; a later request gets a new agent.
import { EnvHttpProxyAgent, request } from 'undici';
import { deadlineOrCancel, MAX_BODY_BYTES, type Answer, type Transport } from './answers.js';

export function proxiedTransport(requestTimeoutMs: number, env: NodeJS.ProcessEnv, cancel?: AbortSignal): Transport {
  const newAgent = () =>
    new EnvHttpProxyAgent({
      httpProxy: env.HTTP_PROXY ?? env.http_proxy,
      httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
      connect: { timeout: requestTimeoutMs },
      headersTimeout: requestTimeoutMs,
      bodyTimeout: requestTimeoutMs,
    });
  let agent = newAgent();
  const ask = async (url: string, method: 'GET' | 'HEAD', headers: Record<string, string>, signal: AbortSignal) => {
    const response = await request(url, { method, headers, dispatcher: agent, signal });
    let body = '';
    if (method === 'GET') {
      for await (const chunk of response.body) {
        body += (chunk as Buffer).toString('utf8');
        if (body.length > MAX_BODY_BYTES) break;
      }
    }
    await response.body.dump().catch(() => undefined);
    return { status: response.statusCode, headers: response.headers, body };
  };
  return {
    send(url, method, headers) {
      const signal = deadlineOrCancel(requestTimeoutMs, cancel);
      return new Promise<Answer>((resolve, reject) => {
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
