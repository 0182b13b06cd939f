// The safety rules, end to end: someone else's change is never undone, a failed rollback is the
// loudest message, and a timeout rolls back with exit 5.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';

const MISSING = 'xxxxxnginx:1.17';
// A registry that answers 429 for ever: kguard treats it as passing trouble and keeps waiting.
const THROTTLED = 'registry.example.com/shop/web:2.0';
let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario: { registry: { [MISSING]: 'missing', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } });
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
    await eventually(() => (running.output().includes('watching the new rollout') ? true : undefined));
    const theirs = await kubectl(env.cluster, ['set', 'image', 'deployment/web', 'web=nginx:1.27']);
    expect(theirs.exitCode, theirs.stderr).toBe(0);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toMatch(/deployment\/web \(namespace default\): someone else changed its pod template while kguard watched \(generation 2 → 3\)/);
    expect(run.output).not.toContain('rolling back');
    expect(env.imageOf('web')).toBe('nginx:1.27');
  });

  it('rolls back a rollout that is still not healthy at --timeout, exit 5', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '4s']);
    expect(run.exitCode, run.output).toBe(5);
    expect(run.output).toMatch(/deployment\/web \(namespace default\): timed out after <DURATION>: new pods did not become ready in time/);
    expect(run.output).toMatch(/429 Too Many Requests|toomanyrequests/);
    expect(run.output).toContain('rolled back deployment/web (namespace default) to revision 1');
    expect(run.output).toContain('kguard: rollout timed out (exit 5)');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('leaves a failed rollout in place with --no-rollback and prints the undo command, exit 3', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--no-rollback']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('not rolled back because of --no-rollback');
    expect(run.output).toContain('kubectl rollout undo deployment/web -n default --to-revision=1');
    expect(env.imageOf('web')).toBe(MISSING);
  });

  it('makes a failed undo the loudest message, with the exact command to finish by hand, exit 4', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    // Refuse the undo (a JSON patch without the apply's field manager), not the apply itself.
    env.cluster.faults.failNext(403, 100, /^PATCH [^?]*\/deployments\/web(?!.*fieldManager=kubectl-client-side-apply)/);
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toMatch(/‼ ROLLBACK FAILED: deployment\/web \(namespace default\) is not back at revision 1: kubectl rollout undo failed: .*forbidden/);
    expect(run.output).toContain('    kubectl rollout undo deployment/web -n default --to-revision=1');
    expect(run.output).toContain('kguard: rollout failed and was NOT fully rolled back');
    expect(env.imageOf('web')).toBe(MISSING);
  });

  it('on SIGTERM (a cancelled CI job) says what was in flight and how to undo it, exit 130', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    await eventually(() => (running.output().includes('watching the new rollout') ? true : undefined));
    running.child.kill('SIGTERM');
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain('kguard: interrupted by SIGTERM; the rollouts it was watching were NOT checked or rolled back');
    expect(run.stderr).toContain('kubectl rollout undo deployment/web -n default --to-revision=1');
  });
});
