// -f URL goes through the proxy kubectl would use (HTTP_PROXY/HTTPS_PROXY, NO_PROXY, never for
// loopback), as Go's http.ProxyFromEnvironment decides. The target's name, manifests.example,
// resolves nowhere: only the proxy below knows it, so a download that skipped the proxy fails.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/http/proxy.js';
import { download } from '../../src/manifests/download.js';

const MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-behind-a-proxy\n';
let target: Server;
let proxy: Server;
let proxied = 0;

const portOf = (server: Server) => (server.address() as AddressInfo).port;
const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));

beforeAll(async () => {
  target = createServer((_req, res) => res.end(MANIFEST));
  // A forward proxy: CONNECT tunnels and absolute-form requests, manifests.example → the target.
  proxy = createServer((req, res) => {
    proxied += 1;
    const url = new URL(req.url ?? '/');
    const upstream = httpRequest(
      { host: '127.0.0.1', port: Number(url.port), path: url.pathname, method: req.method },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  proxy.on('connect', (req, socket, head) => {
    proxied += 1;
    const port = Number((req.url ?? '').split(':')[1]);
    const upstream = connect(port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await Promise.all([listen(target), listen(proxy)]);
});

afterAll(async () => {
  for (const server of [target, proxy]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const limits = { deadlineMs: 5_000, maxBytes: 1024 * 1024 };

describe('download through a proxy', () => {
  it('goes through HTTP_PROXY for an http URL, as kubectl would', async () => {
    const before = proxied;
    const bytes = await download(`http://manifests.example:${portOf(target)}/web.yaml`, limits, {
      HTTP_PROXY: `http://127.0.0.1:${portOf(proxy)}`,
    });
    expect(Buffer.from(bytes).toString('utf8')).toBe(MANIFEST);
    expect(proxied).toBeGreaterThan(before);
  });

  it('skips the proxy for a host NO_PROXY lists (and then cannot reach a name only the proxy knows)', async () => {
    const before = proxied;
    const env = { HTTP_PROXY: `http://127.0.0.1:${portOf(proxy)}`, NO_PROXY: 'internal.example,manifests.example' };
    await expect(download(`http://manifests.example:${portOf(target)}/web.yaml`, limits, env)).rejects.toThrow(
      /could not download the manifests/,
    );
    expect(proxied).toBe(before);
  });

  it('never proxies loopback, and picks the variable by scheme, upper or lower case', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128', http_proxy: 'http://plain:3128' };
    expect(proxyFor(new URL('https://raw.githubusercontent.com/a/b.yaml'), env)).toBe('http://proxy:3128');
    expect(proxyFor(new URL('http://example.com/b.yaml'), env)).toBe('http://plain:3128');
    expect(proxyFor(new URL('http://127.0.0.1:8080/b.yaml'), env)).toBeUndefined();
    expect(proxyFor(new URL('https://localhost/b.yaml'), env)).toBeUndefined();
    expect(proxyFor(new URL('https://example.com/b.yaml'), {})).toBeUndefined();
  });
});
