import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, parseDuration } from '../../src/duration.js';
import {
  diffPreviewExitCode,
  toApplyOptions,
  wantsDiff,
  wantsJsonOutput,
  type RawApplyOptions,
} from '../../src/cli/options.js';
import { InputError } from '../../src/errors.js';

const raw: RawApplyOptions = { filename: ['k8s/'], timeout: '5m', pollInterval: '2s', rollback: 'all', output: 'text' };

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['45', 45_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text, '--timeout')).toBe(ms);
  });

  it('refuses durations beyond what a Node timer can wait, instead of firing after 1 ms', () => {
    expect(parseDuration('596h', '--timeout')).toBe(596 * 3_600_000);
    expect(() => parseDuration('597h', '--timeout')).toThrow(/--timeout 597h is too long/);
    expect(() => parseDuration(String(MAX_DURATION_MS / 1000 + 1), '--settle')).toThrow(InputError);
  });

  it('rejects words that are not durations, naming the flag', () => {
    expect(() => parseDuration('soon', '--timeout')).toThrow(/--timeout "soon" is not a duration/);
    expect(() => parseDuration('5 minutes', '--timeout')).toThrow(InputError);
  });
});

describe('toApplyOptions', () => {
  it('uses --timeout for the rollback when --rollback-timeout is not given', () => {
    expect(toApplyOptions(raw, [])).toMatchObject({
      timeoutMs: 300_000,
      rollbackTimeoutMs: 300_000,
      pollIntervalMs: 2000,
      rollback: 'all',
    });
  });

  it('refuses --rollback-timeout 0 as it refuses --timeout 0', () => {
    expect(() => toApplyOptions({ ...raw, rollbackTimeout: '0' }, [])).toThrow(
      /--rollback-timeout must be longer than 0s/,
    );
    expect(() => toApplyOptions({ ...raw, rollbackTimeout: '0s' }, [])).toThrow(InputError);
    expect(() => toApplyOptions({ ...raw, timeout: '0' }, [])).toThrow(/--timeout must be longer than 0s/);
  });

  it('refuses --no-rollback with --rollback all or failed as a contradiction, in either order', () => {
    expect(() =>
      toApplyOptions({ ...raw, rollback: 'all', rollbackFlags: ['--no-rollback', '--rollback all'] }, []),
    ).toThrow(/--no-rollback and --rollback all contradict each other/);
    expect(() =>
      toApplyOptions({ ...raw, rollback: false, rollbackFlags: ['--rollback failed', '--no-rollback'] }, []),
    ).toThrow(/contradict/);
  });

  it('takes flags that agree: --no-rollback with --rollback none, or one flag repeated', () => {
    expect(
      toApplyOptions({ ...raw, rollback: 'none', rollbackFlags: ['--no-rollback', '--rollback none'] }, []).rollback,
    ).toBe('none');
    expect(
      toApplyOptions({ ...raw, rollback: 'all', rollbackFlags: ['--rollback all', '--rollback all'] }, []).rollback,
    ).toBe('all');
  });

  it('turns --no-rollback into mode none', () => {
    expect(toApplyOptions({ ...raw, rollback: false }, []).rollback).toBe('none');
  });

  it('refuses -f after -- because kguard could not see those manifests', () => {
    expect(() => toApplyOptions(raw, ['-f', 'other.yaml'])).toThrow(/after --/);
  });

  it("passes kubectl apply flags to the apply and the selector to kubectl's reading too", () => {
    const options = toApplyOptions(raw, ['--prune', '-l', 'app=web']);
    expect(options.applyArgs).toEqual(['--prune', '-l=app=web']);
    expect(options.selectionArgs).toEqual(['-l=app=web']);
  });

  it('sends flags that choose the cluster or the user to every kubectl call', () => {
    const options = toApplyOptions(raw, ['--as', 'deployer', '--context=prod', '--namespace', 'other']);
    expect(options.connectionArgs).toEqual(['--as=deployer', '--context=prod']);
    expect(options.namespace).toBe('other');
    expect(options.applyArgs).toEqual([]);
  });

  it('refuses contradicting namespaces or contexts before and after --', () => {
    expect(() => toApplyOptions({ ...raw, namespace: 'shop' }, ['-n', 'other'])).toThrow(/contradict/);
    expect(() => toApplyOptions({ ...raw, context: 'a' }, ['--context', 'b'])).toThrow(/contradict/);
  });

  it('turns --dry-run after -- into a preview', () => {
    expect(toApplyOptions(raw, ['--dry-run=server']).dryRun).toBe('server');
    expect(toApplyOptions({ ...raw, dryRun: true }, []).dryRun).toBe('server');
    expect(toApplyOptions(raw, ['--dry-run=none']).dryRun).toBeUndefined();
  });

  it('refuses -o after -- because kguard reads kubectl output itself', () => {
    expect(() => toApplyOptions(raw, ['-o', 'yaml'])).toThrow(/--output json/);
  });
});

describe('wantsJsonOutput', () => {
  it.each([
    [['apply', '-o', 'json'], true],
    [['apply', '-ojson'], true],
    [['apply', '-o=json'], true],
    [['apply', '--output', 'json', '--bogus'], true],
    [['apply', '--output=json'], true],
    [['apply', '--output=json', '-o', 'text'], false],
    [['apply', '-o', 'text'], false],
    [['apply', '--', '-o', 'json'], false],
    [['apply', '-f', 'x.yaml'], false],
  ])('reads %j before commander parses it: %s', (argv, json) => {
    expect(wantsJsonOutput(argv)).toBe(json);
  });
});

describe('--verify, --verify-job, --bake', () => {
  it('reads repeatable checks, their deadline, the bake and its interval', () => {
    const options = toApplyOptions(
      {
        ...raw,
        verify: ['curl -fsS web/healthz', './smoke.sh'],
        verifyJob: ['smoke.yaml'],
        verifyTimeout: '30s',
        bake: '5m',
        verifyInterval: '1m',
        keepVerify: true,
      },
      [],
    );
    expect(options).toMatchObject({
      verifyCommands: ['curl -fsS web/healthz', './smoke.sh'],
      verifyJobs: ['smoke.yaml'],
      verifyTimeoutMs: 30_000,
      bakeMs: 300_000,
      verifyIntervalMs: 60_000,
      keepVerify: true,
    });
  });

  it('has no checks and no bake by default, and a 2m deadline', () => {
    expect(toApplyOptions(raw, [])).toMatchObject({
      verifyCommands: [],
      verifyJobs: [],
      verifyTimeoutMs: 120_000,
      bakeMs: 0,
      verifyIntervalMs: 0,
      keepVerify: false,
    });
  });

  it('keeps --settle working as the old name of --bake, and refuses the two when they disagree', () => {
    expect(toApplyOptions({ ...raw, settle: '30s' }, []).bakeMs).toBe(30_000);
    expect(toApplyOptions({ ...raw, settle: '30s', bake: '30s' }, []).bakeMs).toBe(30_000);
    expect(() => toApplyOptions({ ...raw, settle: '30s', bake: '1m' }, [])).toThrow(
      /--settle is the old name of --bake/,
    );
  });

  it('refuses what cannot work: an empty command, a zero deadline, an interval without a bake or without a command', () => {
    expect(() => toApplyOptions({ ...raw, verify: [' '] }, [])).toThrow(/--verify needs a command/);
    expect(() => toApplyOptions({ ...raw, verify: ['true'], verifyTimeout: '0s' }, [])).toThrow(
      /--verify-timeout must be longer than 0s/,
    );
    expect(() => toApplyOptions({ ...raw, verify: ['true'], verifyInterval: '30s' }, [])).toThrow(/give --bake too/);
    expect(() => toApplyOptions({ ...raw, bake: '1m', verifyInterval: '30s' }, [])).toThrow(/add --verify CMD/);
  });
});

describe("--diff speaks kubectl diff's exit codes", () => {
  it('is a --diff apply only before --', () => {
    expect(wantsDiff(['apply', '-f', 'x', '--diff'])).toBe(true);
    expect(wantsDiff(['apply', '-f', 'x', '--', '--diff'])).toBe(false);
    expect(wantsDiff(['status', '--diff'])).toBe(false);
  });

  it('turns an input or usage error (1) into 2, as kubectl diff exits >1 on an error; leaves other codes', () => {
    expect([0, 1, 2, 70, 130].map(diffPreviewExitCode)).toEqual([0, 2, 2, 70, 130]);
  });
});
