import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal.js';
import {
  fleetRestoreExitCode,
  fleetRestoreLines,
  fleetStatusLines,
  runsOfFleet,
  type FleetRestoreEnd,
} from '../../src/run/fleet/fleet-runs.js';
import type { RunRecord } from '../../src/journal/runs.js';

const now = new Date('2026-12-03T12:10:00Z');

function run(
  runId: string,
  fleet: Journal['fleet'],
  liveness: RunRecord['liveness'] = { state: 'dead', why: 'its process 42 on this machine has ended', diedBy: 0 },
): RunRecord {
  const journal: Journal = {
    runId,
    startedAt: '2026-12-03T12:00:00Z',
    expiresAt: '2026-12-04T12:00:00Z',
    namespace: 'default',
    state: 'applied',
    command: 'kguard apply',
    objects: [{ ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, before: null }],
    ...(fleet ? { fleet } : {}),
  };
  return { runId, journal, secrets: [], missing: [], expired: false, leases: [], liveness };
}

const fleet = { runId: 'fleet-1', contexts: ['staging', 'eu-1', 'us-1'] };

describe('kguard status --contexts', () => {
  it("shows a fleet run with one line per cluster it names: its run there, or none; then the contexts' other runs", () => {
    const lines = fleetStatusLines(
      [
        { context: 'staging', runs: [run('kguard-a', fleet), run('kguard-solo', undefined)] },
        {
          context: 'eu-1',
          runs: [run('kguard-b', fleet, { state: 'live', why: 'its process 7 is running on this machine' })],
        },
        { context: 'us-1', runs: [] },
      ],
      now,
    );
    expect(lines[0]).toBe(
      'fleet run fleet-1 (contexts staging, eu-1, us-1)  →  kguard rollback fleet-1 --contexts staging,eu-1,us-1',
    );
    expect(lines[1]).toMatch(
      /^ {2}context staging: dead {2}kguard-a {2}namespace default {2}1 object\(s\) {2}started 10m ago {2}applied, not verified or restored {2}dead: its process 42/,
    );
    expect(lines[1]).not.toContain('→');
    expect(lines[2]).toMatch(
      /^ {2}context eu-1: live {2}kguard-b .* running: its process 7 is running on this machine$/,
    );
    expect(lines[3]).toBe('  context us-1: no journal of this fleet run (not reached, or its run there ended)');
    expect(lines[4]).toMatch(/^context staging: kguard-solo .*→ {2}kguard rollback kguard-solo$/);
    expect(lines).toHaveLength(5);
  });

  it('says which context could not be read, and when there is nothing at all', () => {
    expect(fleetStatusLines([{ context: 'staging', error: 'connection refused' }], now)).toEqual([
      'context staging: cannot tell: connection refused',
    ]);
    expect(fleetStatusLines([{ context: 'staging', runs: [] }], now)).toEqual([
      'no unfinished kguard runs in contexts staging',
    ]);
  });

  it("finds a context's runs of the fleet run by the id its journal holds", () => {
    expect(
      runsOfFleet(
        [run('kguard-a', fleet), run('kguard-b', { runId: 'fleet-2', contexts: ['x'] }), run('kguard-c', undefined)],
        'fleet-1',
      ).map((found) => found.runId),
    ).toEqual(['kguard-a']);
  });
});

describe('kguard rollback FLEET --contexts', () => {
  const end = (context: string, outcome: FleetRestoreEnd['outcome'], runId: string | null = null): FleetRestoreEnd => ({
    context,
    runId,
    outcome,
    restored: outcome === 'restored' ? 1 : 0,
    untouched: 0,
    needsPerson: 0,
    message: null,
  });

  it('is 0 when every cluster holding the fleet journal was restored, the others left alone', () => {
    const ends = [end('staging', 'restored', 'kguard-a'), end('us-1', 'no-journal')];
    expect(fleetRestoreExitCode(ends)).toBe(0);
    expect(fleetRestoreLines('fleet-1', ends)).toEqual([
      'context staging: run kguard-a restored (1 restored, 0 already as before, 0 for a person)',
      'context us-1: no journal of this fleet run: nothing to restore',
      'fleet run fleet-1: restored (exit 0)',
    ]);
  });

  it('is 4 when any cluster needs a person', () => {
    expect(
      fleetRestoreExitCode([
        end('staging', 'restored', 'kguard-a'),
        { ...end('eu-1', 'needs-attention'), message: 'its runs could not be read' },
      ]),
    ).toBe(4);
  });
});
