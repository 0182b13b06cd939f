// The registry client against a real registry (docker-registry with htpasswd: Basic auth) and
// against Docker Hub's token flow, replayed from its answers by a tiny local server.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registries } from '../../src/images/registry.js';
import type { ImageReference } from '../../src/images/reference.js';
import { freePort } from '../free-port.js';
import { startRegistry, type TestRegistry } from './registry-server.js';

const OPTIONS = { requestTimeoutMs: 5_000, insecureRegistries: [], userAgent: 'kguard-test' };

function image(domain: string, path: string, reference: string): ImageReference {
  return { domain, path, reference, normalized: `${domain}/${path}:${reference}` };
}

describe('a real registry with Basic authentication (docker-registry, htpasswd)', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
    await registry.push('team/app', 'v1');
  }, 30_000);
  afterAll(() => registry?.stop());
  const pull = () => [{ username: registry.username, password: registry.password, source: 'secret regcred, key r' }];

  it('finds a pushed tag with the pod credentials', async () => {
    const client = registries(OPTIONS);
    expect(await client.ask(image(registry.host, 'team/app', 'v1'), pull())).toEqual({ verdict: 'exists' });
    await client.close();
  });

  it("says a tag never pushed does not exist, with the registry's answer", async () => {
    const client = registries(OPTIONS);
    expect(await client.ask(image(registry.host, 'team/app', 'v9'), pull())).toEqual({
      verdict: 'missing',
      answer: `registry ${registry.host} answers MANIFEST_UNKNOWN (manifest unknown), to the pod's pull credentials`,
    });
    // This registry (distribution 2.8) answers MANIFEST_UNKNOWN for a repository never pushed too.
    expect(await client.ask(image(registry.host, 'team/nothing', 'v1'), pull())).toMatchObject({ verdict: 'missing' });
    await client.close();
  });

  it('cannot know without credentials, or with refused ones; never says the password', async () => {
    const client = registries(OPTIONS);
    const anonymous = await client.ask(image(registry.host, 'team/app', 'v9'), []);
    expect(anonymous).toMatchObject({ verdict: 'unknown' });
    expect(JSON.stringify(anonymous)).toContain('wants credentials (401)');
    const wrong = await client.ask(image(registry.host, 'team/app', 'v1'), [
      { username: registry.username, password: 'not-the-Passw0rd', source: 'secret old, key r' },
    ]);
    expect(wrong).toMatchObject({ verdict: 'unknown' });
    expect(JSON.stringify(wrong)).toContain("refuses the pod's pull credentials (401");
    expect(JSON.stringify([anonymous, wrong])).not.toContain('Passw0rd');
    await client.close();
  });
});

describe('an unreachable registry: cannot know, quickly', () => {
  it('a refused connection answers with the refusal, not at the deadline', async () => {
    // A deadline longer than the test may take: an answer at all means it did not wait for it.
    const client = registries({ ...OPTIONS, requestTimeoutMs: 600_000 });
    const port = await freePort();
    const answer = await client.ask(image(`127.0.0.1:${port}`, 'team/app', 'v1'), []);
    expect(answer).toMatchObject({ verdict: 'unknown' });
    expect(JSON.stringify(answer)).toContain(
      `cannot be reached from here (connection refused: connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    await client.close();
  });

  it('a host that never answers is given up at the deadline (--request-timeout)', async () => {
    const silent = createTcpServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const client = registries({ ...OPTIONS, requestTimeoutMs: 300 });
    const started = Date.now();
    const answer = await client.ask(image(`127.0.0.1:${port}`, 'team/app', 'v1'), []);
    expect(answer).toMatchObject({ verdict: 'unknown' });
    expect(JSON.stringify(answer)).toContain('no answer within 0.3 s, the --request-timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
    await client.close();
    silent.close();
  });
});

describe("Docker Hub's token flow (replayed answers)", () => {
  const hub = JSON.parse(
    readFileSync(new URL('../fixtures/registry/docker-hub.json', import.meta.url), 'utf8'),
  ) as Record<string, { status: number; headers: Record<string, string>; body: string }>;
  let server: Server;
  let base = '';
  const seen: Array<{ method: string; url: string; authorization?: string; accept?: string }> = [];
  const realm = (headers: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        value.replace('https://auth.docker.io/token', `${base}/token`),
      ]),
    );
  const replay = (request: IncomingMessage) => {
    const url = new URL(request.url ?? '/', base);
    if (url.pathname === '/v2/') return hub.ping!;
    if (url.pathname === '/token') {
      if (request.headers.authorization === `Basic ${Buffer.from('someone:Hub-Passw0rd-wrong').toString('base64')}`)
        return hub.tokenDenied!;
      return hub.token!;
    }
    const token = JSON.parse(hub.token!.body).token as string;
    if (request.headers.authorization !== `Bearer ${token}`) return hub.manifestUnauthorized!;
    return url.pathname.endsWith('/manifests/1.99.99') ? hub.manifestUnknown! : hub.manifestFound!;
  };
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        accept: request.headers.accept,
      });
      const answer = replay(request);
      response.writeHead(answer.status, realm(answer.headers));
      response.end(request.method === 'HEAD' ? undefined : answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server?.close());

  it('gets an anonymous token for the repository, asks with it, and reuses it', async () => {
    seen.length = 0;
    const client = registries(OPTIONS);
    const host = new URL(base).host;
    expect(await client.ask(image(host, 'library/nginx', '1.27'), [])).toEqual({ verdict: 'exists' });
    expect(await client.ask(image(host, 'library/nginx', '1.99.99'), [])).toEqual({
      verdict: 'missing',
      answer: `registry ${host} answers MANIFEST_UNKNOWN (manifest unknown)`,
    });
    await client.close();
    const tokens = seen.filter((request) => request.url.startsWith('/token'));
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.url).toBe('/token?service=registry.docker.io&scope=repository%3Alibrary%2Fnginx%3Apull');
    const head = seen.find((request) => request.method === 'HEAD')!;
    expect(head.url).toBe('/v2/library/nginx/manifests/1.27');
    expect(head.accept).toBe(
      'application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, */*',
    );
  });

  it('sends the pull credentials to the token server only, and cannot know when it refuses them', async () => {
    seen.length = 0;
    const client = registries(OPTIONS);
    const host = new URL(base).host;
    const right = [{ username: 'someone', password: 'Hub-Passw0rd', source: 'secret hub, key docker.io' }];
    expect(await client.ask(image(host, 'team/private', 'v1'), right)).toEqual({ verdict: 'exists' });
    expect(seen.find((request) => request.url.startsWith('/token'))!.authorization).toBe(
      `Basic ${Buffer.from('someone:Hub-Passw0rd').toString('base64')}`,
    );
    expect(
      seen
        .filter((request) => request.url.startsWith('/v2/team'))
        .every((request) => request.authorization?.startsWith('Bearer ')),
    ).toBe(true);
    const wrong = [{ username: 'someone', password: 'Hub-Passw0rd-wrong', source: 'secret old, key docker.io' }];
    const refused = await client.ask(image(host, 'team/private', 'v2'), wrong);
    expect(refused).toEqual({
      verdict: 'unknown',
      why: `registry ${host}'s token server refuses the pod's pull credentials (secret old, key docker.io)`,
    });
    await client.close();
  });
});
