// kguard against a real control plane: RBAC with a real authorizer, and a run killed with -9.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, imageOf, realSandbox, type RealSandbox } from './harness.js';
import { MISSING_IMAGE } from './scenario.js';

let restricted: RealSandbox;
let runs: RealSandbox;
let late: RealSandbox;
beforeAll(async () => {
  // The restricted user's Role is in namespace default (test/control-plane/rbac.ts).
  restricted = await realSandbox('default');
  runs = await realSandbox('real-runs');
  // Its own namespace: each kill test leaves a journal behind today, and `kguard rollback` picks
  // the only unfinished run of a namespace.
  late = await realSandbox('real-runs-late');
});
afterAll(async () => {
  await restricted?.stop();
  await runs?.stop();
  await late?.stop();
});

const configYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: features\ndata:\n  beta: "on"\n';

describe('RBAC: a user who may not delete ConfigMaps', () => {
  it('is refused before the apply (exit 2), the missing rule named, nothing changed', async () => {
    const first = await restricted.kubectl(['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'));
    expect(first.exitCode, first.stderr).toBe(0);
    const file = await restricted.write('next.yaml', `${configYaml}---\n${deploymentYaml('web', 'nginx:1.26')}`);
    const run = await restricted.kguard(['apply', '-f', file, '--timeout', '30s', '--poll-interval', '1s'], {
      as: 'restricted',
    });
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toContain(
      'this user may not delete configmaps in namespace default (to delete configmap/features (namespace default), which this apply creates)',
    );
    expect(run.output).toContain('apiGroups: [""], resources: ["configmaps"], verbs: ["delete"]');
    expect(await restricted.get('configmap', 'features')).toBeUndefined();
    expect(imageOf(await restricted.get('deployment', 'web'))).toBe('nginx:1.25');
    const leftovers = await restricted.kubectl(['get', 'secrets,leases', '-o', 'name']);
    expect(leftovers.stdout.split('\n').filter((line) => line.includes('kguard'))).toEqual([]);
  });
});

/** A Deployment whose new pods run but never pass readiness (kube-sim's knob, a kwok stage here): a long watch. */
const neverReady = (name: string) =>
  deploymentYaml(name, 'nginx:1.26').replace(
    '    metadata:\n      labels:',
    '    metadata:\n      annotations:\n        sim.kguard.dev/readiness: fail\n      labels:',
  );

describe('kill -9 in the middle of the watch, then kguard rollback', () => {
  it("restores the pre-apply Deployment from the dead run's journal", async () => {
    const v1 = await runs.write('web-v1.yaml', deploymentYaml('web', 'nginx:1.25'));
    const first = await runs.kguard([
      'apply',
      '-f',
      v1,
      '-n',
      runs.namespace,
      '--timeout',
      '60s',
      '--poll-interval',
      '1s',
    ]);
    expect(first.exitCode, first.output).toBe(0);
    const v2 = await runs.write('web-v2.yaml', neverReady('web'));
    const running = runs.kguardProcess([
      'apply',
      '-f',
      v2,
      '-n',
      runs.namespace,
      '--timeout',
      '120s',
      '--poll-interval',
      '1s',
    ]);
    // Mid-watch: the new template is in and kguard waits for its pods to become ready.
    await eventually(
      async () => (/0\/2 new pods ready|1\/2 new pods ready/.test(running.output()) ? true : undefined),
      60_000,
    );
    expect(imageOf(await runs.get('deployment', 'web'))).toBe('nginx:1.26');
    running.child.kill('SIGKILL');
    const killed = await running.done;
    expect(killed.exitCode).not.toBe(0);
    expect(killed.output).not.toContain('restoring');

    const status = await runs.kguard(['status', '-n', runs.namespace]);
    expect(status.exitCode, status.output).toBe(0);
    expect(status.stdout).toMatch(/dead: its process \d+ on this machine has ended/);
    const rollback = await runs.kguard(['rollback', '-n', runs.namespace]);
    expect(rollback.output).toContain('deployment/web (namespace real-runs): put back as it was before the apply');
    // The deployment controller writes its own field-owner entry after the restore (a new time):
    // no late write of the run, so the rollback ends done (it was exit 4 before, on this cluster).
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(imageOf(await runs.get('deployment', 'web'))).toBe('nginx:1.25');
    await eventually(async () =>
      (await runs.get('deployment', 'web'))?.status?.readyReplicas === 2 ? true : undefined,
    );
  });
});

describe('kill -9 right after kguard put the Deployment back, during its health wait', () => {
  it("the dead run's restore stands: the old template is live and rolls out, and kguard status names the dead run", async () => {
    const v1 = await late.write('late-v1.yaml', deploymentYaml('late', 'nginx:1.25'));
    expect(
      (await late.kguard(['apply', '-f', v1, '-n', late.namespace, '--timeout', '60s', '--poll-interval', '1s']))
        .exitCode,
    ).toBe(0);
    const v2 = await late.write('late-v2.yaml', deploymentYaml('late', MISSING_IMAGE));
    const putBack = 'deployment/late (namespace real-runs-late): put back as it was before the apply';
    const running = late.kguardProcess(
      ['apply', '-f', v2, '-n', late.namespace, '--timeout', '60s', '--poll-interval', '1s'],
      { killWhen: (output) => output.includes(putBack) },
    );
    const killed = await running.done;
    expect(killed.output).toContain(putBack);
    expect(killed.output).not.toContain('exit 3');

    expect(imageOf(await late.get('deployment', 'late'))).toBe('nginx:1.25');
    await eventually(async () =>
      (await late.get('deployment', 'late'))?.status?.updatedReplicas === 2 ? true : undefined,
    );
    const status = await late.kguard(['status', '-n', late.namespace]);
    expect(status.stdout).toMatch(/dead: its process \d+ on this machine has ended {2}→ {2}kguard rollback kguard-\S+/);
    // The controller's own field-owner entry moved on after the restore: the rollback ends done.
    const rollback = await late.kguard(['rollback', '-n', late.namespace]);
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(imageOf(await late.get('deployment', 'late'))).toBe('nginx:1.25');
  });
});
