// kguard on real pods that fail in the ways the kubelet reports after the image is pulled: a
// liveness probe that fails, a missing ConfigMap key (CreateContainerConfigError), an init
// container that fails, a Job whose pod fails, a StatefulSet stuck on its bad revision (the
// documented forced rollback) and an emptyDir filled past its sizeLimit during --bake (the
// kubelet's eviction manager). See pods.test.ts for the node.
import { describe, expect, it } from 'vitest';
import { eventually, type KubeObject, type RealSandbox } from './harness.js';
import { deployment, job, realPodsSandbox, SERVE, statefulSet } from './real-pods.js';

let sandbox: RealSandbox;
const apply = realPodsSandbox('real-pods-failures', (made) => (sandbox = made));

async function healthy(name: string, yaml = deployment(name, { args: SERVE, readiness: true })): Promise<void> {
  const run = await apply(name, yaml);
  expect(run.exitCode, run.output).toBe(0);
}

const argsOf = (object: KubeObject | undefined) =>
  (object?.spec.template?.spec.containers[0] as { args?: string[] } | undefined)?.args;

describe('real pods that fail after the pull', () => {
  it('restores a release whose liveness probe starts failing during --bake: exit 3, the restart named', async () => {
    await healthy('alive');
    // Ready at once, then /healthz answers 500 from 3 s on: the kubelet kills and restarts it.
    const run = await apply(
      'alive',
      deployment('alive', { args: [...SERVE, '-live-fail-after', '3s'], readiness: true, liveness: true }),
      ['--bake', '40s'],
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/restart/i);
    const events = await sandbox.kubectl(['get', 'events', '-n', sandbox.namespace, '-o', 'json']);
    const messages = (JSON.parse(events.stdout) as { items: { message: string }[] }).items.map(
      (event) => event.message,
    );
    expect(messages).toContain('Liveness probe failed: HTTP probe failed with statuscode: 500');
    expect(argsOf(await sandbox.get('deployment', 'alive'))).toEqual(SERVE);
  });

  it('restores a container whose ConfigMap key is missing (CreateContainerConfigError): exit 3, the key named', async () => {
    const made = await sandbox.kubectl([
      'create',
      'configmap',
      'settings',
      '-n',
      sandbox.namespace,
      '--from-literal=mode=fast',
    ]);
    expect(made.exitCode, made.stderr).toBe(0);
    await healthy('configured');
    const run = await apply(
      'configured',
      deployment('configured', {
        args: SERVE,
        env: [{ name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } }],
      }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('CreateContainerConfigError');
    expect(run.output).toContain("couldn't find key level in ConfigMap");
  });

  it("restores a pod whose init container fails: exit 3, the init container's last lines quoted", async () => {
    await healthy('migrate');
    const run = await apply(
      'migrate',
      deployment('migrate', {
        args: SERVE,
        initContainers: [{ args: ['-print', 'migration 0042 failed: relation "users" does not exist', '-exit', '2'] }],
      }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('init-1');
    expect(run.output).toContain('migration 0042 failed: relation "users" does not exist');
  });

  it('fails a Job whose pod fails (backoffLimit 0): exit 3, the exit code and last line quoted', async () => {
    const run = await apply('report', job('report', { args: ['-print', 'report: input file missing', '-exit', '4'] }));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('report: input file missing');
  });

  it('restores a StatefulSet stuck on its bad revision and deletes the stuck pod (forced rollback): exit 3, Ready again', async () => {
    await healthy('ledger', statefulSet('ledger', { args: SERVE, readiness: true }));
    const run = await apply(
      'ledger',
      statefulSet('ledger', { args: ['-print', 'ledger: bad config', '-exit', '1'], readiness: true }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(argsOf(await sandbox.get('statefulset', 'ledger'))).toEqual(SERVE);
    await eventually(async () =>
      (await sandbox.get('statefulset', 'ledger'))?.status?.readyReplicas === 1 ? true : undefined,
    );
  });

  it('restores a release whose pod the kubelet evicts during --bake (emptyDir past its sizeLimit): exit 3', async () => {
    await healthy('cache');
    const run = await apply(
      'cache',
      deployment('cache', {
        // Exits 143 at the kubelet's SIGTERM, as a process killed by it does: the pod ends Failed,
        // reason Evicted. One that exits 0 there is the next test.
        args: [...SERVE, '-fill', '/cache/blob', '-fill-mib', '24', '-fill-after', '4s', '-term-exit', '143'],
        readiness: true,
        volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        volumes: [{ name: 'cache', emptyDir: { sizeLimit: '8Mi' } }],
      }),
      ['--bake', '60s'],
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('Usage of EmptyDir volume "cache" exceeds the limit "8Mi"');
  });

  it('restores a release whose evicted pod exits 0 at SIGTERM and ends Succeeded, the Evicted event its only trace: exit 3', async () => {
    await healthy('quiet');
    const run = await apply(
      'quiet',
      deployment('quiet', {
        // kubernetes#120182, #141483: phase Succeeded, no reason, no DisruptionTarget; the bake reads the Evicted event.
        args: [...SERVE, '-fill', '/cache/blob', '-fill-mib', '24', '-fill-after', '4s', '-term-exit', '0'],
        readiness: true,
        volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        volumes: [{ name: 'cache', emptyDir: { sizeLimit: '8Mi' } }],
      }),
      ['--bake', '60s'],
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain(
      'was evicted by the kubelet: Usage of EmptyDir volume "cache" exceeds the limit "8Mi". (its containers exited 0, so the pod shows Succeeded)',
    );
  });
});
