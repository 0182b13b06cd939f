import { describe, expect, it } from 'vitest';
import type { ClusterEnd } from '../../src/model/fleet.js';
import { clustersToRestore, fleetExitCode, fleetOutcome, fleetWaves } from '../../src/run/fleet/fleet.js';

const end = (
  context: string,
  wave: number,
  outcome: ClusterEnd['outcome'],
  exitCode: number | null,
  runId: string | null = null,
): ClusterEnd => ({
  context,
  wave,
  outcome,
  exitCode,
  runId,
  message: null,
});

describe('fleetWaves', () => {
  it('gives each context of --contexts its own wave, in order', () => {
    expect(fleetWaves(['staging', 'eu-1', 'us-1'], undefined)).toEqual([['staging'], ['eu-1'], ['us-1']]);
  });
  it('puts the --canary first, alone, and every other context in one wave after it', () => {
    expect(fleetWaves(['eu-1', 'staging', 'us-1'], 'staging')).toEqual([['staging'], ['eu-1', 'us-1']]);
    expect(fleetWaves([''], 'staging')).toEqual([['staging']]);
  });
  it('refuses a context named twice, and an empty --contexts', () => {
    expect(() => fleetWaves(['a', 'a'], undefined)).toThrow(/names a twice/);
    expect(() => fleetWaves([''], undefined)).toThrow(/names no context/);
  });
});

describe('the fleet after a failure', () => {
  const ends = [
    end('staging', 1, 'succeeded', 0, 'run-1'),
    end('eu-1', 2, 'rolled-back', 3, 'run-2'),
    end('us-1', 3, 'not-reached', null),
  ];
  it('restores, with all, every healthy cluster this run changed and never one not reached', () => {
    expect(clustersToRestore(ends, 'all').map((cluster) => cluster.context)).toEqual(['staging']);
    expect(
      clustersToRestore([...ends, end('ap-1', 2, 'unchanged', 0)], 'all').map((cluster) => cluster.context),
    ).toEqual(['staging']);
  });
  it('restores no healthy cluster with failed or none', () => {
    expect(clustersToRestore(ends, 'failed')).toEqual([]);
    expect(clustersToRestore(ends, 'none')).toEqual([]);
  });
});

describe('fleetExitCode', () => {
  it('is 0 when every cluster is healthy', () => {
    expect(fleetExitCode([end('a', 1, 'succeeded', 0), end('b', 2, 'unchanged', 0)])).toBe(0);
    expect(fleetOutcome([end('a', 1, 'succeeded', 0)])).toBe('succeeded');
  });
  it('is 3 when the failure and the healthy clusters were restored', () => {
    const ends = [end('a', 1, 'restored', 3), end('b', 2, 'rolled-back', 3), end('c', 3, 'not-reached', null)];
    expect(fleetExitCode(ends)).toBe(3);
    expect(fleetOutcome(ends)).toBe('rolled-back');
  });
  it('is 4 when any cluster needs a person, the fleet restore of a healthy one included', () => {
    expect(fleetExitCode([end('a', 1, 'needs-attention', 4), end('b', 2, 'rolled-back', 3)])).toBe(4);
  });
  it('is 2 when the first cluster could not be reached and nothing was changed; 3 once others were restored', () => {
    expect(fleetExitCode([end('a', 1, 'error', 2), end('b', 2, 'not-reached', null)])).toBe(2);
    expect(fleetExitCode([end('a', 1, 'restored', 3), end('b', 2, 'error', 2)])).toBe(3);
  });
  it("is the failing cluster's own code otherwise (a timeout, a failure left in place with none)", () => {
    expect(fleetExitCode([end('a', 1, 'succeeded', 0), end('b', 2, 'timed-out', 5)])).toBe(5);
    const none = [end('a', 1, 'succeeded', 0), end('b', 2, 'failed', 3)];
    expect(fleetExitCode(none)).toBe(3);
    expect(fleetOutcome(none)).toBe('failed');
  });
});
