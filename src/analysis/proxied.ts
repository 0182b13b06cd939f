// The Prometheus client's way through a proxy: undici's request through its EnvHttpProxyAgent, with
// the proxy kubectl would use (prometheus.ts loads this module only for a proxied URL), as the
// image check's proxied transport does (images/proxied-transport.ts, whose note on undici's
// reconnect loop holds here too: at the deadline the agent is destroyed and a new one made).
import { EnvHttpProxyAgent, request } from 'undici';
import { MAX_ANSWER_BYTES, type HttpGet } from './answer.js';

export function proxiedGet(
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
  ca: string | undefined,
): { get: HttpGet; close(): Promise<void> } {
  const tls = ca ? { ca } : {};
  const newAgent = () =>
    new EnvHttpProxyAgent({
      httpProxy: env.HTTP_PROXY ?? env.http_proxy,
      httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
      connect: { timeout: timeoutMs, ...tls },
      requestTls: tls,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  let agent = newAgent();
  const ask = async (url: URL, headers: Record<string, string>, signal: AbortSignal) => {
    const response = await request(url, { method: 'GET', headers, dispatcher: agent, signal });
    let body = '';
    for await (const chunk of response.body) {
      body += (chunk as Buffer).toString('utf8');
      if (body.length > MAX_ANSWER_BYTES)
        throw new Error(`its answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; aggregate in the query (sum by …)`);
    }
    return { status: response.statusCode, body };
  };
  return {
    get(url, headers, stop) {
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = stop ? AbortSignal.any([deadline, stop]) : deadline;
      return new Promise((resolve, reject) => {
        const giveUp = () => {
          reject(signal.reason);
          const stuck = agent;
          agent = newAgent();
          stuck.destroy().catch(() => undefined);
        };
        signal.addEventListener('abort', giveUp, { once: true });
        ask(url, headers, signal)
          .then(resolve, reject)
          .finally(() => signal.removeEventListener('abort', giveUp));
      });
    },
    close: () => agent.destroy(),
  };
}
