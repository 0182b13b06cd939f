// kguard's one HTTP client, for the image check's registry requests and the Prometheus queries of
// --analysis: each request with a deadline, ended at once by the run's cancellation or the
// caller's signal; straight with the runtime's own http and https (nothing to load), or, when
// kubectl would go through a proxy for that URL (proxy.ts), through undici's EnvHttpProxyAgent
// (proxied.ts), a megabyte of code loaded only then (about 75 ms on Node 20, on the way to every
// apply's first write). A CA file is trusted beside the bundled roots; no redirect is followed: an
// answer is read as it is; no error carries a credential.
import http from 'node:http';
import https from 'node:https';
import { proxyFor } from './proxy.js';
import {
  type HttpAnswer,
  type HttpClient,
  type HttpClientOptions,
  requestSignal,
  scrubbed,
  secretsOf,
  trusting,
} from './request.js';

export function httpClient(options: HttpClientOptions): HttpClient {
  const env = options.env ?? process.env;
  const straight = straightClient(options);
  let proxied: Promise<HttpClient> | undefined;
  const send: HttpClient['send'] = async (url, method, headers, signal) => {
    try {
      if (!proxyFor(new URL(url), env)) return await straight.send(url, method, headers, signal);
      proxied ??= import('./proxied.js').then((module) => module.proxiedClient({ ...options, env }));
      return await (await proxied).send(url, method, headers, signal);
    } catch (error) {
      throw scrubbed(error, secretsOf(options, headers));
    }
  };
  return {
    send,
    async close() {
      await Promise.all([straight.close(), proxied?.then((opened) => opened.close())]);
    },
  };
}

/** Node's http and https, with connections kept open for the next request to the same host. */
export function straightClient({ timeoutMs, maxBodyBytes, ca, cancel }: HttpClientOptions): HttpClient {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true, ...trusting(ca) }),
  };
  const send: HttpClient['send'] = (url, method, headers, stop) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const signal = requestSignal(timeoutMs, cancel, stop);
      const failed = (error: unknown) => reject(signal.aborted ? signal.reason : error);
      const request = (secure ? https : http).request(
        target,
        { method, headers, agent: secure ? agents.https : agents.http, signal },
        (response) => {
          const answer = (body: string, cut: boolean): HttpAnswer => ({
            status: response.statusCode ?? 0,
            headers: headersOf(response.rawHeaders),
            body,
            cut,
          });
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (method === 'HEAD') return;
            body += chunk;
            if (body.length > maxBodyBytes) {
              resolve(answer(body, true));
              response.destroy();
            }
          });
          response.on('end', () => resolve(answer(body, false)));
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
