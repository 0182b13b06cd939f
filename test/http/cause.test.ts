// One reading of a request's failure for every client kguard has (src/http/cause.ts): errors made
// by Node's own http and fetch against a closed port, and the shapes Node's resolver, undici and
// Bun give (as they print them).
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { networkCause } from '../../src/http/cause.js';
import { freePort } from '../free-port.js';

const LATE = 'no answer within 30s';

async function httpError(url: string): Promise<unknown> {
  return new Promise((resolve) => http.get(url, () => resolve(undefined)).on('error', resolve));
}

async function fetchError(url: string): Promise<unknown> {
  return fetch(url).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('networkCause', () => {
  it('says the same of a refused connection from Node http and from fetch: plain words, then the code and address', async () => {
    const port = await freePort();
    const fromHttp = networkCause(await httpError(`http://127.0.0.1:${port}/`), LATE);
    const fromFetch = networkCause(await fetchError(`http://127.0.0.1:${port}/`), LATE);
    expect(fromHttp).toBe(`connection refused: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(fromFetch).toBe(fromHttp);
  });

  it("names the host name that does not resolve (Node's resolver error, as dns.lookup gives it)", () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND registry.invalid'), {
      errno: -3008,
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname: 'registry.invalid',
    });
    const said = 'host name does not resolve: getaddrinfo ENOTFOUND registry.invalid';
    expect(networkCause(lookup, LATE)).toBe(said);
    expect(networkCause(new TypeError('fetch failed', { cause: lookup }), LATE)).toBe(said);
    const again = Object.assign(new Error('try again'), { code: 'EAI_AGAIN', hostname: 'registry.invalid' });
    expect(networkCause(again, LATE)).toBe('host name does not resolve: EAI_AGAIN registry.invalid (try again)');
  });

  it('gives each address tried once (an AggregateError behind "fetch failed")', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}:9`), { code: 'ECONNREFUSED', address, port: 9 });
    const both = new AggregateError([refused('::1'), refused('127.0.0.1'), refused('127.0.0.1')], '');
    expect(networkCause(new TypeError('fetch failed', { cause: both }), LATE)).toBe(
      'connection refused: connect ECONNREFUSED ::1:9; connection refused: connect ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('keeps a code beside its message, and a message alone', () => {
    const tls = Object.assign(new Error('unable to verify the first certificate'), {
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(networkCause(tls, LATE)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate');
    expect(networkCause(new TypeError('fetch failed', { cause: new Error('bad port') }), LATE)).toBe('bad port');
    expect(networkCause(new TypeError('fetch failed'), LATE)).toBe('fetch failed');
    expect(networkCause(new Error('y'.repeat(1000)), LATE)).toBe('y'.repeat(300));
  });

  it("reads Bun's fetch error (the release executables), which has no cause: the code, and the URL as path", () => {
    const bun = Object.assign(
      new TypeError('ECONNREFUSED: Unable to connect. Is the computer able to access the url?'),
      {
        code: 'ECONNREFUSED',
        path: 'http://127.0.0.1:9/web.yaml',
      },
    );
    expect(networkCause(bun, LATE)).toBe('connection refused: ECONNREFUSED 127.0.0.1:9');
    const unresolved = Object.assign(new TypeError('Unable to connect'), {
      code: 'ENOTFOUND',
      path: 'https://registry.invalid/v2/',
    });
    expect(networkCause(unresolved, LATE)).toBe('host name does not resolve: ENOTFOUND registry.invalid');
    const reset = Object.assign(new TypeError('socket closed'), { code: 'ECONNRESET', path: 'http://127.0.0.1:9/' });
    expect(networkCause(reset, LATE)).toBe('connection reset: ECONNRESET 127.0.0.1:9');
    const tlsInBun = Object.assign(new TypeError('self signed'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      path: 'https://r.example/v2/',
    });
    expect(networkCause(tlsInBun, LATE)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT r.example');
  });

  it("says the caller's deadline for a timeout, undici's included, and a cancel as the caller says it", () => {
    expect(networkCause(new DOMException('timed out', 'TimeoutError'), LATE)).toBe(LATE);
    const connect = Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(networkCause(new TypeError('fetch failed', { cause: connect }), LATE)).toBe(
      'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error',
    );
    expect(networkCause(connect, LATE)).toBe(LATE);
    expect(networkCause(new DOMException('aborted', 'AbortError'), LATE)).toBe('stopped: the run was cancelled');
    expect(networkCause(new DOMException('aborted', 'AbortError'), LATE, LATE)).toBe(LATE);
  });
});
