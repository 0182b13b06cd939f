import { describe, expect, it } from 'vitest';
import { parseDuration, toApplyOptions, type RawApplyOptions } from '../../src/cli/options.js';
import { InputError } from '../../src/errors.js';

const raw: RawApplyOptions = { filename: ['k8s/'], timeout: '5m', pollInterval: '2s', settle: '0s', rollback: 'all', output: 'text' };

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

  it('rejects words that are not durations, naming the flag', () => {
    expect(() => parseDuration('soon', '--timeout')).toThrow(/--timeout "soon" is not a duration/);
    expect(() => parseDuration('5 minutes', '--timeout')).toThrow(InputError);
  });
});

describe('toApplyOptions', () => {
  it('uses --timeout for the rollback when --rollback-timeout is not given', () => {
    expect(toApplyOptions(raw, [])).toMatchObject({ timeoutMs: 300_000, rollbackTimeoutMs: 300_000, pollIntervalMs: 2000, rollback: 'all' });
  });

  it('turns --no-rollback into mode none', () => {
    expect(toApplyOptions({ ...raw, rollback: false }, []).rollback).toBe('none');
  });

  it('refuses -f after -- because kguard could not see those manifests', () => {
    expect(() => toApplyOptions(raw, ['-f', 'other.yaml'])).toThrow(/after --/);
  });

  it('passes other kubectl flags through untouched', () => {
    expect(toApplyOptions(raw, ['--prune', '-l', 'app=web']).passThrough).toEqual(['--prune', '-l', 'app=web']);
  });
});
