// Watching rollouts end to end: bin/kguard → kubectl get --raw watches → the simulator's watch
// streams, through cut streams and refused watches.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { MISSING } from './run-fixtures.js';

// Pulls that take 3 s of wall time (30 s simulated at 10×): the pull error comes well after the
// watches are open, so a test can cut them first.
const SLOW_MISSING = 'xxxxxnginx:1.18';
const scenario = {
  registry: { [MISSING]: 'missing' as const, [SLOW_MISSING]: { state: 'missing' as const, pullMs: 30_000 } },
};
const failing =
  /deployment\/web \(namespace default\): new pods cannot pull (their )?image "xxxxxnginx:1\.1[78]": (ImagePullBackOff|ErrImagePull)/;

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario });
  await env.deployHealthy('web');
});
afterEach(async () => {
  await env.cluster.faults.restore();
  await env.stop();
});

const watchesOfPods = () =>
  env.cluster.arrivals.filter((request) => /^GET \/api\/v1\/namespaces\/default\/pods\?.*watch=1/.test(request));
const noWatchLeft = () => eventually(() => (env.cluster.openWatches() === 0 ? true : undefined));
const podPullFailed = () =>
  env.cluster.store
    .list('Pod', 'default')
    .some((pod) =>
      (pod.status?.containerStatuses ?? []).some((status: { state?: { waiting?: { reason?: string } } }) =>
        /ImagePull/.test(status.state?.waiting?.reason ?? ''),
      ),
    );

describe('kguard watches the rollout', () => {
  it('watches the pods of the workload by its selector, and no watch outlives the run', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const run = await env.kguard(['apply', '-f', file, '--timeout', '60s']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(failing);
    expect(watchesOfPods()[0]).toMatch(/labelSelector=app%3Dweb/);
    await noWatchLeft();
  });

  it('still reaches the verdict when every watch stream is cut mid-rollout', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', SLOW_MISSING));
    // A poll interval longer than the test: only the reconnected watch can bring the pull error.
    const kguard = env.kguardProcess(['apply', '-f', file, '--timeout', '60s', '--poll-interval', '60s']);
    await eventually(() => (env.cluster.openWatches() >= 3 ? true : undefined));
    expect(podPullFailed()).toBe(false);
    env.cluster.faults.cutWatches();
    await eventually(() => (watchesOfPods().length >= 2 && env.cluster.openWatches() >= 3 ? true : undefined));
    const run = await kguard.done;
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(failing);
    expect(run.output).toContain('deployment/web (namespace default): restored and healthy again');
    await noWatchLeft();
  });

  it('polls instead when the API server refuses every watch, and says so', async () => {
    env.cluster.faults.failNext(403, 10_000, /[?&]watch=1/);
    // A slow pull: the verdict must come from the polls, after watching was given up.
    const file = await env.write('web.yaml', deploymentYaml('web', SLOW_MISSING));
    const run = await env.kguard(['apply', '-f', file, '--timeout', '60s', '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(
      /cannot watch namespace default \([a-z.]+: Error from server \(Forbidden\): .* cannot watch resource/,
    );
    expect(run.stdout).toContain('polling it every 0.3s instead');
    expect(run.output).toMatch(failing);
    expect(
      env.cluster.requests.some(
        (request) =>
          /get|GET/.test(request.method) &&
          /\/namespaces\/default\/pods$/.test(request.url.split('?')[0]!) &&
          !request.url.includes('watch=1'),
      ),
    ).toBe(true);
  });

  it('--poll never watches', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const before = env.cluster.arrivals.length;
    const run = await env.kguard(['apply', '-f', file, '--timeout', '60s', '--poll', '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(failing);
    expect(env.cluster.arrivals.slice(before).filter((request) => request.includes('watch=1'))).toEqual([]);
  });
});
