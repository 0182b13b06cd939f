// A real cluster is crowded: other writers change what kguard applied, and discovery can be
// partial. Each case drives the real bin/kguard and the real kubectl against kube-sim with the
// actor that plays the other writer (test/kube-sim/README.md, "A crowded cluster").
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentYaml, gpuDeploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox, untilWatching } from './harness.js';
import { hpaYaml } from './manifests.js';

let env: Sandbox | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

/** A Deployment as people write it when an HPA owns its size: no replicas in the manifest. */
const scaledYaml = (image: string) => deploymentYaml('web', image, { replicas: null, containerLines: '' });

const replicas = () => env!.cluster.store.get('Deployment', 'default', 'web')?.spec.replicas as number | undefined;

/** web at nginx:1.25 under an HPA that has scaled it to 2. */
async function scaledDeployment(registry: Record<string, unknown>): Promise<Sandbox> {
  env = await sandbox({ timeScale: 4, scenario: { registry, autoscaling: { syncPeriodMs: 400 } } as never });
  const first = await kubectl(env.cluster, ['apply', '-f', '-'], `${scaledYaml('nginx:1.25')}---\n${hpaYaml}`);
  expect(first.exitCode, first.stderr).toBe(0);
  await eventually(() => (replicas() === 2 ? true : undefined));
  return env;
}

describe('an HPA scaling through /scale while kguard watches', () => {
  it("is not someone else's change: a healthy rollout ends exit 0", async () => {
    const sandboxed = await scaledDeployment({ 'nginx:1.26': { pullMs: 6000 } });
    const file = await sandboxed.write('web.yaml', scaledYaml('nginx:1.26'));
    const running = sandboxed.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '90s']);
    await untilWatching(running.output);
    await kubectl(sandboxed.cluster, ['annotate', '--overwrite', 'hpa', 'web', 'sim.kguard.dev/desired-replicas=3']);
    await eventually(() => (replicas() === 3 ? true : undefined));
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(0);
    expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    expect(run.output).not.toContain('someone else changed');
  });

  it('a rollout that times out is restored, and the replicas the HPA wrote since stay', async () => {
    const sandboxed = await scaledDeployment({ 'nginx:1.26': { pullMs: 600_000 } });
    const file = await sandboxed.write('web.yaml', scaledYaml('nginx:1.26'));
    const running = sandboxed.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '6s']);
    await untilWatching(running.output);
    await kubectl(sandboxed.cluster, ['annotate', '--overwrite', 'hpa', 'web', 'sim.kguard.dev/desired-replicas=4']);
    await eventually(() => (replicas() === 4 ? true : undefined));
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(5);
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    expect(replicas()).toBe(4);
  });
});

describe('the PV binder', () => {
  it('binding a claim the apply created (volumeName, pv.kubernetes.io annotations, pvc-protection) is not a conflict: exit 0', async () => {
    env = await sandbox({ timeScale: 4 });
    const storageClass = await kubectl(
      env.cluster,
      ['apply', '-f', '-'],
      'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\nprovisioner: rancher.io/local-path\nvolumeBindingMode: Immediate\n',
    );
    expect(storageClass.exitCode, storageClass.stderr).toBe(0);
    const file = await env.write(
      'claim.yaml',
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: standard\n  resources:\n    requests:\n      storage: 1Gi\n',
    );
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    expect(run.exitCode, run.output).toBe(0);
    expect(env.cluster.store.get('PersistentVolumeClaim', 'default', 'data')?.spec.volumeName).toMatch(/^pvc-/);
  });
});

describe('partial discovery', () => {
  it('an unavailable APIService elsewhere (legacy discovery) does not stop the restore: exit 3, restored', async () => {
    env = await sandbox({
      scenario: {
        registry: { 'nginx:9.99': 'missing' },
        apiServices: ['v1beta1.external.metrics.k8s.io'],
        aggregatedDiscovery: false,
      } as never,
    });
    await env.deployHealthy('web');
    const file = await env.write(
      'web.yaml',
      (await import('../kube-sim/testing/kubectl.js')).deploymentYaml('web', 'nginx:9.99'),
    );
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(3);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe("the run's target is pinned", () => {
  it('a kubeconfig switched to another context while kguard watches does not move the restore: exit 5, restored where it applied', async () => {
    env = await sandbox({ timeScale: 4, scenario: { registry: { 'nginx:1.26': { pullMs: 600_000 } } } as never });
    await env.deployHealthy('web');
    const { readFile, writeFile } = await import('node:fs/promises');
    const kubeconfig = env.cluster.env.KUBECONFIG!;
    // A second context that leads nowhere: nothing listens on port 1.
    const original = await readFile(kubeconfig, 'utf8');
    await writeFile(
      kubeconfig,
      original
        .replace(
          'contexts:\n',
          'contexts:\n- name: elsewhere\n  context:\n    cluster: elsewhere\n    user: kguard-sim\n',
        )
        .replace('clusters:\n', 'clusters:\n- name: elsewhere\n  cluster:\n    server: http://127.0.0.1:1\n'),
    );
    const file = await env.write(
      'web.yaml',
      (await import('../kube-sim/testing/kubectl.js')).deploymentYaml('web', 'nginx:1.26'),
    );
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '5s']);
    await untilWatching(running.output);
    const switched = await kubectl(env.cluster, ['config', 'use-context', 'elsewhere']);
    expect(switched.exitCode, switched.stderr).toBe(0);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(5);
    expect(run.output).toContain('target: context kguard-sim (cluster kguard-sim, user kguard-sim, namespace default)');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('a node autoscaler', () => {
  const gpuYaml = gpuDeploymentYaml(1);

  it.each(['cluster-autoscaler', 'karpenter'] as const)(
    'bringing a node (%s) turns "no node matches" into a wait: the rollout ends healthy, exit 0',
    async (flavour) => {
      // The node joins 60 s (simulated) after the scale-up: past the 30 s a constraint is given alone.
      env = await sandbox({
        timeScale: 10,
        scenario: {
          nodeAutoscaler: {
            flavour,
            nodeGroup: 'gpu-pool',
            maxSize: 3,
            joinAfterMs: 60_000,
            nodes: [{ name: 'gpu-node-1', labels: { pool: 'gpu' } }],
          },
        } as never,
      });
      const file = await env.write('trainer.yaml', gpuYaml);
      const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '5m']);
      expect(run.exitCode, run.output).toBe(0);
    },
  );
});

describe('a write the API server stores and then answers 504', () => {
  it("is kguard's own write when it reads it back, not someone else's change: the restore ends exit 3", async () => {
    env = await sandbox({ scenario: { registry: { 'nginx:9.99': 'missing' } } as never });
    await env.deployHealthy('web');
    // The restore's PUT of the pre-apply copy lands, and the answer is a timeout (finisher.go).
    env.cluster.faults.commitThenTimeout(1, /^PUT .*\/deployments\/web\?fieldManager=kguard-restore/);
    const file = await env.write(
      'web.yaml',
      (await import('../kube-sim/testing/kubectl.js')).deploymentYaml('web', 'nginx:9.99'),
    );
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).not.toContain('someone else changed');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('a layer blob not replicated yet', () => {
  it("is waited out (a minute's grace) while the registry catches up: the rollout ends healthy, exit 0", async () => {
    env = await sandbox({
      scenario: { registry: { 'registry.example.com/shop/web:2': { blobNotFoundPulls: 1 } } } as never,
    });
    const file = await env.write(
      'web.yaml',
      (await import('../kube-sim/testing/kubectl.js')).deploymentYaml('web', 'registry.example.com/shop/web:2', {
        replicas: 1,
      }),
    );
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('could not fetch content descriptor');
  });
});

describe('the TTL-after-finished controller', () => {
  const withTtl = (yaml: string, seconds: number) =>
    yaml.replace('spec:\n', `spec:\n  ttlSecondsAfterFinished: ${seconds}\n`);

  it("deleting a Job that completed is its success, not someone else's delete: exit 0", async () => {
    env = await sandbox();
    const { jobYaml } = await import('../kube-sim/testing/kubectl.js');
    const file = await env.write('migrate.yaml', withTtl(jobYaml('migrate', 'busybox:1.36', { runSeconds: 1 }), 0));
    // Polls far apart: the Job completes and is deleted between two looks, so kguard never sees it Complete.
    const run = await env.kguard(['apply', '-f', file, '--poll', '--poll-interval', '2s']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      'job/migrate (namespace default): completed, then deleted by the TTL-after-finished controller (ttlSecondsAfterFinished: 0)',
    );
    expect(env.cluster.store.get('Job', 'default', 'migrate')).toBeUndefined();
  });

  it("a Job deleted before it completed is still someone else's delete: exit 4", async () => {
    env = await sandbox();
    const { jobYaml } = await import('../kube-sim/testing/kubectl.js');
    const file = await env.write('migrate.yaml', withTtl(jobYaml('migrate', 'busybox:1.36', { runSeconds: 600 }), 0));
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms']);
    await untilWatching(running.output);
    await kubectl(env.cluster, ['delete', 'job', 'migrate', '--wait=false']);
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toContain('deleted by someone else');
  });
});
