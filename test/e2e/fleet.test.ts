// Fleet apply (issue 19), end to end: the real bin/kguard and the real kubectl against three
// simulated clusters behind one kubeconfig, one context each.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { junitSchemaErrors } from '../report/junit-schema.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { fleetSandbox, type Fleet } from './fleet-harness.js';
import { eventually } from './harness.js';
import { applyFleet, type ApplyEvent } from '../../src/index.js';
import { assertValidReport } from '../report/schema.js';
import { differencesFrom } from './restored.js';

const MISSING = 'xxxxxnginx:1.17';
const missingImage = { scenario: { registry: { [MISSING]: 'missing' as const } } };
const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];
/** Pulls of this image are refused (429) for ever where the registry says so: its rollout never ends. */
const THROTTLED = 'registry.example.com/shop/web:2.0';

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});

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

/** Every cluster with v1 of `web` (nginx:1.25) deployed by kubectl's way of things: a plain kguard apply per context. */
async function deployV1(target: Fleet): Promise<void> {
  const file = await target.write('web-v1.yaml', deploymentYaml('web', 'nginx:1.25'));
  for (const context of target.clusters.keys()) {
    const run = await target.kguard(['apply', '-f', file, '--context', context, ...fast]);
    expect(run.exitCode, run.output).toBe(0);
  }
}

function imageIn(target: Fleet, context: string): string | undefined {
  return target.clusters.get(context)!.store.get('Deployment', 'default', 'web')?.spec.template.spec.containers[0].image;
}

function journalsIn(target: Fleet, context: string): number {
  return target.clusters.get(context)!.store.everything().filter((object) => object.kind === 'Secret' && /journal/.test(object.metadata.name)).length;
}

describe('kguard apply --contexts', () => {
  it('applies to 3 clusters in 2 waves (canary, then the rest) and exits 0 when all are healthy, leaving no journal', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': {}, 'us-1': {} });
    await deployV1(fleet);
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '--canary', 'staging', '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'succeeded', exitCode: 0 },
      { context: 'eu-1', wave: 2, outcome: 'succeeded', exitCode: 0 },
      { context: 'us-1', wave: 2, outcome: 'succeeded', exitCode: 0 },
    ]);
    expect(run.stderr).toMatch(/context us-1 \(wave 2\): healthy \(exit 0\)/);
    expect(run.stderr).toMatch(/fleet: succeeded \(exit 0\)/);
    for (const context of ['staging', 'eu-1', 'us-1']) {
      expect(imageIn(fleet, context)).toBe('nginx:1.26');
      expect(journalsIn(fleet, context), context).toBe(0);
    }
  });

  it('a bad image failing in the canary: the canary is restored, the other clusters are never touched, exit 3', async () => {
    fleet = await fleetSandbox({ staging: missingImage, 'eu-1': missingImage, 'us-1': missingImage });
    await deployV1(fleet);
    const before = fleet.states();
    const requestsBefore = new Map([...fleet.clusters].map(([context, cluster]) => [context, cluster.arrivals.length]));
    const file = await fleet.write('web-bad.yaml', deploymentYaml('web', MISSING));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '--canary', 'staging', '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'rolled-back', exitCode: 3 },
      { context: 'eu-1', wave: 2, outcome: 'not-reached', exitCode: null },
      { context: 'us-1', wave: 2, outcome: 'not-reached', exitCode: null },
    ]);
    const after = fleet.states();
    for (const context of ['staging', 'eu-1', 'us-1']) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    // Not reached means not even read.
    expect(fleet.clusters.get('eu-1')!.arrivals.length).toBe(requestsBefore.get('eu-1'));
    expect(fleet.clusters.get('us-1')!.arrivals.length).toBe(requestsBefore.get('us-1'));
  });

  it('a failure in wave 2 with --fleet-rollback all restores waves 1 and 2, each equal to its pre-apply state; wave 3 is untouched', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': missingImage, 'us-1': {} });
    await deployV1(fleet);
    const before = fleet.states();
    const requestsBefore = fleet.clusters.get('us-1')!.arrivals.length;
    // The image pulls in staging and us-1; eu-1's registry has none.
    const file = await fleet.write('web-bad.yaml', deploymentYaml('web', MISSING));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '--fleet-rollback', 'all', '-o', 'json', '--events', 'events.ndjson', '--junit', 'fleet.xml', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'restored', exitCode: 3 },
      { context: 'eu-1', wave: 2, outcome: 'rolled-back', exitCode: 3 },
      { context: 'us-1', wave: 3, outcome: 'not-reached', exitCode: null },
    ]);
    const after = fleet.states();
    for (const context of ['staging', 'eu-1', 'us-1']) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    for (const context of ['staging', 'eu-1']) expect(journalsIn(fleet, context), context).toBe(0);
    expect(fleet.clusters.get('us-1')!.arrivals.length).toBe(requestsBefore);
    expect(run.stderr).toMatch(/context staging \(wave 1\): healthy, restored because another cluster failed \(exit 3\)/);
    // JUnit: one suite per cluster, valid against the JUnit schema.
    const junit = await readFile(join(fleet.dir, 'fleet.xml'), 'utf8');
    expect(await junitSchemaErrors(junit)).toEqual([]);
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((match) => match[1])).toEqual([
      'kguard apply (context staging)',
      'kguard apply (context eu-1)',
      'kguard apply (context us-1)',
    ]);
    // Each cluster's section opens with its line; the fleet's restore of staging too.
    expect(run.stderr).toMatch(/context staging \(wave 1\): applying[\s\S]*context eu-1 \(wave 2\): applying[\s\S]*context staging \(wave 1\): restoring its healthy run, because another cluster of the fleet failed/);
  });

  it('--fleet-rollback failed restores only the failed cluster and stops: wave 1 keeps the new version, exit 3', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': missingImage, 'us-1': {} });
    await deployV1(fleet);
    const before = fleet.states();
    const file = await fleet.write('web-bad.yaml', deploymentYaml('web', MISSING));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '--fleet-rollback', 'failed', '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout).map((cluster) => cluster.outcome)).toEqual(['succeeded', 'rolled-back', 'not-reached']);
    expect(imageIn(fleet, 'staging')).toBe(MISSING);
    expect(differencesFrom(before.get('eu-1')!, fleet.states().get('eu-1')!)).toEqual([]);
    expect(journalsIn(fleet, 'staging')).toBe(0);
  });

  it('an unreachable cluster fails its wave before anything is applied there; the wave before it is restored (exit 3)', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': {}, 'us-1': {} });
    await deployV1(fleet);
    const before = fleet.states();
    await fleet.clusters.get('eu-1')!.stop();
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(clustersOf(run.stdout)).toEqual([
      { context: 'staging', wave: 1, outcome: 'restored', exitCode: 3 },
      { context: 'eu-1', wave: 2, outcome: 'error', exitCode: 2 },
      { context: 'us-1', wave: 3, outcome: 'not-reached', exitCode: null },
    ]);
    expect(imageIn(fleet, 'staging')).toBe('nginx:1.25');
    expect(differencesFrom(before.get('staging')!, fleet.states().get('staging')!)).toEqual([]);
    expect(imageIn(fleet, 'us-1')).toBe('nginx:1.25');
  });

  it('an unreachable canary: nothing is applied anywhere, exit 2', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': {} });
    await fleet.clusters.get('staging')!.stop();
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await fleet.kguard(['apply', '-f', file, '--contexts', 'eu-1', '--canary', 'staging', ...fast]);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stdout).toMatch(/context eu-1 \(wave 2\): not reached: untouched/);
    expect(imageIn(fleet, 'eu-1')).toBeUndefined();
  });

  it('kill -9 mid-fleet: every changed cluster kept its journal, and kguard rollback --context restores each one', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': { scenario: { registry: { [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } }, 'us-1': {} });
    await deployV1(fleet);
    const before = fleet.states();
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = fleet.kguardProcess(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', ...fast]);
    // Wave 1 is healthy and wave 2 applied (its pods cannot pull): the fleet is mid-way.
    await eventually(() => (imageIn(fleet!, 'eu-1') === THROTTLED ? true : undefined));
    running.child.kill('SIGKILL');
    await running.done;
    expect(imageIn(fleet, 'staging')).toBe(THROTTLED);
    for (const context of ['staging', 'eu-1']) {
      const run = await fleet.kguard(['rollback', '--context', context]);
      expect(run.exitCode, `${context}: ${run.output}`).toBe(0);
    }
    const after = fleet.states();
    for (const context of ['staging', 'eu-1', 'us-1']) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
  });

  it('applyFleet() in the library: the same fleet, its report as the result, events through the callback', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': {} });
    const events: ApplyEvent[] = [];
    const report = await applyFleet({
      stdin: deploymentYaml('web', 'nginx:1.26'),
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
    expect(events.flatMap((event) => (event.kind === 'fleet-cluster' ? [`${event.context}:${event.step}`] : []))).toEqual(['staging:apply', 'eu-1:apply']);
    for (const context of ['staging', 'eu-1']) expect(imageIn(fleet, context)).toBe('nginx:1.26');
  });

  it("someone else's change to a healthy cluster wins over the fleet's restore: it is kept, exit 4", async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': { scenario: { registry: { [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } } });
    await deployV1(fleet);
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = fleet.kguardProcess(['apply', '-f', file, '--contexts', 'staging,eu-1', '-o', 'json', '--poll-interval', '300ms', '--timeout', '8s', '--request-timeout', '3s']);
    await eventually(() => (imageIn(fleet!, 'eu-1') === THROTTLED ? true : undefined));
    // A person moves staging on while wave 2 runs.
    const edited = await kubectl(fleet.clusters.get('staging')!, ['set', 'image', 'deployment/web', 'web=nginx:1.27']);
    expect(edited.exitCode, edited.stderr).toBe(0);
    await running.done;
    const run = await running.child;
    expect(run.exitCode, String(run.stderr)).toBe(4);
    assertValidReport(String(run.stdout), 'fleet with a conflict');
    expect(String(run.stderr)).toMatch(/context staging \(wave 1\): needs a person \(exit 4\): .*kguard rollback kguard-\S+ --context staging finishes it/);
    expect(clustersOf(String(run.stdout)).map(({ context, outcome }) => ({ context, outcome }))).toEqual([
      { context: 'staging', outcome: 'needs-attention' },
      { context: 'eu-1', outcome: 'timed-out' },
    ]);
    expect(imageIn(fleet, 'staging')).toBe('nginx:1.27');
    expect(imageIn(fleet, 'eu-1')).toBe('nginx:1.25');
  });

  it('a context switch in the kubeconfig mid-fleet changes nothing: every call stays on its pinned context', async () => {
    fleet = await fleetSandbox({ staging: {}, 'eu-1': { scenario: { registry: { [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } }, 'us-1': {} });
    await deployV1(fleet);
    const before = fleet.states();
    const untouched = fleet.clusters.get('us-1')!.arrivals.length;
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = fleet.kguardProcess(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', '-o', 'json', '--poll-interval', '300ms', '--timeout', '8s', '--request-timeout', '3s']);
    await eventually(() => (imageIn(fleet!, 'eu-1') === THROTTLED ? true : undefined));
    const switched = await execa('kubectl', ['config', 'use-context', 'us-1'], { env: { ...process.env, KUBECONFIG: fleet.kubeconfig }, reject: false, timeout: 20_000 });
    expect(switched.exitCode, switched.stderr).toBe(0);
    const run = await running.child;
    expect(run.exitCode, String(run.stderr)).toBe(5);
    expect(clustersOf(String(run.stdout)).map(({ context, outcome }) => ({ context, outcome }))).toEqual([
      { context: 'staging', outcome: 'restored' },
      { context: 'eu-1', outcome: 'timed-out' },
      { context: 'us-1', outcome: 'not-reached' },
    ]);
    const after = fleet.states();
    for (const context of ['staging', 'eu-1', 'us-1']) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    expect(fleet.clusters.get('us-1')!.arrivals.length).toBe(untouched);
  });
});
