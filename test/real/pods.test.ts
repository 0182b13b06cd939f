// kguard judging real pods: the suite's real node (a kubelet built from the control plane's pins,
// Debian's containerd and runc, test/control-plane/node.ts) runs every pod here, from images built
// on this machine. What the real kubelet writes (texts, timings, logs, image IDs, probe output) is
// what kguard reads: no status here is scripted.
import { describe, expect, it } from 'vitest';
import type { KubeObject, RealSandbox } from './harness.js';
import { deployment, realPodsSandbox, SERVE, testImage } from './real-pods.js';

let sandbox: RealSandbox;
const apply = realPodsSandbox('real-pods', (made) => (sandbox = made));

/** Deploys a healthy first revision of `name` (serving, ready) and requires exit 0. */
async function healthy(name: string): Promise<void> {
  const run = await apply(name, deployment(name, { args: SERVE, readiness: true }));
  expect(run.exitCode, run.output).toBe(0);
}

interface PodList {
  items: (KubeObject & {
    spec: { nodeName?: string };
    status: {
      podIP?: string;
      containerStatuses?: {
        imageID: string;
        restartCount: number;
        ready: boolean;
        lastState?: { terminated?: { reason: string; exitCode: number } };
      }[];
    };
  })[];
}

async function pods(app: string): Promise<PodList['items']> {
  const listed = await sandbox.kubectl(['get', 'pods', '-n', sandbox.namespace, '-l', `app=${app}`, '-o', 'json']);
  expect(listed.exitCode, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as PodList).items;
}

const argsOf = (object: KubeObject | undefined) =>
  (object?.spec.template?.spec.containers[0] as { args?: string[] } | undefined)?.args;

describe('real pods on a real node (kubelet and containerd)', () => {
  it('rolls out a healthy Deployment: exit 0, pods Running and Ready on the real node, real image IDs', async () => {
    const run = await apply('web', deployment('web', { replicas: 2, args: SERVE, readiness: true }));
    expect(run.exitCode, run.output).toBe(0);
    const running = await pods('web');
    expect(running).toHaveLength(2);
    for (const pod of running) {
      expect(pod.spec.nodeName).toBe('real-node-1');
      expect(pod.status.podIP).toMatch(/^10\.\d+\.\d+\.\d+$/);
      // containerd reports the pulled manifest's digest, from the cluster's own registry.
      expect(pod.status.containerStatuses?.[0]?.imageID).toMatch(
        new RegExp(`^${testImage().replace(/:1$/, '').replace(/[.]/g, '\\.')}@sha256:[0-9a-f]{64}$`),
      );
      expect(pod.status.containerStatuses?.[0]?.ready).toBe(true);
    }
  });

  it('restores a tag that does not exist, image check off: exit 3, the real NotFound text quoted, the old image back', async () => {
    await healthy('missing');
    const run = await apply(
      'missing',
      deployment('missing', { args: SERVE, readiness: true, image: testImage('9.99') }),
      ['--image-check', 'off'],
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/ErrImagePull|ImagePullBackOff/);
    expect(run.output).toContain(`ErrImagePull: ${testImage('9.99')}: not found`);
    // The real kubelet keeps the gRPC status prefix of containerd's NotFound (its events outlive the pod).
    const events = await sandbox.kubectl(['get', 'events', '-n', sandbox.namespace, '-o', 'json']);
    const messages = (JSON.parse(events.stdout) as { items: { message: string }[] }).items.map(
      (event) => event.message,
    );
    expect(messages).toContain(
      `Failed to pull image "${testImage('9.99')}": rpc error: code = NotFound desc = failed to pull and unpack image "${testImage('9.99')}": failed to resolve reference "${testImage('9.99')}": ${testImage('9.99')}: not found`,
    );
    const restored = await sandbox.get('deployment', 'missing');
    expect(restored?.spec.template?.spec.containers[0]?.image).toBe(testImage());
  });

  it('refuses a tag that does not exist before any write, image check on: exit 1, the Deployment untouched', async () => {
    await healthy('checked');
    const before = await sandbox.get('deployment', 'checked');
    const run = await apply(
      'checked',
      deployment('checked', { args: SERVE, readiness: true, image: testImage('9.99') }),
    );
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain(testImage('9.99'));
    const after = await sandbox.get('deployment', 'checked');
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(after?.metadata.generation).toBe(before?.metadata.generation);
  });

  it("restores a crash loop: exit 3, the container's exit code and its last lines quoted from the real log", async () => {
    await healthy('crash');
    const run = await apply(
      'crash',
      // With its readiness probe: without one the kubelet reports the container Ready for the
      // moment it runs, and the rollout is complete before it first exits (as kubectl rollout status says).
      deployment('crash', {
        args: ['-print', 'connecting to db at db:5432|fatal: db:5432 refused the connection', '-exit', '3'],
        readiness: true,
      }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/CrashLoopBackOff|crash loop/);
    expect(run.output).toMatch(/exit code 3|exited with 3/);
    expect(run.output).toContain('fatal: db:5432 refused the connection');
    expect(argsOf(await sandbox.get('deployment', 'crash'))).toEqual(SERVE);
  });

  it('keeps a container that crashes once and then runs: exit 0, one restart on record', async () => {
    const run = await apply(
      'once',
      deployment('once', {
        args: ['-crash-once', '/state/crashed', ...SERVE],
        readiness: true,
        volumeMounts: [{ name: 'state', mountPath: '/state' }],
        volumes: [{ name: 'state', emptyDir: {} }],
      }),
    );
    expect(run.exitCode, run.output).toBe(0);
    const [pod] = await pods('once');
    expect(pod?.status.containerStatuses?.[0]?.restartCount).toBe(1);
    expect(pod?.status.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(1);
  });

  it('restores a container killed for memory (OOMKilled under a 24Mi limit): exit 3, the reason named', async () => {
    await healthy('oom');
    const run = await apply(
      'oom',
      deployment('oom', {
        args: ['-alloc-mib', '96', ...SERVE],
        readiness: true,
        resources: { limits: { memory: '24Mi' } },
      }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('OOMKilled');
    expect(argsOf(await sandbox.get('deployment', 'oom'))).toEqual(SERVE);
  });

  it("restores a pod whose readiness probe fails (--readiness-grace 10s): exit 3, the probe's real answer quoted", async () => {
    await healthy('unready');
    const run = await apply('unready', deployment('unready', { args: [...SERVE, '-ready-fail'], readiness: true }), [
      '--readiness-grace',
      '10s',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('HTTP probe failed with statuscode: 500');
    expect(argsOf(await sandbox.get('deployment', 'unready'))).toEqual(SERVE);
  });
});
