// The bench's own few calls to the real API server, as the admin of its kubeconfig (certificates
// embedded, test/control-plane/kubeconfig.ts): the missing-image limit's watch and PUT, which no
// tool's start-up may blur.
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type ClientTls, httpsCall } from '../control-plane/api.js';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

export interface BenchClient {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  /** Streams a watch; `onEvent` gets each event until it returns true (or `deadlineMs` passes). */
  watchUntil(
    path: string,
    onEvent: (event: { type: string; object: unknown }) => boolean,
    deadlineMs: number,
  ): Promise<void>;
}

export function benchClient(kubeconfig: string): BenchClient {
  const config = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  const server = config.clusters[0]!.cluster.server;
  const tls: ClientTls = {
    ca: Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64'),
    cert: Buffer.from(config.users[0]!.user['client-certificate-data'], 'base64'),
    key: Buffer.from(config.users[0]!.user['client-key-data'], 'base64'),
  };
  return {
    call: httpsCall(server, tls),
    watchUntil: (path, onEvent, deadlineMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error(`watch ${path}: not seen within ${deadlineMs} ms`));
        }, deadlineMs);
        const req = request(new URL(path, server), { ...tls, method: 'GET' }, (res) => {
          let pending = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            pending += chunk;
            let newline = pending.indexOf('\n');
            while (newline >= 0) {
              const line = pending.slice(0, newline);
              pending = pending.slice(newline + 1);
              if (line.trim() && onEvent(JSON.parse(line) as { type: string; object: unknown })) {
                clearTimeout(timer);
                req.destroy();
                resolve();
                return;
              }
              newline = pending.indexOf('\n');
            }
          });
        });
        req.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        req.end();
      }),
  };
}
