// Fleet apply (issue 19), end to end: the real bin/kguard and the real kubectl against three
// simulated clusters behind one kubeconfig, one context each, and a fourth context whose API
// server is a closed port. The clusters are shared by the tests of this file, in order: each test
// reads the state the one before it left (fleet.states()) and compares with that.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { junitSchemaErrors } from '../report/junit-schema.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { fleetSandbox, type Fleet } from './fleet-harness.js';
import { applyFleet, type ApplyEvent } from '../../src/index.js';
import { assertValidReport } from '../report/schema.js';
import { differencesFrom } from './restored.js';
import { deployWebEverywhere, MISSING } from './run-fixtures.js';

/** Pulls of this image fail in every cluster (its registry has no such tag). */
/** Pulls of this image fail in eu-1 only. */
const MISSING_IN_EU = 'registry.example.com/shop/web:eu-broken';
const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];
const ALL = ['staging', 'eu-1', 'us-1'];

let fleet: Fleet;
beforeAll(async () => {
  const everywhere = { [MISSING]: 'missing' as const };
  fleet = await fleetSandbox(
    {
      staging: { scenario: { registry: everywhere } },
      'eu-1': { scenario: { registry: { ...everywhere, [MISSING_IN_EU]: 'missing' as const } } },
      'us-1': { scenario: { registry: everywhere } },
    },
    ['gone'],
  );
  // v1 of `web` in every cluster at once: one wave of a fleet file.
  await deployWebEverywhere(fleet, fast);
}, 60_000);
afterAll(async () => fleet?.stop());

interface ClusterLine {
  context: string;
  wave: number;
  outcome: string;
  exitCode: number | null;
}

function clustersOf(stdout: string): ClusterLine[] {
  const report = JSON.parse(stdout) as { clusters: ClusterLine[] };
  return report.clusters.map(({ context, wave, outcome, exitCode }) => ({ context, wave, outcome, exitCode }));
}

/** `kguard apply -f FILE --contexts staging,eu-1,us-1 … -o json`: the three clusters, one wave each unless the flags say otherwise. */
function applyToAll(file: string, ...flags: string[]) {
  return fleet.kguard(['apply', '-f', file, '--contexts', ALL.join(','), ...flags, '-o', 'json', ...fast]);
}

function imageIn(context: string): string | undefined {
  return fleet.clusters.get(context)!.store.get('Deployment', 'default', 'web')?.spec.template.spec.containers[0].image;
}

function journalsIn(context: string): number {
  return fleet.clusters
    .get(context)!
    .store.everything()
    .filter((object) => object.kind === 'Secret' && /journal/.test(object.metadata.name)).length;
}

function requestsTo(context: string): number {
  return fleet.clusters.get(context)!.arrivals.length;
}

describe('kguard apply --contexts', () => {
  it('applies to 3 clusters in 2 waves (canary, then the rest) and exits 0 when all are healthy, leaving no journal', async () => {
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await applyToAll(file, '--canary', 'staging');
    expect(run.exitCode, run.output).toBe(0);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'succeeded', exitCode: 0 },
      { context: 'eu-1', wave: 2, outcome: 'succeeded', exitCode: 0 },
      { context: 'us-1', wave: 2, outcome: 'succeeded', exitCode: 0 },
    ]);
    const { fleetRunId } = JSON.parse(run.stdout) as { fleetRunId: string };
    expect(fleetRunId).toMatch(/^fleet-[a-z0-9]+-[a-z0-9]+$/);
    expect(run.stderr).toContain(`context staging (wave 1): applying (fleet run ${fleetRunId})`);
    expect(run.stderr).toMatch(/context us-1 \(wave 2\): healthy \(exit 0\)/);
    expect(run.stderr).toMatch(/fleet: succeeded \(exit 0\)/);
    for (const context of ALL) {
      expect(imageIn(context)).toBe('nginx:1.26');
      expect(journalsIn(context), context).toBe(0);
    }
  });

  it('a bad image failing in the canary: the canary is restored, the other clusters are never touched, exit 3', async () => {
    const before = fleet.states();
    const requestsBefore = new Map(ALL.map((context) => [context, requestsTo(context)]));
    const file = await fleet.write('web-bad.yaml', deploymentYaml('web', MISSING));
    const run = await applyToAll(file, '--canary', 'staging');
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'rolled-back', exitCode: 3 },
      { context: 'eu-1', wave: 2, outcome: 'not-reached', exitCode: null },
      { context: 'us-1', wave: 2, outcome: 'not-reached', exitCode: null },
    ]);
    const after = fleet.states();
    for (const context of ALL) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    // Not reached means not even read.
    expect(requestsTo('eu-1')).toBe(requestsBefore.get('eu-1'));
    expect(requestsTo('us-1')).toBe(requestsBefore.get('us-1'));
  });

  it('a failure in wave 2 with --fleet-rollback all restores waves 1 and 2, each equal to its pre-apply state; wave 3 is untouched', async () => {
    const before = fleet.states();
    const requestsBefore = requestsTo('us-1');
    // The image pulls in staging and us-1; eu-1's registry has none.
    const file = await fleet.write('web-bad-in-eu.yaml', deploymentYaml('web', MISSING_IN_EU));
    const run = await applyToAll(file, '--fleet-rollback', 'all', '--events', 'events.ndjson', '--junit', 'fleet.xml');
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'restored', exitCode: 3 },
      { context: 'eu-1', wave: 2, outcome: 'rolled-back', exitCode: 3 },
      { context: 'us-1', wave: 3, outcome: 'not-reached', exitCode: null },
    ]);
    const after = fleet.states();
    for (const context of ALL) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    for (const context of ['staging', 'eu-1']) expect(journalsIn(context), context).toBe(0);
    expect(requestsTo('us-1')).toBe(requestsBefore);
    expect(run.stderr).toMatch(
      /context staging \(wave 1\): healthy, restored because another cluster failed \(exit 3\)/,
    );
    // JUnit: one suite per cluster, valid against the JUnit schema.
    const junit = await readFile(join(fleet.dir, 'fleet.xml'), 'utf8');
    expect(await junitSchemaErrors(junit)).toEqual([]);
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((match) => match[1])).toEqual([
      'kguard apply (context staging)',
      'kguard apply (context eu-1)',
      'kguard apply (context us-1)',
    ]);
    // Each cluster's section opens with its line; the fleet's restore of staging too.
    expect(run.stderr).toMatch(
      /context staging \(wave 1\): applying[\s\S]*context eu-1 \(wave 2\): applying[\s\S]*context staging \(wave 1\): restoring its healthy run, because another cluster of the fleet failed/,
    );
  });

  it('--fleet-rollback failed restores only the failed cluster and stops: wave 1 keeps the new version, exit 3', async () => {
    const before = fleet.states();
    const file = await fleet.write('web-bad-in-eu.yaml', deploymentYaml('web', MISSING_IN_EU));
    const run = await applyToAll(file, '--fleet-rollback', 'failed');
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout).map((cluster) => cluster.outcome)).toEqual([
      'succeeded',
      'rolled-back',
      'not-reached',
    ]);
    expect(imageIn('staging')).toBe(MISSING_IN_EU);
    expect(differencesFrom(before.get('eu-1')!, fleet.states().get('eu-1')!)).toEqual([]);
    expect(journalsIn('staging')).toBe(0);
  });

  it('an unreachable cluster fails its wave before anything is applied there; the wave before it is restored (exit 3)', async () => {
    const before = fleet.states();
    const requestsBefore = requestsTo('us-1');
    const file = await fleet.write('web-v3.yaml', deploymentYaml('web', 'nginx:1.27'));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,gone,us-1', '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'restored', exitCode: 3 },
      { context: 'gone', wave: 2, outcome: 'error', exitCode: 2 },
      { context: 'us-1', wave: 3, outcome: 'not-reached', exitCode: null },
    ]);
    expect(differencesFrom(before.get('staging')!, fleet.states().get('staging')!)).toEqual([]);
    expect(requestsTo('us-1')).toBe(requestsBefore);
  });

  it('an unreachable canary: nothing is applied anywhere, exit 2', async () => {
    const requestsBefore = requestsTo('eu-1');
    const file = await fleet.write('web-v3.yaml', deploymentYaml('web', 'nginx:1.27'));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'eu-1', '--canary', 'gone', ...fast]);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stdout).toMatch(/context eu-1 \(wave 2\): not reached: untouched/);
    expect(requestsTo('eu-1')).toBe(requestsBefore);
  });

  it('applyFleet() in the library: the same fleet, its report as the result, events through the callback', async () => {
    const events: ApplyEvent[] = [];
    const report = await applyFleet({
      stdin: deploymentYaml('web', 'nginx:1.27'),
      kubeconfig: fleet.kubeconfig,
      contexts: ['eu-1'],
      canary: 'staging',
      pollInterval: '300ms',
      timeout: '60s',
      onEvent: (event) => events.push(event),
    });
    assertValidReport(JSON.stringify(report), 'applyFleet');
    expect(report.exitCode).toBe(0);
    expect(report.clusters.map(({ context, wave, outcome }) => ({ context, wave, outcome }))).toEqual([
      { context: 'staging', wave: 1, outcome: 'succeeded' },
      { context: 'eu-1', wave: 2, outcome: 'succeeded' },
    ]);
    expect(events.filter((event) => event.kind === 'finished')).toHaveLength(2);
    expect(
      events.flatMap((event) =>
        event.kind === 'fleet-cluster' ? [`${event.context}:${event.step}:${event.fleetRunId}`] : [],
      ),
    ).toEqual([`staging:apply:${report.fleetRunId}`, `eu-1:apply:${report.fleetRunId}`]);
    for (const context of ['staging', 'eu-1']) expect(imageIn(context)).toBe('nginx:1.27');
  });
});
