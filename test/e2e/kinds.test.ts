// kguard apply end to end for every kind of workload: bin/kguard → real kubectl → simulated
// cluster with its statefulset, daemonset and job controllers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statefulSetYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';

const GOOD = 'nginx:1.25';
const BETTER = 'nginx:1.26';
const MISSING = 'xxxxxnginx:1.17';
const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario: { registry: { [MISSING]: 'missing' } } });
});
afterEach(async () => {
  await env.stop();
});

const pods = (label: string) => env.cluster.store.list('Pod', 'default', label);

async function applyHealthy(name: string, yaml: string): Promise<void> {
  const run = await env.kguard(['apply', '-f', await env.write(name, yaml), ...fast]);
  if (run.exitCode !== 0) throw new Error(`${name} did not roll out (exit ${run.exitCode}):\n${run.output}`);
}

describe('kguard apply: StatefulSets', () => {
  it('a bad image: verdict from the new revision pod, template restored, stuck pod deleted, exit 3', async () => {
    await applyHealthy('db.yaml', statefulSetYaml('db', GOOD));
    const run = await env.kguard(['apply', '-f', await env.write('db-bad.yaml', statefulSetYaml('db', MISSING)), ...fast]);
    console.log(run.output);
    expect(run.exitCode, run.output).toBe(3);
  });
});
