import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  isTransientFailure,
  isUnreachableText,
  mayPassLater,
  RESTORE_BACKOFF,
  retryTransient,
} from '../../src/kubectl/transient.js';
import type { ExecResult } from '../../src/kubectl/process/exec.js';
import { kubectlStderr } from '../fixtures/load.js';

const failed = (stderr: string, extra: Partial<ExecResult> = {}): ExecResult => ({
  exitCode: 1,
  stdout: '',
  stderr,
  ...extra,
});

describe('isTransientFailure', () => {
  it.each([
    'apply-internal-error',
    'apply-service-unavailable',
    'apply-server-timeout',
    'delete-raw-service-unavailable',
  ])('retries what kubectl printed for %s', (fixture) => {
    expect(isTransientFailure(failed(kubectlStderr(fixture)))).toBe(true);
  });

  it.each([
    'Error from server (TooManyRequests): Too many requests, please try again later.',
    'Unable to connect to the server: read tcp 10.0.0.2:51234->10.0.0.1:6443: read: connection reset by peer',
    'Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout',
    'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?',
  ])('retries %j', (stderr) => {
    expect(isTransientFailure(failed(stderr))).toBe(true);
  });

  it.each(['apply-forbidden', 'replace-conflict', 'apply-unknown-kind'])(
    'does not retry %s: the answer would be the same',
    (fixture) => {
      expect(isTransientFailure(failed(kubectlStderr(fixture)))).toBe(false);
    },
  );

  it('does not retry a call killed at its deadline, a missing kubectl or a success', () => {
    expect(isTransientFailure(failed('i/o timeout', { timedOut: true }))).toBe(false);
    expect(isTransientFailure(failed('', { spawnError: 'ENOENT' }))).toBe(false);
    expect(isTransientFailure({ exitCode: 0, stderr: 'connection reset by peer' })).toBe(false);
  });
});

describe('retryTransient', () => {
  it('tries again after each transient failure with the given waits, and returns the first success', async () => {
    const answers = [
      failed(kubectlStderr('apply-internal-error')),
      failed(kubectlStderr('apply-service-unavailable')),
      { exitCode: 0, stdout: 'ok', stderr: '' },
    ];
    const waits: number[] = [];
    const result = await retryTransient(
      async () => answers.shift() as ExecResult,
      [500, 1000, 2000],
      async (ms) => void waits.push(ms),
    );
    expect(result.stdout).toBe('ok');
    expect(waits).toEqual([500, 1000]);
  });

  it('gives up after the last wait and returns the last failure', async () => {
    let attempts = 0;
    const result = await retryTransient(
      async () => {
        attempts += 1;
        return failed(kubectlStderr('apply-internal-error'));
      },
      [1, 2, 3],
      async () => undefined,
    );
    expect(attempts).toBe(4);
    expect(result.exitCode).toBe(1);
  });

  it('returns a permanent failure at once', async () => {
    let attempts = 0;
    await retryTransient(
      async () => {
        attempts += 1;
        return failed(kubectlStderr('apply-forbidden'));
      },
      [1, 2, 3],
      async () => undefined,
    );
    expect(attempts).toBe(1);
  });
});

describe('mayPassLater and isUnreachableText', () => {
  it.each(['get-connection-refused', 'apply-connection-refused'])(
    'calls what kubectl printed for %s unreachable, and worth asking again',
    (fixture) => {
      expect(isUnreachableText(kubectlStderr(fixture))).toBe(true);
      expect(mayPassLater(kubectlStderr(fixture))).toBe(true);
    },
  );

  it.each([
    'Error from server (InternalError): etcdserver: leader changed',
    'Error from server: etcdserver: request timed out',
    'Error from server (TooManyRequests): the server has received too many requests and has asked us to try again later',
  ])('asks %j again, but does not call it unreachable: the server answered', (stderr) => {
    expect(mayPassLater(stderr)).toBe(true);
    expect(isUnreachableText(stderr)).toBe(false);
  });

  it.each(['delete-raw-service-unavailable'])('asks %s again: a 503 may pass', (fixture) => {
    expect(mayPassLater(kubectlStderr(fixture))).toBe(true);
  });

  it.each(['apply-forbidden', 'replace-conflict', 'apply-unknown-kind'])(
    'does not ask %s again: the answer would be the same',
    (fixture) => {
      expect(mayPassLater(kubectlStderr(fixture))).toBe(false);
    },
  );
});

describe('backoffMs', () => {
  it('doubles from 0.5 s and holds at the 4 s cap, as wait.Backoff steps', () => {
    expect([0, 1, 2, 3, 4, 10].map((attempt) => backoffMs(attempt, RESTORE_BACKOFF, 0))).toEqual([
      500, 1000, 2000, 4000, 4000, 4000,
    ]);
  });

  it('adds up to a quarter at random: two restores that failed together do not retry in step', () => {
    expect(backoffMs(0, RESTORE_BACKOFF, 0.999)).toBe(625);
    expect(backoffMs(5, RESTORE_BACKOFF, 0.5)).toBe(4500);
  });
});

describe('retryTransient keeps what kubectl said', () => {
  it('returns the failure kubectl explained, not a later attempt that was killed and printed nothing', async () => {
    const explained = failed(
      'Error from server (InternalError): etcdserver: request timed out\nconfigmaps "huge" is invalid: []: Too long: may not be more than 1048576 bytes',
    );
    const answers = [explained, failed('', { timedOut: true })];
    const result = await retryTransient(
      async () => answers.shift() as ExecResult,
      [500],
      async () => undefined,
    );
    expect(result).toBe(explained);
  });
});
