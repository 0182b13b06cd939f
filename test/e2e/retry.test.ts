// The CI retry story (#29): a job killed the way CI jobs die (kill -9) runs again. The retry
// finishes the dead run from its journal before it reads its own "before", and a restore outlasts
// a short API outage.
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, type Sandbox, untilWatching } from './harness.js';
import { configMapYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { deployApp, fast, MISSING, runSandbox, THROTTLED, sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(runSandbox, (fresh) => (env = fresh));

/** v1 of a small app: a ConfigMap and a Deployment, healthy. */
const deployV1 = () => deployApp(env);

const manifest = (image: string, level: string) =>
  `${configMapYaml('settings', { level })}---\n${deploymentYaml('web', image)}`;

/** kguard applies `file` and is killed with SIGKILL while it watches a rollout that cannot finish. */
async function killDuringWatch(file: string): Promise<void> {
  const running = env.kguardProcess(['apply', '-f', file, ...fast]);
  await untilWatching(running.output);
  running.child.kill('SIGKILL');
  await running.done;
}

describe('a retry after kill -9 finishes the dead run first', () => {
  it('the same command again: not "changed nothing" (exit 0) but the rollout judged again from the true before, and restored to it', async () => {
    await deployV1();
    const v1 = peopleMadeObjects(env.cluster.store);
    const file = await env.write('v2.yaml', manifest(THROTTLED, 'debug'));
    await killDuringWatch(file);
    expect(env.imageOf('web')).toBe(THROTTLED);

    const retry = await env.kguard(['apply', '-f', file, ...fast, '--timeout', '6s', '-o', 'json'], {
      checkRestore: false,
    });
    const report = JSON.parse(retry.stdout) as {
      exitCode: number;
      recoveredRuns: Array<{ runId: string; restored: number }>;
      messages: string[];
    };
    // Before: "nothing to change" and exit 0 while the dead run's v2 stayed stuck.
    expect(retry.exitCode, retry.output).toBe(5);
    expect(report.recoveredRuns).toEqual([{ runId: expect.stringMatching(/^kguard-/), restored: 2, untouched: 0 }]);
    expect(report.messages.join('\n')).toMatch(
      /run kguard-\S+ died and left its journal on 2 object\(s\) of this apply \(its process \d+ on this machine has ended\): restoring them from that journal before this run reads its "before"/,
    );
    // Timed out and restored: to v1, the dead run's true "before", not to its half-applied v2.
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
    expect((await env.kguard(['status'])).stdout).toContain('no unfinished kguard runs');
  });

  it('another manifest next: the dead run is restored first, without waiting for its Leases, and a failure restores to the true before (exit 3)', async () => {
    await deployV1();
    const v1 = peopleMadeObjects(env.cluster.store);
    await killDuringWatch(await env.write('v2.yaml', manifest(THROTTLED, 'debug')));

    const v3 = await env.write('v3.yaml', manifest(MISSING, 'trace'));
    // Before: it waited for the dead run's Leases and, with --lock-timeout under their 120 s, exited 2.
    const run = await env.kguard(['apply', '-f', v3, ...fast, '--lock-timeout', '10s'], { checkRestore: false });
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/run kguard-\S+ finished first: 2 object\(s\) restored from its journal/);
    expect(run.output).not.toContain('another kguard run holds it');
    expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
  });
});

describe('an apply that changes nothing still judges what is not settled', () => {
  it('with no journal to finish (--no-journal), a rollout left unfinished is judged, not called unchanged', async () => {
    await deployV1();
    const file = await env.write('v2.yaml', manifest(THROTTLED, 'debug'));
    const running = env.kguardProcess(['apply', '-f', file, ...fast, '--no-journal']);
    await untilWatching(running.output);
    running.child.kill('SIGKILL');
    await running.done;

    const retry = await env.kguard(['apply', '-f', file, ...fast, '--no-journal', '--timeout', '5s']);
    // Before: "the apply changed nothing (exit 0)" in a second or two, the rollout stuck.
    expect(retry.exitCode, retry.output).toBe(5);
    expect(retry.output).toContain(
      'deployment/web (namespace default): watching the new rollout (unchanged by this apply, but its last rollout is not complete:',
    );
  });

  it('a settled apply that changes nothing stays exit 0 without watching anything', async () => {
    await deployV1();
    const file = await env.write('v1.yaml', manifest('nginx:1.25', 'info'));
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain('watching');
  });
});

describe('a restore outlasts a short API outage', () => {
  it('the API server away for 6 s while the restore writes: retried until it answers, restored (exit 3)', async () => {
    await deployV1();
    const file = await env.write('v2.yaml', manifest(MISSING, 'debug'));
    const seen = env.cluster.arrivals.length;
    const running = env.kguardProcess(['apply', '-f', file, ...fast, '--rollback-timeout', '60s']);
    // The outage starts with the restore's first write of the Deployment.
    env.cluster.faults.failNext(503, 1, /^PUT [^?]*\/deployments\/web/);
    await eventually(() =>
      env.cluster.arrivals.slice(seen).some((request) => /^PUT [^?]*\/deployments\/web/.test(request))
        ? true
        : undefined,
    );
    await env.cluster.faults.unreachable(6000);
    const run = await running.done;
    // Before: three retries 0.5, 1 and 2 s apart, then "ROLLBACK FAILED" (exit 4).
    expect(run.exitCode, run.output).toBe(3);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('an outage during the apply', () => {
  it('is waited out: what the apply changed is read once the server answers, and restored (exit 3), not left to a person', async () => {
    await deployV1();
    const file = await env.write('v2.yaml', manifest(MISSING, 'debug'));
    const patch = /^PATCH [^?]*\/deployments\/web\?(?!.*dryRun)/;
    // The Deployment's PATCH is held; the API server goes away while it is, for 6 s.
    env.cluster.faults.slowNext(1500, 1, patch);
    const seen = env.cluster.arrivals.length;
    const running = env.kguardProcess(['apply', '-f', file, ...fast, '--rollback-timeout', '60s']);
    await eventually(() =>
      env.cluster.arrivals.slice(seen).some((request) => patch.test(request)) ? true : undefined,
    );
    await env.cluster.faults.unreachable(6000);
    const run = await running.done;
    // Before: "kguard could not read it after the apply … may or may not have changed" on every object (exit 4).
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).not.toContain('may or may not have changed');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('an outage while kguard watches is said once', () => {
  it('one line when the API server goes away (with the time), one when it is back: not one per look', async () => {
    await deployV1();
    const file = await env.write('v2.yaml', manifest(THROTTLED, 'debug'));
    const running = env.kguardProcess(['apply', '-f', file, ...fast, '--timeout', '30s']);
    await untilWatching(running.output);
    await env.cluster.faults.unreachable(10_000);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(5);
    const lines = run.output.split('\n');
    // Before: a warning at every look (about every 1.6 s), each a little different.
    expect(
      lines.filter((line) => line.includes('could not read workloads in namespace default')),
      run.output,
    ).toEqual([
      expect.stringMatching(
        /since \d\d:\d\d:\d\d UTC: .*refused.*; kguard keeps retrying until --timeout and says when they answer again$/,
      ),
    ]);
    expect(lines.filter((line) => line.includes('workloads in namespace default can be read again'))).toHaveLength(1);
    expect(run.output).not.toContain('kguard keeps reconnecting');
  });
});

describe("an object over the API server's size limits", () => {
  it('is refused before any kubectl call, naming it and the limit (exit 1)', async () => {
    const big = `${configMapYaml('small', { a: '1' })}---\n${configMapYaml('huge', { blob: 'x'.repeat(2 * 1024 * 1024) })}`;
    const file = await env.write('big.yaml', big);
    const seen = env.cluster.arrivals.length;
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain(
      'big.yaml (document 2): its data holds 2097152 bytes; the API server takes at most 1048576 (1 MiB) in a ConfigMap',
    );
    expect(run.output).toContain('configmap/huge in ');
    expect(run.output).toContain('nothing was applied and kubectl was not called');
    // Before: kubectl's dry runs sent it to the API server first.
    expect(env.cluster.arrivals.slice(seen)).toEqual([]);
  });

  it('a Secret with one value of 6 MiB on one line: the same refusal, its value counted as it streams (#45)', async () => {
    // 6 MiB of base64 decode to 4.5 MiB, the size the API server counts for a Secret's data.
    const value = 'QUJD'.repeat(1.5 * 1024 * 1024);
    const file = await env.write(
      'secret.yaml',
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: huge\ndata:\n  blob: ${value}\n`,
    );
    const seen = env.cluster.arrivals.length;
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain(
      `secret/huge in ${file}: its data holds ${Buffer.from(value, 'base64').length} bytes; the API server takes at most 1048576 (1 MiB) in a Secret`,
    );
    expect(run.output).toContain('nothing was applied and kubectl was not called');
    expect(env.cluster.arrivals.slice(seen)).toEqual([]);
  });

  it('a JSON manifest of 5 MiB: the same refusal, read a byte at a time (#45)', async () => {
    const data: Record<string, string> = {};
    for (let index = 0; index < 50_000; index++) data[`key${index}`] = 'j'.repeat(100);
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'json' }, data }, null, 2);
    const file = await env.write('big.json', text);
    const seen = env.cluster.arrivals.length;
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain(
      `configmap/json in ${file}: its data holds 5000000 bytes; the API server takes at most 1048576 (1 MiB) in a ConfigMap`,
    );
    expect(run.output).toContain('nothing was applied and kubectl was not called');
    expect(env.cluster.arrivals.slice(seen)).toEqual([]);
  });
});

describe('what kguard is given', () => {
  it('an object written twice with different contents is refused, naming it (exit 1), not applied with the last copy winning', async () => {
    await deployV1();
    const file = await env.write(
      'twice.yaml',
      `${deploymentYaml('web', 'nginx:1.26')}---\n${configMapYaml('settings', { level: 'info' })}---\n${deploymentYaml('web', 'nginx:1.27')}`,
    );
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toMatch(
      /deployment\/web \(namespace default\) \(different spec\.template\.spec\.containers\[0\]\.image\) is written more than once in this apply, and the copies differ/,
    );
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('a KGUARD_KUBECTL that is not kubectl, or not there, is named (exit 2), not blamed on the manifests', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const wrong = await env.kguard(['apply', '-f', file], { env: { KGUARD_KUBECTL: '/bin/false' } });
    expect(wrong.exitCode, wrong.output).toBe(2);
    expect(wrong.output).toContain('KGUARD_KUBECTL=/bin/false does not answer as kubectl does');
    expect(wrong.output).not.toContain('cannot read the manifests');
    const missing = await env.kguard(['apply', '-f', file], { env: { KGUARD_KUBECTL: '/nonexistent/kubectl' } });
    expect(missing.exitCode, missing.output).toBe(2);
    expect(missing.output).toContain('KGUARD_KUBECTL=/nonexistent/kubectl could not be started (ENOENT: no such file)');
  });
});
