// How the registry client reaches a registry. Straight, with the runtime's own http and https
// (nothing to load); or, when kubectl would go through a proxy for that URL (HTTPS_PROXY,
// HTTP_PROXY, NO_PROXY, never for a loopback address: manifests/download.ts proxyFor, Go's
// httpproxy rules, which containerd follows too), through undici's EnvHttpProxyAgent, a megabyte
// of code loaded only then (about 75 ms on Node 20, on the way to every apply's first write). No
// redirect is followed either way: a registry's answer is read as it is.
import http from 'node:http';
import https from 'node:https';
import { proxyFor } from '../manifests/download.js';
import { deadlineOrCancel, MAX_BODY_BYTES, type Answer, type Transport } from './answers.js';

/** `cancel`: a signal that ends every request at once (SIGINT, SIGTERM, SIGHUP), beside each one's deadline. */
export function transport(
  requestTimeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
  cancel?: AbortSignal,
): Transport {
  const straight = direct(requestTimeoutMs, cancel);
  let proxied: Promise<Transport> | undefined;
  return {
    async send(url, method, headers) {
      if (!proxyFor(new URL(url), env)) return straight.send(url, method, headers);
      proxied ??= import('./proxied-transport.js').then((module) =>
        module.proxiedTransport(requestTimeoutMs, env, cancel),
      );
      return (await proxied).send(url, method, headers);
    },
    async close() {
      await Promise.all([straight.close(), proxied?.then((opened) => opened.close())]);
    },
  };
}

/** Node's http and https, with connections kept open for the next request to the same registry. */
export function direct(requestTimeoutMs: number, cancel?: AbortSignal): Transport {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const send = (url: string, method: 'GET' | 'HEAD', headers: Record<string, string>) =>
    new Promise<Answer>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const signal = deadlineOrCancel(requestTimeoutMs, cancel);
      const failed = (error: unknown) => reject(signal.aborted ? signal.reason : error);
      const request = (secure ? https : http).request(
        target,
        { method, headers, agent: secure ? agents.https : agents.http, signal },
        (response) => {
          const answer = (body: string): Answer => ({
            status: response.statusCode ?? 0,
            headers: headersOf(response.rawHeaders),
            body,
          });
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (method === 'HEAD') return;
            body += chunk;
            if (body.length > MAX_BODY_BYTES) {
              resolve(answer(body));
              response.destroy();
            }
          });
          response.on('end', () => resolve(answer(body)));
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
    send,
    async close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Node's raw header list as undici's request gives it: names in lower case, a repeated header an array. */
export function headersOf(raw: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    const value = raw[index + 1]!;
    const had = headers[name];
    headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return headers;
}
