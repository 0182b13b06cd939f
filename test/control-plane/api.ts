// A few HTTPS calls to the control plane as the admin, for the start-up steps only (health,
// Nodes, RBAC for the restricted user): the tests themselves go through the real kubectl.

import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface ApiClient {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
}

/** The admin's client credentials and the cluster's CA, as PEM. */
export interface ClientTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** One call to the API server at `server` with these credentials: its status and text, or an error after 10 s. */
export function httpsCall(server: string, tls: ClientTls): ApiClient['call'] {
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const req = request(
        new URL(path, server),
        {
          ...tls,
          method,
          timeout: 10_000,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

export function apiClient(server: string, tls: { ca: string; cert: string; key: string }): ApiClient {
  return {
    call: httpsCall(server, { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) }),
  };
}

/** GET over HTTPS without checking the serving certificate (controller-manager and scheduler serve self-signed ones). */
export function insecureGet(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { rejectUnauthorized: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

export async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/** Polls `probe` every 200 ms until it is true; throws `what` after `timeoutMs`. */
export async function until(
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
  check?: () => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    check?.();
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
