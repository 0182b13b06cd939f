// Judge pods the way their controllers count them (issue #28). Each case drives the real
// bin/kguard and the real kubectl against kube-sim, whose kubelet ends one pod the way a real node
// does (test/kube-sim/controllers/kubelet/node-ends.ts): the ReplicaSet replaces it, the ended pod
// stays, and `kubectl rollout status` calls the rollout done.
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { hpaYaml } from './manifests.js';

let env: Sandbox | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

/**
 * web at `image`, 3 replicas whose readiness probe passes 20 simulated seconds after the start, so
 * the node ends one new pod while the rollout still runs; `annotations` ask the kubelet for it.
 */
function webYaml(image: string, annotations: Record<string, string> = {}, extra = ''): string {
  return deploymentYaml('web', image, {
    replicas: 3,
    spec: extra,
    annotations: {
      'sim.kguard.dev/readiness-delay-seconds': '20',
      'sim.kguard.dev/run-seconds': '1',
      ...annotations,
    },
    containerLines: `        ports:
        - containerPort: 80
        readinessProbe:
          httpGet:
            path: /
            port: 80
          periodSeconds: 2
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
`,
  });
}

const podsOf = (sandboxed: Sandbox) => sandboxed.cluster.store.list('Pod', 'default');

async function webAt(sandboxed: Sandbox, image: string, annotations: Record<string, string> = {}): Promise<void> {
  const applied = await kubectl(sandboxed.cluster, ['apply', '-f', '-'], webYaml(image, annotations));
  expect(applied.exitCode, applied.stderr).toBe(0);
  await eventually(() => {
    const ready = podsOf(sandboxed).filter((pod) =>
      pod.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length === 3 ? true : undefined;
  }, 60_000);
}

describe('a new pod its node ends while the rollout runs, replaced by its ReplicaSet', () => {
  it.concurrent.each([
    [
      'evicted under node memory pressure',
      { 'sim.kguard.dev/node-pressure-eviction': 'memory' },
      'Evicted',
      /pod web-[a-z0-9]+-[a-z0-9]+ was evicted by its node \(memory pressure\); its replacement counts/,
    ],
    [
      'rejected by the kubelet at admission (OutOfcpu)',
      { 'sim.kguard.dev/admission-reject': 'OutOfcpu' },
      'OutOfcpu',
      /pod web-[a-z0-9]+-[a-z0-9]+ was rejected by the kubelet of node [a-z0-9-]+ \(OutOfcpu: Node didn't have enough resource: cpu/,
    ],
    [
      'ended by a graceful node shutdown',
      { 'sim.kguard.dev/node-shutdown': 'true' },
      'Terminated',
      /pod web-[a-z0-9]+-[a-z0-9]+ was ended by the graceful shutdown of its node; its replacement counts/,
    ],
  ])('%s: healthy, exit 0, the ended pod a note', async (_name, annotations, reason, note) => {
    const sandboxed = await sandbox();
    try {
      await webAt(sandboxed, 'nginx:1.25');
      const file = await sandboxed.write('web.yaml', webYaml('nginx:1.26', annotations));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--output', 'json']);
      // The node did end one new pod, and it is still there (pod GC leaves it).
      expect(podsOf(sandboxed).filter((pod) => pod.status?.reason === reason)).toHaveLength(1);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(note);
      expect(run.stderr).not.toContain('the controller still counts it');
      const report = JSON.parse(run.stdout) as { objects: Array<{ kind: string; notes: string[] }> };
      expect(report.objects.find((object) => object.kind === 'Deployment')?.notes).toEqual([
        expect.stringMatching(note),
      ]);
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    } finally {
      await sandboxed.stop();
    }
  });
});

describe('the restore judged by the same rule', () => {
  it('a failed apply restored to a ReplicaSet that kept an evicted pod is healthy again: exit 3, not 4', async () => {
    env = await sandbox({ scenario: { registry: { 'nginx:9.99': 'missing' } } as never });
    const evicting = { 'sim.kguard.dev/node-pressure-eviction': 'memory' };
    await webAt(env, 'nginx:1.25', evicting);
    await eventually(() => (podsOf(env!).some((pod) => pod.status?.reason === 'Evicted') ? true : undefined), 60_000);
    const file = await env.write('web.yaml', webYaml('nginx:9.99', evicting));
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/restored and healthy again/);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('--bake and a node that evicts a pod under pressure', () => {
  it('keeps a good release: the eviction is the node’s trouble, not a breach (exit 0)', async () => {
    env = await sandbox();
    await webAt(env, 'nginx:1.25');
    // No readiness delay: ready at once; the node evicts one pod 10 s after run-seconds (5 s of wall time).
    const yaml = webYaml('nginx:1.26', { 'sim.kguard.dev/node-pressure-eviction': 'memory' })
      .replace('sim.kguard.dev/readiness-delay-seconds: "20"', 'sim.kguard.dev/readiness-delay-seconds: "0"')
      .replace('sim.kguard.dev/run-seconds: "1"', 'sim.kguard.dev/run-seconds: "40"');
    const file = await env.write('web.yaml', yaml);
    const run = await env.kguard(['apply', '-f', file, ...fast, '--bake', '12s']);
    expect(podsOf(env).filter((pod) => pod.status?.reason === 'Evicted')).toHaveLength(1);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(/baked for/);
  });
});

describe('a paused Deployment', () => {
  it('is applied with nothing to watch, and says how to start it: exit 0, the staged change kept', async () => {
    env = await sandbox();
    await webAt(env, 'nginx:1.25');
    const file = await env.write('web.yaml', webYaml('nginx:1.26', {}, '  paused: true\n'));
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      'spec.paused is true: the change is staged and rolls out once kubectl rollout resume deployment/web',
    );
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });
});

/** web under an HPA (manifests.ts hpaYaml), with a manifest that still sets replicas (3); the HPA wants 2. */

describe('an HPA owns spec.replicas, and the manifest still sets replicas', () => {
  const replicas = () => env!.cluster.store.get('Deployment', 'default', 'web')?.spec.replicas as number | undefined;
  async function scaled(registry: Record<string, unknown>): Promise<Sandbox> {
    env = await sandbox({ timeScale: 4, scenario: { registry, autoscaling: { syncPeriodMs: 400 } } as never });
    const first = await kubectl(env.cluster, ['apply', '-f', '-'], `${webYaml('nginx:1.25')}---\n${hpaYaml}`);
    expect(first.exitCode, first.stderr).toBe(0);
    await eventually(() => (replicas() === 2 ? true : undefined), 60_000);
    return env;
  }

  it('a healthy rollout is exit 0, and the autoscaler’s replicas are said once', async () => {
    const sandboxed = await scaled({});
    const file = await sandboxed.write('web.yaml', webYaml('nginx:1.26'));
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--timeout', '90s']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain('someone else changed');
    expect(run.output.match(/spec\.replicas is written by an autoscaler through \/scale/g)).toHaveLength(1);
    expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
  });

  it('a failing rollout is restored: exit 3, the image back, the HPA’s count kept', async () => {
    const sandboxed = await scaled({ 'nginx:9.99': 'missing' });
    const file = await sandboxed.write('web.yaml', webYaml('nginx:9.99'));
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast], { checkRestore: false });
    expect(run.exitCode, run.output).toBe(3);
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    await eventually(() => (replicas() === 2 ? true : undefined));
  });
});
