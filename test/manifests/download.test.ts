import { describe, expect, it } from 'vitest';
import { causeOf } from '../../src/manifests/download.js';

function fetchFailed(cause: unknown): Error {
  return new TypeError('fetch failed', { cause });
}

describe('causeOf', () => {
  it('gives the cause behind "fetch failed": code and message, a message alone, or each address tried', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(causeOf(fetchFailed(refused), 30_000)).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(causeOf(fetchFailed(Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' })), 30_000)).toBe(
      'ENOTFOUND: getaddrinfo',
    );
    expect(causeOf(fetchFailed(new Error('bad port')), 30_000)).toBe('bad port');
    const both = new AggregateError(
      [Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' }), refused],
      '',
    );
    expect(causeOf(fetchFailed(both), 30_000)).toBe('connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9');
  });

  it("names the code and the address of Bun's fetch error (the release executables), which has no cause", () => {
    const bun = Object.assign(
      new TypeError('ECONNREFUSED: Unable to connect. Is the computer able to access the url?'),
      {
        code: 'ECONNREFUSED',
        path: 'http://127.0.0.1:9/web.yaml',
      },
    );
    expect(causeOf(bun, 30_000)).toBe('ECONNREFUSED 127.0.0.1:9');
  });

  it('says a timeout is one', () => {
    expect(causeOf(new DOMException('timed out', 'TimeoutError'), 30_000)).toBe('no complete answer within 30s');
  });

  it('falls back to the message when there is no cause', () => {
    expect(causeOf(new TypeError('fetch failed'), 30_000)).toBe('fetch failed');
  });
});
