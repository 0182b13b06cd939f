// kguard on real pods, by kind and by registry: healthy StatefulSet, DaemonSet and Job rollouts on
// the real node, a private image without and with pull credentials (the cluster's htpasswd
// registry) and a registry nothing answers on. See pods.test.ts for the node.
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '../free-port.js';
import type { RealSandbox } from './harness.js';
import { daemonSet, deployment, job, realPodsSandbox, SERVE, statefulSet } from './real-pods.js';

let sandbox: RealSandbox;
const apply = realPodsSandbox('real-pods-kinds', (made) => (sandbox = made));

describe('real pods: each kind rolls out on the real node', () => {
  it('a StatefulSet: exit 0, both ordinals Ready', async () => {
    const run = await apply('db', statefulSet('db', { replicas: 2, args: SERVE, readiness: true }));
    expect(run.exitCode, run.output).toBe(0);
    expect((await sandbox.get('statefulset', 'db'))?.status).toMatchObject({ readyReplicas: 2, currentReplicas: 2 });
  });

  it('a DaemonSet: exit 0, its pod Ready on the real node', async () => {
    const run = await apply('agent', daemonSet('agent', { args: SERVE, readiness: true }));
    expect(run.exitCode, run.output).toBe(0);
    expect((await sandbox.get('daemonset', 'agent'))?.status).toMatchObject({
      desiredNumberScheduled: 1,
      numberReady: 1,
    });
  });

  it('a Job: exit 0 once it completes', async () => {
    const run = await apply('once', job('once', { args: ['-print', 'migrated 3 tables', '-exit', '0'] }));
    expect(run.exitCode, run.output).toBe(0);
    expect((await sandbox.get('job', 'once'))?.status).toMatchObject({ succeeded: 1 });
  });
});

describe('real pods: registries', () => {
  it('a private image without credentials fails the rollout (exit 3); with an imagePullSecret it runs (exit 0)', async () => {
    const { host, username, password } = inject('realCluster').privateRegistry;
    const image = `${host}/kguard/testapp:1`;
    const denied = await apply('private', deployment('private', { image, args: SERVE }));
    expect(denied.exitCode, denied.output).toBe(3);
    expect(denied.output).toContain(image);
    expect(denied.output).toMatch(/401 Unauthorized|unauthorized|authorization/i);

    const secret = await sandbox.kubectl([
      'create',
      'secret',
      'docker-registry',
      'regcred',
      '-n',
      sandbox.namespace,
      `--docker-server=${host}`,
      `--docker-username=${username}`,
      `--docker-password=${password}`,
    ]);
    expect(secret.exitCode, secret.stderr).toBe(0);
    const allowed = await apply(
      'private',
      deployment('private', { image, args: SERVE, imagePullSecrets: ['regcred'] }),
    );
    expect(allowed.exitCode, allowed.output).toBe(0);
    expect(allowed.output).not.toContain(password);
  });

  it('an image from a registry nothing answers on: a transient pull error, quoted, explains the timeout (exit 5); the Deployment it created is deleted', async () => {
    const image = `127.0.0.1:${await freePort()}/team/app:1`;
    const run = await apply('nowhere', deployment('nowhere', { image, args: SERVE }), ['--timeout', '20s']);
    expect(run.exitCode, run.output).toBe(5);
    expect(run.output).toContain(
      `ImagePullBackOff: failed to do request: Head "http://${image.replace('/team/app:1', '')}/v2/team/app/manifests/1": dial tcp`,
    );
    expect(run.output).toContain('connect: connection refused');
    expect(await sandbox.get('deployment', 'nowhere')).toBeUndefined();
  });
});
