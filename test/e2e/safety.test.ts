// The safety rules, end to end: someone else's change is never undone, a failed rollback is the
// loudest message, and a timeout rolls back with exit 5.
import { stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox, untilWatching } from './harness.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { MISSING } from './run-fixtures.js';

// A registry that answers 429 for ever: kguard treats it as passing trouble and keeps waiting.
const THROTTLED = 'registry.example.com/shop/web:2.0';
let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({
    scenario: { registry: { [MISSING]: 'missing', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } },
  });
});
afterEach(async () => {
  await env.stop();
});

describe('kguard safety rules', () => {
  it("does not undo someone else's change made while it watched: exit 4, their image stays", async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    // Wait until kguard watches the new rollout, then change the template by hand.
    await untilWatching(running.output);
    const theirs = await kubectl(env.cluster, ['set', 'image', 'deployment/web', 'web=nginx:1.27']);
    expect(theirs.exitCode, theirs.stderr).toBe(0);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toMatch(
      /deployment\/web \(namespace default\): someone else changed spec\.template\.spec\.containers\[0\]\.image after kguard applied it; kguard will not undo someone else's change/,
    );
    expect(run.output).toContain(
      'deployment/web (namespace default): NOT restored: someone else changed it after the apply, and their change wins.',
    );
    expect(run.output).toContain('    kubectl get deployment.apps/web -n default -o yaml');
    expect(run.output).not.toContain('put back as it was before the apply');
    expect(env.imageOf('web')).toBe('nginx:1.27');
  });

  it('restores a rollout that is still not healthy at --timeout, exit 5', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '4s']);
    expect(run.exitCode, run.output).toBe(5);
    expect(run.output).toMatch(
      /deployment\/web \(namespace default\): timed out after <DURATION>: new pods did not become ready in time/,
    );
    expect(run.output).toMatch(/429 Too Many Requests|toomanyrequests/);
    expect(run.output).toContain('deployment/web (namespace default): put back as it was before the apply');
    expect(run.output).toContain(
      'kguard: a changed workload was not healthy within --timeout, and the cluster was restored to its state before the apply (exit 5)',
    );
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('leaves a failed rollout in place with --no-rollback and prints the command that restores it, exit 3', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--no-rollback']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain(
      'deployment/web (namespace default): left as applied because of --rollback none. To restore it by hand:',
    );
    const command = run.output.split('\n').find((line) => /^ {4}kubectl replace -f \S+\.json$/.test(line));
    expect(command, run.output).toBeDefined();
    expect(env.imageOf('web')).toBe(MISSING);
    // Pasted, the command puts the pre-apply copy back.
    const pasted = await kubectl(env.cluster, command!.trim().split(/\s+/).slice(1));
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('makes a refused restore the loudest message, with commands that finish it when pasted, exit 4', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    // Refuse the restore (a PUT of the whole object), not the apply (a PATCH).
    env.cluster.faults.failNext(403, 100, /^PUT [^?]*\/deployments\/web/);
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toMatch(
      /‼ ROLLBACK FAILED: deployment\/web \(namespace default\) is not back as it was before the apply: the API server refused the pre-apply copy: .*forbidden/,
    );
    expect(run.output).toMatch(/Its pre-apply copy is in \S+\.json \(readable only by you\)/);
    expect(run.output).toContain(
      'kguard: the apply was neither verified healthy nor fully undone: finish by hand with the commands above (exit 4)',
    );
    expect(env.imageOf('web')).toBe(MISSING);
    // The API server accepts writes again: pasted, the printed command finishes the restore.
    await env.cluster.faults.restore();
    const command = run.output.split('\n').find((line) => /^ {4}kubectl replace -f \S+\.json$/.test(line));
    expect(command, run.output).toBeDefined();
    const copyFile = command!.trim().split(/\s+/).at(-1)!;
    expect((await stat(copyFile)).mode & 0o777).toBe(0o600);
    const pasted = await kubectl(env.cluster, command!.trim().split(/\s+/).slice(1));
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('on SIGTERM (a cancelled CI job) restores what the apply changed at once, exit 130', async () => {
    await env.deployHealthy('web');
    const before = peopleMadeObjects(env.cluster.store);
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    await untilWatching(running.output);
    running.child.kill('SIGTERM');
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain(
      'kguard: SIGTERM: stopping; restoring what this apply changed (a second signal exits at once)',
    );
    expect(run.output).toContain('deployment/web (namespace default): put back as it was before the apply');
    expect(run.output).toContain(
      'kguard: cancelled: what the apply changed was restored to its state before the apply (not waited for health) (exit 130)',
    );
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect(differencesFrom(before, peopleMadeObjects(env.cluster.store))).toEqual([]);
  });

  it('on SIGTERM before the apply changes nothing, exit 130', async () => {
    await env.deployHealthy('web');
    // Hold the server dry run so the signal lands before the apply.
    env.cluster.faults.latency(1500);
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const seen = env.cluster.arrivals.length;
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms']);
    await eventually(() =>
      env.cluster.arrivals.slice(seen).some((request) => /dryRun=All/.test(request)) ? true : undefined,
    );
    const signalledAt = Date.now();
    running.child.kill('SIGTERM');
    const run = await running.done;
    const exitedAfterMs = Date.now() - signalledAt;
    await env.cluster.faults.restore();
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain('interrupted by SIGTERM before the apply: nothing was applied');
    // Handled at once: the reads in flight are stopped, not waited for (each is held 1.5 s).
    expect(exitedAfterMs).toBeLessThan(3000);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('a second signal exits at once and names what was not restored', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    await untilWatching(running.output);
    // Every answer is slow now: the restore cannot finish before the second signal.
    env.cluster.faults.latency(5000);
    const seen = env.cluster.arrivals.length;
    running.child.kill('SIGTERM');
    // The restore has started (a request reached the server and is held there): signal again.
    await eventually(() =>
      env.cluster.arrivals.slice(seen).some((request) => !/dryRun/.test(request)) ? true : undefined,
    );
    running.child.kill('SIGTERM');
    const run = await running.done;
    await env.cluster.faults.restore();
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain(
      'kguard: SIGTERM again: exiting at once (exit 130); the restore was NOT finished; these objects may still be as the apply left them:',
    );
    expect(run.stderr).toContain('  deployment/web (namespace default)');
    expect(run.stderr).toMatch(/Finish it with: kguard rollback kguard-\S+/);
  });
});
