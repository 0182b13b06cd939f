// kguard against a real control plane: Deployments. The real kube-controller-manager rolls them
// out, the real scheduler binds the pods, kwok writes their status as the kubelet would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, imageOf, realSandbox, type RealSandbox } from './harness.js';
import { MISSING_IMAGE } from './scenario.js';

let sandbox: RealSandbox;
beforeAll(async () => {
  sandbox = await realSandbox('real-deployments');
});
afterAll(async () => {
  await sandbox?.stop();
});

const fast = ['--poll-interval', '1s'];

/** Deploys `name` at nginx:1.25 with kguard and requires exit 0. */
async function deployed(name: string, yaml = deploymentYaml(name, 'nginx:1.25')): Promise<void> {
  const file = await sandbox.write(`${name}-v1.yaml`, yaml);
  const run = await sandbox.kguard(['apply', '-f', file, '-n', sandbox.namespace, '--timeout', '60s', ...fast]);
  expect(run.exitCode, run.output).toBe(0);
}

describe('Deployments on the real control plane', () => {
  it('rolls out a healthy Deployment: exit 0, every replica ready', async () => {
    await deployed('web');
    const web = await sandbox.get('deployment', 'web');
    expect(web?.status).toMatchObject({ readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 });
  });

  it('restores an image that does not exist (ErrImagePull, ImagePullBackOff): exit 3, the old image back', async () => {
    await deployed('pull');
    const file = await sandbox.write('pull-v2.yaml', deploymentYaml('pull', MISSING_IMAGE));
    const run = await sandbox.kguard(['apply', '-f', file, '-n', sandbox.namespace, '--timeout', '60s', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/ErrImagePull|ImagePullBackOff/);
    expect(run.output).toContain(`"${MISSING_IMAGE}"`);
    expect(imageOf(await sandbox.get('deployment', 'pull'))).toBe('nginx:1.25');
    // The controller finishes the restored rollout: the old ReplicaSet's pods are ready again.
    await eventually(async () =>
      (await sandbox.get('deployment', 'pull'))?.status?.readyReplicas === 2 ? true : undefined,
    );
  });

  it('restores a crash loop (CrashLoopBackOff, exit code 1): exit 3, the old template back', async () => {
    await deployed('crash');
    const crashing = deploymentYaml('crash', 'nginx:1.26').replace(
      '    metadata:\n      labels:',
      '    metadata:\n      annotations:\n        sim.kguard.dev/exit-code: "1"\n      labels:',
    );
    const file = await sandbox.write('crash-v2.yaml', crashing);
    const run = await sandbox.kguard(['apply', '-f', file, '-n', sandbox.namespace, '--timeout', '60s', ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/CrashLoopBackOff|exit code 1|exited with 1/i);
    expect(imageOf(await sandbox.get('deployment', 'crash'))).toBe('nginx:1.25');
  });

  it('lives with a /scale write during the watch (kubectl scale, as an HPA would): exit 0, the new replica count kept', async () => {
    await deployed('scaled');
    const file = await sandbox.write('scaled-v2.yaml', deploymentYaml('scaled', 'nginx:1.26'));
    const running = sandbox.kguardProcess(['apply', '-f', file, '-n', sandbox.namespace, '--timeout', '60s', ...fast]);
    await eventually(async () =>
      imageOf(await sandbox.get('deployment', 'scaled')) === 'nginx:1.26' ? true : undefined,
    );
    const scale = await sandbox.kubectl(['scale', 'deployment/scaled', '--replicas=3', '-n', sandbox.namespace]);
    expect(scale.exitCode, scale.stderr).toBe(0);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(0);
    const scaled = await sandbox.get('deployment', 'scaled');
    expect(scaled?.spec.replicas).toBe(3);
    expect(imageOf(scaled)).toBe('nginx:1.26');
  });

  it('a paused Deployment: the apply lands, the controller makes no new ReplicaSet, and kguard names the pause', async () => {
    await deployed('paused');
    const pause = await sandbox.kubectl(['rollout', 'pause', 'deployment/paused', '-n', sandbox.namespace]);
    expect(pause.exitCode, pause.stderr).toBe(0);
    const file = await sandbox.write('paused-v2.yaml', deploymentYaml('paused', 'nginx:1.26'));
    // A paused Deployment is applied and not watched (the controller starts no rollout until it is
    // resumed): exit 0 at once, the staged change kept.
    const run = await sandbox.kguard([
      'apply',
      '-f',
      file,
      '-n',
      sandbox.namespace,
      '--timeout',
      '6s',
      '--rollback-timeout',
      '6s',
      ...fast,
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      'applied, not watched: spec.paused is true: the change is staged and rolls out once kubectl rollout resume deployment/paused',
    );
    const paused = await sandbox.get('deployment', 'paused');
    expect(paused?.spec.paused).toBe(true);
    expect(imageOf(paused)).toBe('nginx:1.26');
    // The deployment controller does not create a ReplicaSet for a paused Deployment's new template.
    const replicaSets = await sandbox.kubectl([
      'get',
      'replicasets',
      '-l',
      'app=paused',
      '-n',
      sandbox.namespace,
      '-o',
      'name',
    ]);
    expect(replicaSets.stdout.trim().split('\n')).toHaveLength(1);
  });
});
