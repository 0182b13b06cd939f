// The Prometheus client against a local HTTP server that plays Prometheus: what it sends (the
// query, the time, the credentials), its deadline, and that no credential reaches what it says.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import { makePki } from '../control-plane/pki.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prometheusClient } from '../../src/analysis/prometheus.js';
import { InputError } from '../../src/errors.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(
  answer: (request: IncomingMessage) => { status: number; body: string } | 'hang',
): Promise<{ address: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    seen.push(request);
    const reply = answer(request);
    if (reply === 'hang') return;
    response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const success = {
  status: 200,
  body: '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.5"]}]}}',
};

describe('prometheusClient', () => {
  it('asks /api/v1/query with the query and the time, and sends the bearer token read from the environment', async () => {
    const { address, seen } = await serve(() => success);
    const client = prometheusClient(
      { address, timeoutMs: 2000, bearerToken: { env: 'PROM_TOKEN' } },
      { PROM_TOKEN: 'tok-123\n' },
    );
    const answer = await client.query('sum(rate(x[1m]))', 1_800_000_000_500);
    await client.close();
    expect(answer).toEqual({ ok: true, samples: [{ labels: '{}', value: 0.5 }] });
    const url = new URL(seen[0]!.url!, address);
    expect(url.pathname).toBe('/api/v1/query');
    expect(url.searchParams.get('query')).toBe('sum(rate(x[1m]))');
    expect(url.searchParams.get('time')).toBe('1800000000.500');
    expect(url.searchParams.get('timeout')).toBe('2s');
    expect(seen[0]!.headers.authorization).toBe('Bearer tok-123');
  });

  it('sends basic auth with the password from a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kguard-analysis-'));
    try {
      await writeFile(join(dir, 'password'), 's3cret\n');
      const { address, seen } = await serve(() => success);
      const client = prometheusClient(
        { address, timeoutMs: 2000, basicAuth: { username: 'ci', password: { file: join(dir, 'password') } } },
        {},
      );
      await client.query('up', Date.now());
      await client.close();
      expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ci:s3cret').toString('base64')}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives up at its deadline on a Prometheus that never answers, and says so', async () => {
    const { address } = await serve(() => 'hang');
    const client = prometheusClient({ address, timeoutMs: 300 }, {});
    const answer = await client.query('up', Date.now());
    await client.close();
    expect(answer).toEqual({
      ok: false,
      badQuery: false,
      message: `${address} did not answer (no answer within 0.3s)`,
    });
  });

  it('says a refused connection in one line, and never a credential, even one Prometheus echoes', async () => {
    const { address } = await serve((request) => ({
      status: 401,
      body: JSON.stringify({
        status: 'error',
        errorType: 'unauthorized',
        error: `bad token ${request.headers.authorization}`,
      }),
    }));
    const client = prometheusClient({ address, timeoutMs: 2000, bearerToken: { env: 'T' } }, { T: 'tok-secret-9' });
    const echoed = await client.query('up', Date.now());
    await client.close();
    expect(echoed).toEqual({ ok: false, badQuery: false, message: 'unauthorized: bad token Bearer [redacted]' });
    const refused = prometheusClient({ address: 'http://127.0.0.1:9', timeoutMs: 2000 }, {});
    const answer = await refused.query('up', Date.now());
    await refused.close();
    expect(answer).toMatchObject({
      ok: false,
      message: 'http://127.0.0.1:9 did not answer (connection refused: connect ECONNREFUSED 127.0.0.1:9)',
    });
  });

  it('refuses a credential it cannot read, naming where it looked', () => {
    expect(() =>
      prometheusClient({ address: 'http://p:9090', timeoutMs: 1000, bearerToken: { env: 'MISSING' } }, {}),
    ).toThrow(
      new InputError(
        '--analysis: prometheus.bearerToken names the environment variable MISSING, which is not set; set it, or give a file.',
      ),
    );
  });
});

describe('prometheusClient through a proxy', () => {
  it('goes through HTTP_PROXY for a Prometheus that is not on loopback, as kubectl would (a CONNECT tunnel)', async () => {
    const { address: prometheus, seen } = await serve(() => success);
    const target = new URL(prometheus);
    const tunnels: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (request: IncomingMessage, client: Socket) => {
      tunnels.push(request.url ?? '');
      // Every tunnel leads to the local Prometheus, whatever host it names.
      const upstream = connect(Number(target.port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    servers.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyAddress = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const client = prometheusClient(
      { address: 'http://prometheus.monitoring.example:9090', timeoutMs: 3000 },
      { HTTP_PROXY: proxyAddress, NO_PROXY: 'localhost' },
    );
    const answer = await client.query('up', Date.now());
    await client.close();
    expect(answer).toEqual({ ok: true, samples: [{ labels: '{}', value: 0.5 }] });
    expect(tunnels).toEqual(['prometheus.monitoring.example:9090']);
    expect(new URL(seen[0]!.url!, prometheus).pathname).toBe('/api/v1/query');
  });

  it('never sends a loopback Prometheus through the proxy', async () => {
    const { address, seen } = await serve(() => success);
    const client = prometheusClient({ address, timeoutMs: 2000 }, { HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(await client.query('up', Date.now())).toMatchObject({ ok: true });
    await client.close();
    expect(seen).toHaveLength(1);
  });
});

describe('prometheusClient over https', () => {
  it("trusts Prometheus's certificate with tls.caFile, and says why it cannot without", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kguard-analysis-tls-'));
    try {
      const pki = await makePki(dir);
      const server = createHttpsServer(
        { cert: await readFile(pki.servingCert), key: await readFile(pki.servingKey) },
        (_request, response) =>
          response.writeHead(success.status, { 'content-type': 'application/json' }).end(success.body),
      );
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const trusting = prometheusClient({ address, timeoutMs: 3000, caFile: pki.caCert }, {});
      expect(await trusting.query('up', Date.now())).toMatchObject({ ok: true });
      await trusting.close();
      const doubting = prometheusClient({ address, timeoutMs: 3000 }, {});
      expect(await doubting.query('up', Date.now())).toMatchObject({
        ok: false,
        message: expect.stringMatching(new RegExp(`^${address} did not answer \\(.*certificate`)),
      });
      await doubting.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
