// Fleet apply (issue 19), end to end, part two: fleet files (--fleet), the fleet run id across
// clusters (kill -9 mid-fleet, then kguard status/rollback --contexts), and fleets that meet other
// writers. Three simulated clusters shared by the tests of this file, in order: each test reads
// the state the one before it left and compares with that.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { fleetSandbox, type Fleet } from './fleet-harness.js';
import { eventually } from './harness.js';
import { assertValidReport } from '../report/schema.js';
import { differencesFrom } from './restored.js';
import { deployWebEverywhere } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];
/** Pulls of this image are refused (429) for ever in eu-1: its rollout there never ends. */
const THROTTLED = 'registry.example.com/shop/web:2.0';
const ALL = ['staging', 'eu-1', 'us-1'];

let fleet: Fleet;
beforeAll(async () => {
  fleet = await fleetSandbox({
    staging: {},
    'eu-1': { scenario: { registry: { [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } },
    'us-1': {},
  });
  const created = await kubectl(fleet.clusters.get('us-1')!, ['create', 'namespace', 'shop']);
  expect(created.exitCode, created.stderr).toBe(0);
  await deployWebEverywhere(fleet, fast);
}, 60_000);
afterAll(async () => fleet?.stop());

/** kguard apply -f FILE --contexts CONTEXTS with the JSON report, started: 6 s per cluster, 3 s per request. */
function startShortRun(file: string, contexts: string) {
  return fleet.kguardProcess([
    'apply',
    '-f',
    file,
    '--contexts',
    contexts,
    '-o',
    'json',
    '--poll-interval',
    '300ms',
    '--timeout',
    '6s',
    '--request-timeout',
    '3s',
  ]);
}

function imageIn(context: string, namespace = 'default'): string | undefined {
  return fleet.clusters.get(context)!.store.get('Deployment', namespace, 'web')?.spec.template.spec.containers[0].image;
}

function requestsTo(): number[] {
  return ALL.map((context) => fleet.clusters.get(context)!.arrivals.length);
}

describe('kguard apply --fleet FILE', () => {
  it('refuses a bad file before any cluster is read: exit 1 naming the file, the path in it and what is wrong', async () => {
    const before = requestsTo();
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const waves = await fleet.write(
      'bad-fleet.yaml',
      'waves:\n  - contexts: [staging]\n  - contexts: [eu-1, us-1]\n    parallel: 0\n    bake: soon\n',
    );
    const run = await fleet.kguard(['apply', '-f', file, '--fleet', waves, ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain(
      `--fleet ${waves} does not follow schema/fleet.schema.json: /waves/1/parallel must be >= 1; /waves/1/bake is not a duration (use forms like 90s, 5m or 1m30s).`,
    );
    expect(requestsTo()).toEqual(before);
    // A context's own kubeconfig that does not exist: refused before wave 1 is applied.
    const elsewhere = await fleet.write(
      'elsewhere.yaml',
      'waves:\n  - contexts: [staging]\n  - contexts: [{context: us-1, kubeconfig: /nonexistent/kubeconfig}]\n',
    );
    const missing = await fleet.kguard(['apply', '-f', file, '--fleet', elsewhere, ...fast]);
    expect(missing.exitCode, missing.output).toBe(1);
    expect(missing.stderr).toContain(
      'context us-1: the kubeconfig file /nonexistent/kubeconfig (--kubeconfig) does not exist',
    );
    expect(requestsTo()).toEqual(before);
  });

  it("goes wave by wave, a wave's clusters at most `parallel` at once, each wave baked, with a context's own namespace", async () => {
    const file = await fleet.write('web-v2.yaml', deploymentYaml('web', 'nginx:1.26'));
    const waves = await fleet.write(
      'fleet.yaml',
      [
        'waves:',
        '  - contexts: [staging]',
        '    bake: 2s',
        '  - contexts: [eu-1, {context: us-1, namespace: shop}]',
        '    parallel: 1',
        '',
      ].join('\n'),
    );
    // Each cluster's check says when it starts and ends: with parallel 1, never two at once.
    const check = `echo "$KGUARD_CONTEXT $KGUARD_NAMESPACE start" >> order.log; sleep 1; echo "$KGUARD_CONTEXT end" >> order.log`;
    const run = await fleet.kguard(['apply', '-f', file, '--fleet', waves, '--verify', check, '-o', 'json', ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    const order = (await readFile(join(fleet.dir, 'order.log'), 'utf8')).trim().split('\n');
    expect(order).toEqual([
      'staging default start',
      'staging end',
      'eu-1 default start',
      'eu-1 end',
      'us-1 shop start',
      'us-1 end',
    ]);
    const report = JSON.parse(run.stdout) as {
      clusters: Array<{
        context: string;
        wave: number;
        outcome: string;
        report: { bake: { durationMs: number; passed: boolean } | null };
      }>;
    };
    expect(
      report.clusters.map(({ context, wave, outcome, report: own }) => ({
        context,
        wave,
        outcome,
        bake: own.bake && { durationMs: own.bake.durationMs, passed: own.bake.passed },
      })),
    ).toEqual([
      { context: 'staging', wave: 1, outcome: 'succeeded', bake: { durationMs: 2000, passed: true } },
      { context: 'eu-1', wave: 2, outcome: 'succeeded', bake: null },
      { context: 'us-1', wave: 2, outcome: 'succeeded', bake: null },
    ]);
    expect([imageIn('staging'), imageIn('eu-1'), imageIn('us-1', 'shop'), imageIn('us-1')]).toEqual([
      'nginx:1.26',
      'nginx:1.26',
      'nginx:1.26',
      'nginx:1.25',
    ]);
  });
});

describe('one fleet run id across the clusters', () => {
  it('kill -9 mid-fleet: kguard status --contexts shows each cluster of the fleet run, and kguard rollback FLEET --contexts restores every changed cluster exactly', async () => {
    const before = fleet.states();
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = fleet.kguardProcess(['apply', '-f', file, '--contexts', 'staging,eu-1,us-1', ...fast]);
    // Wave 1 is healthy and wave 2 applied (its pods cannot pull): the fleet is mid-way.
    await eventually(() => (imageIn('eu-1') === THROTTLED ? true : undefined));
    running.child.kill('SIGKILL');
    await running.done;
    expect(imageIn('staging')).toBe(THROTTLED);
    const untouched = fleet.clusters.get('us-1')!.arrivals.length;

    const status = await fleet.kguard(['status', '--contexts', 'staging,eu-1,us-1']);
    expect(status.exitCode, status.output).toBe(0);
    const fleetRunId = /^fleet run (fleet-\S+) \(contexts staging, eu-1, us-1\)/m.exec(status.stdout)?.[1];
    expect(fleetRunId, status.stdout).toBeDefined();
    expect(status.stdout).toContain(`→  kguard rollback ${fleetRunId} --contexts staging,eu-1,us-1`);
    expect(status.stdout).toMatch(/^ {2}context staging: dead {2}kguard-\S+ {2}namespace default {2}1 object\(s\)/m);
    expect(status.stdout).toMatch(/^ {2}context eu-1: dead {2}kguard-\S+ {2}namespace default {2}1 object\(s\)/m);
    expect(status.stdout).toMatch(/^ {2}context us-1: no journal of this fleet run/m);

    const rollback = await fleet.kguard(['rollback', fleetRunId!, '--contexts', 'staging,eu-1,us-1']);
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(rollback.stdout).toMatch(/^context staging: run kguard-\S+ restored \(1 restored/m);
    expect(rollback.stdout).toMatch(/^context eu-1: run kguard-\S+ restored \(1 restored/m);
    expect(rollback.stdout).toMatch(/^context us-1: no journal of this fleet run: nothing to restore$/m);
    expect(rollback.stdout).toContain(`fleet run ${fleetRunId}: restored (exit 0)`);
    const after = fleet.states();
    for (const context of ALL) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    // The cluster the fleet never reached was only read, never written.
    expect(
      fleet.clusters
        .get('us-1')!
        .arrivals.slice(untouched)
        .filter((request) => !/^GET /.test(request)),
    ).toEqual([]);

    // Done: nothing of the fleet run is left to restore.
    const again = await fleet.kguard(['rollback', fleetRunId!, '--contexts', 'staging,eu-1,us-1']);
    expect(again.exitCode, again.output).toBe(1);
    expect(again.stderr).toContain(`no journal of fleet run ${fleetRunId} in contexts staging, eu-1, us-1`);
  });
});

describe('fleets among other writers', () => {
  it("someone else's change to a healthy cluster wins over the fleet's restore: it is kept, exit 4", async () => {
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = startShortRun(file, 'staging,eu-1');
    await eventually(() => (imageIn('eu-1') === THROTTLED ? true : undefined));
    // A person moves staging on while wave 2 runs.
    const edited = await kubectl(fleet.clusters.get('staging')!, ['set', 'image', 'deployment/web', 'web=nginx:1.27']);
    expect(edited.exitCode, edited.stderr).toBe(0);
    await running.done;
    const run = await running.child;
    expect(run.exitCode, String(run.stderr)).toBe(4);
    assertValidReport(String(run.stdout), 'fleet with a conflict');
    expect(String(run.stderr)).toMatch(
      /context staging \(wave 1\): needs a person \(exit 4\): .*kguard rollback kguard-\S+ --context staging finishes it/,
    );
    const report = JSON.parse(String(run.stdout)) as { clusters: Array<{ context: string; outcome: string }> };
    expect(report.clusters.map(({ context, outcome }) => ({ context, outcome }))).toEqual([
      { context: 'staging', outcome: 'needs-attention' },
      { context: 'eu-1', outcome: 'timed-out' },
    ]);
    expect(imageIn('staging')).toBe('nginx:1.27');
    expect(imageIn('eu-1')).toBe('nginx:1.26');
    // The person's change is kept; their own kguard forget dismisses the run that needed them.
    const runId = /kguard rollback (kguard-\S+) --context staging/.exec(String(run.stderr))![1]!;
    const forgot = await fleet.kguard(['forget', runId, '--context', 'staging']);
    expect(forgot.exitCode, forgot.output).toBe(0);
  });

  it('a context switch in the kubeconfig mid-fleet changes nothing: every call stays on its pinned context', async () => {
    const before = fleet.states();
    const untouched = fleet.clusters.get('us-1')!.arrivals.length;
    const file = await fleet.write('web-throttled.yaml', deploymentYaml('web', THROTTLED));
    const running = startShortRun(file, 'staging,eu-1,us-1');
    await eventually(() => (imageIn('eu-1') === THROTTLED ? true : undefined));
    const switched = await execa('kubectl', ['config', 'use-context', 'us-1'], {
      env: { ...process.env, KUBECONFIG: fleet.kubeconfig },
      reject: false,
      timeout: 20_000,
    });
    expect(switched.exitCode, switched.stderr).toBe(0);
    const run = await running.child;
    expect(run.exitCode, String(run.stderr)).toBe(5);
    const report = JSON.parse(String(run.stdout)) as { clusters: Array<{ context: string; outcome: string }> };
    expect(report.clusters.map(({ context, outcome }) => ({ context, outcome }))).toEqual([
      { context: 'staging', outcome: 'restored' },
      { context: 'eu-1', outcome: 'timed-out' },
      { context: 'us-1', outcome: 'not-reached' },
    ]);
    const after = fleet.states();
    for (const context of ALL) expect(differencesFrom(before.get(context)!, after.get(context)!), context).toEqual([]);
    expect(fleet.clusters.get('us-1')!.arrivals.length).toBe(untouched);
  });
});
