// kguard apply end to end for every kind of workload: bin/kguard → real kubectl → simulated
// cluster with its statefulset, daemonset and job controllers. Verdicts are read from the
// --output json report; the cluster is checked through the simulator's store.
import { beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonReport } from '../../src/report/json.js';
import {
  daemonSetYaml,
  deploymentYaml,
  jobYaml,
  kubectl,
  statefulSetYaml,
  WIDGET_CRD_YAML,
  widgetYaml,
} from '../kube-sim/testing/kubectl.js';
import type { KubeObject } from '../kube-sim/types.js';
import type { KguardRun, Sandbox } from './harness.js';
import { waitFor } from '../kube-sim/controllers/harness.js';
import { sandboxFor, MISSING, missingImageSandbox } from './run-fixtures.js';

const GOOD = 'nginx:1.25';
const BETTER = 'nginx:1.26';
const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

let env: Sandbox;
sandboxFor(missingImageSandbox, (fresh) => (env = fresh));

interface Run extends KguardRun {
  report: JsonReport;
  object(kind: string, name: string): JsonObject;
}

async function kguard(file: string, yaml: string, extra: string[] = []): Promise<Run> {
  const run = await env.kguard(['apply', '-f', await env.write(file, yaml), ...fast, '--output', 'json', ...extra]);
  const report = JSON.parse(run.stdout) as JsonReport;
  return {
    ...run,
    report,
    object(kind, name) {
      const found = report.objects.find((object) => object.kind === kind && object.name === name);
      if (!found) throw new Error(`${kind}/${name} is not in the report:\n${run.output}`);
      return found;
    },
  };
}

/** Applies and requires a healthy end (exit 0). */
async function applyHealthy(file: string, yaml: string): Promise<Run> {
  const run = await kguard(file, yaml);
  if (run.exitCode !== 0) throw new Error(`${file} did not roll out (exit ${run.exitCode}):\n${run.output}`);
  return run;
}

const get = (kind: string, name: string): KubeObject | undefined => env.cluster.store.get(kind, 'default', name);
const pods = (selector: string) => env.cluster.store.list('Pod', 'default', selector);
const imageOf = (pod: KubeObject) => pod.spec.containers[0].image as string;

/** Polls the simulator (not the clock) every 50 ms until `probe` holds. */
const until = <T>(what: string, probe: () => T | undefined | false, timeoutMs = 20_000) =>
  waitFor(what, probe, timeoutMs, 50);

describe('kguard apply: StatefulSets', () => {
  it('a healthy rollout: exit 0, every pod at the new revision', async () => {
    await applyHealthy('db.yaml', statefulSetYaml('db', GOOD));
    const run = await applyHealthy('db-2.yaml', statefulSetYaml('db', BETTER));
    expect(run.object('StatefulSet', 'db')).toMatchObject({ change: 'configured', tracked: true, verdict: 'healthy' });
    expect(run.stderr).toContain(
      'statefulset/db (namespace default): watching the new rollout (changed by this apply)',
    );
    expect(pods('app=db').map(imageOf)).toEqual([BETTER, BETTER, BETTER]);
  });

  it('a bad image: the new revision pod fails it, the template is put back, the stuck pod deleted, exit 3', async () => {
    await applyHealthy('db.yaml', statefulSetYaml('db', GOOD));
    const goodRevision = get('StatefulSet', 'db')!.status.currentRevision as string;
    const run = await kguard('db-bad.yaml', statefulSetYaml('db', MISSING));
    expect(run.exitCode, run.output).toBe(3);
    const db = run.object('StatefulSet', 'db');
    expect(db).toMatchObject({ verdict: 'failed', category: 'image-pull' });
    expect(db.reason).toMatch(/^(ImagePullBackOff|ErrImagePull)$/);
    expect(db.pods.map((pod) => pod.pod)).toEqual(['db-2']);
    expect(db.restore).toMatchObject({ status: 'restored', healthyAfterRestore: true });
    expect(db.restore?.notes).toEqual([
      expect.stringMatching(
        /^deleted pod db-2 \(failed revision db-\w+, not Ready\) so the controller recreates it from the restored template$/,
      ),
    ]);
    expect(get('StatefulSet', 'db')!.spec.template.spec.containers[0].image).toBe(GOOD);
    expect(pods('app=db').map((pod) => pod.metadata.labels?.['controller-revision-hash'])).toEqual([
      goodRevision,
      goodRevision,
      goodRevision,
    ]);
    expect(pods('app=db').map(imageOf)).toEqual([GOOD, GOOD, GOOD]);
  });

  it('unchanged but failing: not watched, not touched, exit 0', async () => {
    // Someone broke it earlier, without kguard; this apply changes only a ConfigMap beside it.
    expect(
      (await kubectl(env.cluster, ['apply', '-f', '-'], statefulSetYaml('db', MISSING, { replicas: 1 }))).exitCode,
    ).toBe(0);
    await until(
      'db-0 failing to pull',
      () => pods('app=db')[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff',
    );
    const config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db-config\ndata:\n  mode: primary\n';
    const run = await kguard('both.yaml', `${statefulSetYaml('db', MISSING, { replicas: 1 })}---\n${config}`);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.object('StatefulSet', 'db')).toMatchObject({
      change: 'unchanged',
      tracked: false,
      verdict: 'unchanged',
      restore: null,
    });
    expect(run.object('ConfigMap', 'db-config')).toMatchObject({ change: 'created', verdict: 'applied' });
    expect(pods('app=db').map(imageOf)).toEqual([MISSING]);
  });

  it('partitioned: only the ordinals at or above the partition roll, and that is done', async () => {
    await applyHealthy('db.yaml', statefulSetYaml('db', GOOD, { partition: 2 }));
    const run = await applyHealthy('db-2.yaml', statefulSetYaml('db', BETTER, { partition: 2 }));
    expect(run.object('StatefulSet', 'db').verdict).toBe('healthy');
    expect(pods('app=db').map(imageOf)).toEqual([GOOD, GOOD, BETTER]);
  });

  it('OnDelete: applied, nothing rolls, nothing watched', async () => {
    await applyHealthy('db.yaml', statefulSetYaml('db', GOOD, { strategy: 'OnDelete', replicas: 2 }));
    // An OnDelete StatefulSet is not watched even when created: db-1 comes only once db-0 is Ready
    // (OrderedReady), and a pod created after the next apply takes that apply's template, as the
    // StatefulSet controller does. The first template's two pods exist before the second apply.
    await until('db-0 and db-1 of the first template', () => pods('app=db').length === 2);
    const run = await applyHealthy('db-2.yaml', statefulSetYaml('db', MISSING, { strategy: 'OnDelete', replicas: 2 }));
    expect(run.object('StatefulSet', 'db')).toMatchObject({ change: 'configured', tracked: false, verdict: 'applied' });
    expect(run.object('StatefulSet', 'db').summary).toContain(
      'updateStrategy OnDelete: nothing rolls out until its pods are deleted',
    );
    expect(run.stderr).toContain('statefulset/db (namespace default): applied, not watched: updateStrategy OnDelete');
    expect(pods('app=db').map(imageOf)).toEqual([GOOD, GOOD]);
  });
});

describe('kguard apply: DaemonSets', () => {
  it('a healthy rollout: exit 0, a new pod on every node', async () => {
    await applyHealthy('agent.yaml', daemonSetYaml('agent', GOOD));
    const run = await applyHealthy('agent-2.yaml', daemonSetYaml('agent', BETTER));
    expect(run.object('DaemonSet', 'agent')).toMatchObject({ change: 'configured', tracked: true, verdict: 'healthy' });
    expect(pods('app=agent').map(imageOf)).toEqual([BETTER, BETTER, BETTER]);
  });

  it('a bad image: the new pod fails it, the template is put back and every node runs the old one, exit 3', async () => {
    await applyHealthy('agent.yaml', daemonSetYaml('agent', GOOD));
    const run = await kguard('agent-bad.yaml', daemonSetYaml('agent', MISSING));
    expect(run.exitCode, run.output).toBe(3);
    const agent = run.object('DaemonSet', 'agent');
    expect(agent).toMatchObject({
      verdict: 'failed',
      category: 'image-pull',
      restore: { status: 'restored', healthyAfterRestore: true, differences: [] },
    });
    expect(agent.pods).toHaveLength(1);
    await until(
      'every node on the old image',
      () =>
        pods('app=agent')
          .filter((pod) => !pod.metadata.deletionTimestamp)
          .map(imageOf)
          .join() === [GOOD, GOOD, GOOD].join(),
    );
  });

  it('unchanged, its rollout unfinished and failing, nothing else in the apply: judged as its rollout (exit 3), nothing written', async () => {
    // A CI retry of a killed run without a journal meets exactly this: the apply changes nothing,
    // the rollout it left is stuck (#29: an unchanged apply still judges what is not settled).
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], daemonSetYaml('agent', MISSING))).exitCode).toBe(0);
    await until('a pod failing to pull', () =>
      pods('app=agent').some(
        (pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff',
      ),
    );
    const before = env.cluster.store.get('DaemonSet', 'default', 'agent')?.metadata.resourceVersion;
    const run = await kguard('agent.yaml', daemonSetYaml('agent', MISSING));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.object('DaemonSet', 'agent')).toMatchObject({
      change: 'unchanged',
      tracked: true,
      verdict: 'failed',
      category: 'image-pull',
      // One pod per node, each cycling as the kubelet does (ErrImagePull at each pull, then
      // ImagePullBackOff while it waits: kubelet images/image_manager.go): the pod the verdict
      // names may be at either moment.
      reason: expect.stringMatching(/^(ErrImagePull|ImagePullBackOff)$/),
      restore: null,
    });
    expect(env.cluster.store.get('DaemonSet', 'default', 'agent')?.metadata.resourceVersion).toBe(before);
  });

  it('OnDelete: applied, nothing rolls, nothing watched', async () => {
    await applyHealthy('agent.yaml', daemonSetYaml('agent', GOOD, { strategy: 'OnDelete' }));
    const run = await applyHealthy('agent-2.yaml', daemonSetYaml('agent', MISSING, { strategy: 'OnDelete' }));
    expect(run.object('DaemonSet', 'agent')).toMatchObject({ tracked: false, verdict: 'applied' });
    expect(pods('app=agent').map(imageOf)).toEqual([GOOD, GOOD, GOOD]);
  });
});

describe('kguard apply: Jobs', () => {
  it('a Job that succeeds: exit 0 once it is Complete', async () => {
    const run = await applyHealthy('job.yaml', jobYaml('migrate', GOOD));
    expect(run.object('Job', 'migrate')).toMatchObject({ change: 'created', tracked: true, verdict: 'healthy' });
    expect((get('Job', 'migrate')!.status.conditions as { type: string }[]).map((c) => c.type)).toEqual([
      'SuccessCriteriaMet',
      'Complete',
    ]);
  });

  it('a failing Job: BackoffLimitExceeded fails it, the Job it created is deleted, exit 3', async () => {
    const run = await kguard('job.yaml', jobYaml('migrate', GOOD, { exitCode: 1, runSeconds: 1, backoffLimit: 1 }));
    expect(run.exitCode, run.output).toBe(3);
    const job = run.object('Job', 'migrate');
    expect(job).toMatchObject({ verdict: 'failed', reason: 'BackoffLimitExceeded', category: 'stalled' });
    expect(job.summary).toBe(
      'the rollout cannot complete: its pods failed more often than backoffLimit allows: BackoffLimitExceeded (Job has reached the specified backoff limit)',
    );
    expect(job.evidence[0]).toMatch(/^(pod migrate-\S+|\d+ pods),? container migrate: Error: exited with code 1/);
    expect(job.restore).toMatchObject({ status: 'deleted' });
    await until('the Job and its pods gone', () => !get('Job', 'migrate') && pods('job-name=migrate').length === 0);
  });

  it('a Job whose image does not exist fails at the pull, exit 3', async () => {
    const run = await kguard('job.yaml', jobYaml('migrate', MISSING));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.object('Job', 'migrate')).toMatchObject({ verdict: 'failed', category: 'image-pull' });
  });

  it('an unchanged failed Job is untouched, exit 0', async () => {
    expect(
      (
        await kubectl(
          env.cluster,
          ['apply', '-f', '-'],
          jobYaml('migrate', GOOD, { exitCode: 1, runSeconds: 1, backoffLimit: 0 }),
        )
      ).exitCode,
    ).toBe(0);
    await until('the Job failed', () =>
      (get('Job', 'migrate')?.status?.conditions as { type: string }[] | undefined)?.some((c) => c.type === 'Failed'),
    );
    const run = await kguard('job.yaml', jobYaml('migrate', GOOD, { exitCode: 1, runSeconds: 1, backoffLimit: 0 }));
    expect(run.exitCode, run.output).toBe(0);
    expect(run.object('Job', 'migrate')).toMatchObject({ change: 'unchanged', tracked: false });
    expect(get('Job', 'migrate')).toBeDefined();
  });
});

describe('kguard apply: bare Pods', () => {
  const podYaml = (image: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: tool\n  labels:\n    app: tool\nspec:\n  containers:\n  - name: tool\n    image: ${image}\n`;

  it('a Pod is done when Ready, exit 0', async () => {
    const run = await applyHealthy('pod.yaml', podYaml(GOOD));
    expect(run.object('Pod', 'tool')).toMatchObject({ tracked: true, verdict: 'healthy' });
  });

  it('a Pod that cannot pull its image is deleted (this apply created it), exit 3', async () => {
    const run = await kguard('pod.yaml', podYaml(MISSING));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.object('Pod', 'tool')).toMatchObject({
      verdict: 'failed',
      category: 'image-pull',
      restore: { status: 'deleted' },
    });
  });
});

describe('kguard apply: custom resources (kstatus conventions)', () => {
  beforeEach(async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], WIDGET_CRD_YAML)).exitCode).toBe(0);
    expect(
      (await kubectl(env.cluster, ['wait', '--for=condition=established', 'crd/widgets.example.com', '--timeout=10s']))
        .exitCode,
    ).toBe(0);
    await applyHealthy('gear.yaml', widgetYaml('gear', 1));
  });

  it('a new generation its controller reports Ready: exit 0', async () => {
    const run = await applyHealthy('gear-2.yaml', widgetYaml('gear', 2));
    expect(run.object('Widget', 'gear')).toMatchObject({ change: 'configured', tracked: true, verdict: 'healthy' });
  });

  it('Ready goes False: waited for until its own deadline (kguard.dev/timeout), then restored, exit 5', async () => {
    const run = await kguard('gear-2.yaml', widgetYaml('gear', 2, 'false', { 'kguard.dev/timeout': '3s' }));
    expect(run.exitCode, run.output).toBe(5);
    const gear = run.object('Widget', 'gear');
    expect(gear).toMatchObject({ verdict: 'timed-out', restore: { status: 'restored', healthyAfterRestore: true } });
    expect(gear.summary).toContain(
      'waiting for Ready to be True (it is False: ReconcileFailed: the simulated controller cannot reconcile generation 2)',
    );
    const restored = get('Widget', 'gear')!;
    expect(restored.spec).toEqual({ size: 1 });
    expect(restored.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'True' });
  });

  it('Stalled: failed at once, restored, exit 3', async () => {
    const run = await kguard(
      'gear-2.yaml',
      widgetYaml('gear', 2, 'stalled', { 'sim.kguard.dev/ready-reason': 'InvalidSize' }),
    );
    expect(run.exitCode, run.output).toBe(3);
    expect(run.object('Widget', 'gear')).toMatchObject({
      verdict: 'failed',
      reason: 'InvalidSize',
      category: 'stalled',
      restore: { status: 'restored' },
    });
  });
});

describe('kguard apply: one apply of many kinds', () => {
  const configMap = (mode: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-config\ndata:\n  mode: ${mode}\n`;
  const v1 = [
    deploymentYaml('web', GOOD),
    statefulSetYaml('db', GOOD),
    daemonSetYaml('agent', GOOD),
    configMap('one'),
  ].join('---\n');
  const v2 = (dbImage: string) =>
    [
      deploymentYaml('web', BETTER),
      statefulSetYaml('db', dbImage),
      daemonSetYaml('agent', BETTER),
      jobYaml('migrate', GOOD, { runSeconds: 1 }),
      configMap('two'),
    ].join('---\n');

  it('all healthy: exit 0, every kind judged by its own rule', async () => {
    await applyHealthy('v1.yaml', v1);
    const run = await applyHealthy('v2.yaml', v2(BETTER));
    expect(run.report.objects.map((object) => `${object.kind}/${object.name}: ${object.verdict}`)).toEqual([
      'Deployment/web: healthy',
      'StatefulSet/db: healthy',
      'DaemonSet/agent: healthy',
      'Job/migrate: healthy',
      'ConfigMap/shop-config: applied',
    ]);
  });

  it('one bad image restores the whole apply: every changed object back, created ones deleted, exit 3', async () => {
    await applyHealthy('v1.yaml', v1);
    const run = await kguard('v2.yaml', v2(MISSING));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.object('StatefulSet', 'db')).toMatchObject({
      verdict: 'failed',
      restore: { status: 'restored', healthyAfterRestore: true },
    });
    for (const kind of ['Deployment', 'DaemonSet'])
      expect(run.object(kind, kind === 'Deployment' ? 'web' : 'agent').restore).toMatchObject({
        status: 'restored',
        healthyAfterRestore: true,
      });
    expect(run.object('ConfigMap', 'shop-config')).toMatchObject({
      change: 'configured',
      restore: { status: 'restored' },
    });
    expect(run.object('Job', 'migrate').restore?.status).toBe('deleted');
    expect(get('ConfigMap', 'shop-config')!['data']).toEqual({ mode: 'one' });
    expect(get('StatefulSet', 'db')!.spec.template.spec.containers[0].image).toBe(GOOD);
    expect(get('DaemonSet', 'agent')!.spec.template.spec.containers[0].image).toBe(GOOD);
    expect(get('Deployment', 'web')!.spec.template.spec.containers[0].image).toBe(GOOD);
    await until('the Job gone', () => !get('Job', 'migrate'));
  });
});
