// How the HTTP client's requests (the registry check's, Prometheus's) travel: straight with Node's
// http for a URL kubectl would not proxy (loopback always, NO_PROXY hosts), through the proxy
// kubectl would use otherwise (undici, loaded then). Both read an answer alike: status, headers (a
// repeated one as an array), a body cut where the caller says (the registry's 64 KiB here), and
// the deadline.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersOf, httpClient, straightClient } from '../../src/http/client.js';
import { proxiedClient } from '../../src/http/proxied.js';
import { type HttpClient, scrubbed, secretsOf } from '../../src/http/request.js';
import { MAX_BODY_BYTES } from '../../src/images/answers.js';

/** The registry check's client, as images/registry.ts makes it. */
const transport = (timeoutMs: number, env: NodeJS.ProcessEnv) =>
  httpClient({ timeoutMs, maxBodyBytes: MAX_BODY_BYTES, env });

/** A server that answers every request alike and notes the request line it got. */
async function serve(
  answer: (request: IncomingMessage) => { status: number; headers?: Array<[string, string]>; body?: string },
): Promise<{ server: Server; base: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const { status, headers = [], body = '' } = answer(request);
    response.writeHead(status, headers.flat());
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

const CHALLENGE: Array<[string, string]> = [
  ['WWW-Authenticate', 'Bearer realm="https://auth.example/token",service="registry.example"'],
  ['WWW-Authenticate', 'Basic realm="registry.example"'],
];

describe.each([
  ['straight (Node http)', () => straightClient({ timeoutMs: 2_000, maxBodyBytes: MAX_BODY_BYTES })],
  ['through undici, no proxy set', () => proxiedClient({ timeoutMs: 2_000, maxBodyBytes: MAX_BODY_BYTES, env: {} })],
])('a transport: %s', (_name, open: () => HttpClient) => {
  let registry: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    registry = await serve((request) =>
      request.url === '/big'
        ? { status: 200, body: 'x'.repeat(4 * MAX_BODY_BYTES) }
        : { status: 401, headers: CHALLENGE, body: '{"errors":[{"code":"UNAUTHORIZED"}]}' },
    );
  });
  afterAll(() => registry?.server.close());

  it('reads the status, a repeated header as an array in order, and the body of a GET', async () => {
    const client = open();
    const answer = await client.send(`${registry.base}/v2/`, 'GET', { 'user-agent': 'kguard-test' });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toEqual(CHALLENGE.map(([, value]) => value));
    expect(answer.body).toBe('{"errors":[{"code":"UNAUTHORIZED"}]}');
    const head = await client.send(`${registry.base}/v2/`, 'HEAD', {});
    expect(head).toMatchObject({ status: 401, body: '' });
    await client.close();
  });

  it('reads no more than 64 KiB of a body', async () => {
    const client = open();
    const answer = await client.send(`${registry.base}/big`, 'GET', {});
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeGreaterThan(MAX_BODY_BYTES);
    expect(answer.body.length).toBeLessThan(2 * MAX_BODY_BYTES);
    await client.close();
  });
});

describe('the proxy kubectl would use', () => {
  let proxy: Awaited<ReturnType<typeof serve>>;
  let registry: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    registry = await serve(() => ({ status: 200, headers: [['Docker-Distribution-Api-Version', 'registry/2.0']] }));
    // A forward proxy: it tunnels every CONNECT to the registry above, and notes the host asked for.
    proxy = await serve(() => ({ status: 502 }));
    proxy.server.on('connect', (request: IncomingMessage, socket: Socket) => {
      proxy.seen.push(`CONNECT ${request.url}`);
      const upstream = connect(Number(new URL(registry.base).port), '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
  });
  afterAll(() => {
    proxy?.server.close();
    registry?.server.close();
  });

  it('carries a request for a remote registry through a tunnel to its host', async () => {
    proxy.seen.length = 0;
    const client = transport(2_000, { HTTP_PROXY: proxy.base });
    const answer = await client.send('http://registry.example/v2/', 'GET', {});
    expect(answer.headers['docker-distribution-api-version']).toBe('registry/2.0');
    expect(proxy.seen).toEqual(['CONNECT registry.example:80']);
    await client.close();
  });

  it('never carries a loopback registry, nor a host NO_PROXY lists', async () => {
    proxy.seen.length = 0;
    registry.seen.length = 0;
    const client = transport(2_000, { HTTP_PROXY: proxy.base, NO_PROXY: 'registry.internal' });
    expect((await client.send(`${registry.base}/v2/`, 'GET', {})).status).toBe(200);
    expect(registry.seen).toEqual(['GET /v2/']);
    // NO_PROXY is undici's to apply: the host does not resolve, so it was not sent to the proxy.
    await expect(client.send('http://registry.internal/v2/', 'GET', {})).rejects.toThrow();
    expect(proxy.seen).toEqual([]);
    await client.close();
  });

  it('gives up at the deadline on a proxy that closes every tunnel (undici would retry it forever)', async () => {
    const closing = await serve(() => ({ status: 502 }));
    let tunnels = 0;
    closing.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
      tunnels += 1;
      socket.destroy();
    });
    const client = transport(300, { HTTP_PROXY: closing.base });
    const started = Date.now();
    await expect(client.send('http://registry.example/v2/', 'GET', {})).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.close();
    // A tunnel already on its way when the agent was destroyed may still arrive; then no more do.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
    await settle();
    const after = tunnels;
    await settle();
    expect(tunnels).toBe(after);
    closing.server.close();
  });
});

describe('headersOf', () => {
  it('lower-cases names and keeps a repeated header as an array, in order', () => {
    expect(
      headersOf(['Content-Type', 'a', 'WWW-Authenticate', 'b', 'www-authenticate', 'c', 'X', 'd', 'x', 'e', 'X', 'f']),
    ).toEqual({
      'content-type': 'a',
      'www-authenticate': ['b', 'c'],
      x: ['d', 'e', 'f'],
    });
  });
});

describe('an error of the client', () => {
  it("carries no credential: the request's authorization and the client's secrets become [redacted], its name and code stay", async () => {
    const failing = Object.assign(new TypeError('sent Bearer tok-9 with password pw-3 and failed'), { code: 'EPROTO' });
    const error = scrubbed(failing, secretsOf({ secrets: ['pw-3'] }, { authorization: 'Bearer tok-9' })) as Error & {
      code: string;
    };
    expect(error.message).toBe('sent [redacted] with password [redacted] and failed');
    expect(error).toMatchObject({ name: 'TypeError', code: 'EPROTO' });
    // A DOMException's message is a getter of its prototype: it is replaced all the same.
    const timeout = scrubbed(new DOMException('no answer for tok-9', 'TimeoutError'), ['tok-9']) as DOMException;
    expect([timeout.name, timeout.message]).toEqual(['TimeoutError', 'no answer for [redacted]']);
  });

  it('rejects with the message scrubbed: a secret the network error quotes (here the host name) is not in it', async () => {
    const client = httpClient({ timeoutMs: 2_000, maxBodyBytes: MAX_BODY_BYTES, env: {}, secrets: ['tok-7'] });
    const error = await client.send('http://tok-7.invalid/v2/', 'GET', {}).catch((failed: Error) => failed);
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
    expect((error as Error).message).toBe('getaddrinfo ENOTFOUND [redacted].invalid');
    await client.close();
  });
});
