// What the journal and run tests share: a registry with a missing image and one whose pulls are
// throttled for as long as a test needs a run to stay alive, and kguard flags that keep runs short.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox, untilWatching } from './harness.js';
import { configMapYaml } from './manifests.js';
import type { Fleet } from './fleet-harness.js';

export const MISSING = 'xxxxxnginx:1.17';
/** A sandbox whose registry says MISSING does not exist. */
export const missingImageSandbox = () => sandbox({ scenario: { registry: { [MISSING]: 'missing' } } });
export const THROTTLED = 'registry.example.com/shop/web:2.0';
// A short request timeout: a rollback of a run killed during its apply waits that long for its requests.
export const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];

export function runSandbox(): Promise<Sandbox> {
  return sandbox({ scenario: { registry: { [MISSING]: 'missing', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } } });
}

/** v1 of a small app, healthy: a ConfigMap settings and the Deployment web (nginx:1.25). */
export function deployApp(env: Sandbox): Promise<void> {
  return deployWeb(
    env,
    `${configMapYaml('settings', { level: 'info' })}---
${deploymentYaml('web', 'nginx:1.25')}`,
  );
}

/** Applies `yaml` with kubectl (a Deployment web of 2 replicas, by default alone) and waits until web is available. */
export async function deployWeb(env: Sandbox, yaml = deploymentYaml('web', 'nginx:1.25')): Promise<void> {
  const applied = await kubectl(env.cluster, ['apply', '-f', '-'], yaml);
  expect(applied.exitCode, applied.stderr).toBe(0);
  await eventually(() =>
    env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
  );
}

/**
 * web at `image` (2 replicas) by a plain kubectl apply, once its rollout is done: the new generation
 * observed, both replicas updated and available, no old one left.
 */
export async function webAt(env: Sandbox, image: string): Promise<void> {
  const applied = await kubectl(env.cluster, ['apply', '-f', '-'], deploymentYaml('web', image));
  expect(applied.exitCode, applied.stderr).toBe(0);
  await eventually(() => {
    const web = env.cluster.store.get('Deployment', 'default', 'web');
    const status = web?.status as
      | { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number; replicas?: number }
      | undefined;
    const done =
      status &&
      status.observedGeneration === web?.metadata.generation &&
      status.updatedReplicas === 2 &&
      status.availableReplicas === 2 &&
      status.replicas === 2;
    return done ? true : undefined;
  }, 60_000);
}

/** A kguard run of web on THROTTLED (with `fast`), once it watches the rollout, which cannot finish: it holds web for as long as a test needs. */
export async function slowRollout(env: Sandbox): Promise<ReturnType<Sandbox['kguardProcess']>> {
  const running = env.kguardProcess([
    'apply',
    '-f',
    await env.write('slow.yaml', deploymentYaml('web', THROTTLED)),
    ...fast,
  ]);
  await untilWatching(running.output);
  return running;
}

/**
 * A sandbox for each test of the file (started before it, stopped after it), or one for all of
 * them (`each: false`); `use` is given each new one: `let env: Sandbox; sandboxFor(sandbox, (fresh) => (env = fresh));`.
 */
export function sandboxFor(start: () => Promise<Sandbox>, use: (env: Sandbox) => void, each = true): void {
  let current: Sandbox | undefined;
  (each ? beforeEach : beforeAll)(async () => {
    current = await start();
    use(current);
  });
  (each ? afterEach : afterAll)(async () => {
    await current?.stop();
    current = undefined;
  });
}

/** v1 of `web` (nginx:1.25) in every cluster of the fleet at once, one wave of a fleet file, healthy. */
export async function deployWebEverywhere(fleet: Fleet, flags: readonly string[]): Promise<void> {
  const file = await fleet.write('web-v1.yaml', deploymentYaml('web', 'nginx:1.25'));
  const waves = await fleet.write(
    'all-at-once.yaml',
    `waves:\n  - contexts: [${[...fleet.clusters.keys()].join(', ')}]\n`,
  );
  const run = await fleet.kguard(['apply', '-f', file, '--fleet', waves, ...flags]);
  expect(run.exitCode, run.output).toBe(0);
}
