// The Prometheus client against a local HTTP server that plays Prometheus: what it sends (the
// query, the time, the credentials), its deadline, and that no credential reaches what it says.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
      message: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9 did not answer \(.*ECONNREFUSED/),
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
