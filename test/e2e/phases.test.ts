// Applies in phases, through the real kubectl: CRDs (and Namespaces) first, objects of their kinds
// once they are Established, kguard.dev/phase: pre objects healthy before the workloads change,
// post objects after; one journal and one restore across phases, the last phase undone first.
import { describe, expect, it } from 'vitest';
import { deploymentYaml, jobYaml, kubectl, WIDGET_CRD_YAML, widgetYaml } from '../kube-sim/testing/kubectl.js';
import { kguardJson as applyJson, type Sandbox } from './harness.js';
import { configMapYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { sandboxFor, MISSING, missingImageSandbox } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

let env: Sandbox;
sandboxFor(missingImageSandbox, (fresh) => (env = fresh));

/** The manifest with `kguard.dev/phase: PHASE` on its object (its metadata has a name and nothing else yet). */
function inPhase(yaml: string, phase: 'pre' | 'post'): string {
  return yaml.replace(
    /^metadata:\n {2}name: (\S+)\n/m,
    (line) => `${line}  annotations:\n    kguard.dev/phase: ${phase}\n`,
  );
}

function kguardJson(file: string, text: string, extra: string[] = []) {
  return applyJson(env, file, text, [...fast, ...extra]);
}

/** The lines of the log, in order, that match each pattern: proves what happened before what. */
function order(output: string, patterns: RegExp[]): number[] {
  const lines = output.split('\n');
  return patterns.map((pattern) => lines.findIndex((line) => pattern.test(line)));
}

function kguardLeftovers(): string[] {
  return env.cluster.store
    .everything()
    .filter(
      (object) => (object.kind === 'Secret' && object.metadata.name.endsWith('-journal')) || object.kind === 'Lease',
    )
    .map((object) => `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`);
}

describe('CustomResourceDefinitions first', () => {
  it('a CRD and a custom resource of it in one apply: the CRD is applied and Established, then the resource is read, applied and judged (exit 0)', async () => {
    const run = await kguardJson('widgets.yaml', `${WIDGET_CRD_YAML}---\n${widgetYaml('gear', 1)}`);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.object('CustomResourceDefinition', 'widgets.example.com')).toMatchObject({
      change: 'created',
      verdict: 'healthy',
    });
    expect(run.object('Widget', 'gear')).toMatchObject({
      phase: 'main',
      change: 'created',
      tracked: true,
      verdict: 'healthy',
    });
    expect(run.object('CustomResourceDefinition', 'widgets.example.com')?.phase).toBe('definitions');
    const [deferred, established, applied] = order(run.stderr, [
      /phase main: 1 document of kinds that a CustomResourceDefinition of this apply defines: kubectl can read them only once that CRD is Established/,
      /customresourcedefinition\/widgets\.example\.com: rolled out, Established/,
      /phase 2\/2, main .*: applying 1 object: widget\.example\.com\/gear \(namespace default\)/,
    ]);
    expect(deferred, run.stderr).toBeGreaterThanOrEqual(0);
    expect(established).toBeGreaterThan(deferred!);
    expect(applied).toBeGreaterThan(established!);
    expect(env.cluster.store.get('Widget', 'default', 'gear')?.status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'True',
    });
    expect(kguardLeftovers()).toEqual([]);
  });

  it('a custom resource that fails in phase 2 of a CRD this run created: the resource is deleted, the CRD kept and said (exit 4)', async () => {
    const run = await kguardJson(
      'widgets.yaml',
      `${WIDGET_CRD_YAML}---\n${widgetYaml('gear', 1, 'stalled', { 'sim.kguard.dev/ready-reason': 'InvalidSize' })}`,
    );
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.object('Widget', 'gear')).toMatchObject({
      verdict: 'failed',
      reason: 'InvalidSize',
      restore: { status: 'deleted' },
    });
    expect(run.object('CustomResourceDefinition', 'widgets.example.com')).toMatchObject({
      change: 'created',
      restore: {
        status: 'kept',
        reason: 'protected-kind',
        commands: [expect.stringContaining('delete customresourcedefinition.apiextensions.k8s.io/widgets.example.com')],
      },
    });
    expect(env.cluster.store.get('Widget', 'default', 'gear')).toBeUndefined();
    expect(env.cluster.store.get('CustomResourceDefinition', '', 'widgets.example.com')).toBeDefined();
  });

  it('a custom resource read before its controller first writes a status is waited for, not called healthy: its late Stalled fails it every time (exit 4)', async () => {
    const late = widgetYaml('gear', 1, 'stalled', {
      'sim.kguard.dev/ready-reason': 'InvalidSize',
      'sim.kguard.dev/reconcile-after': '20',
    });
    const run = await kguardJson(
      'widgets.yaml',
      `${WIDGET_CRD_YAML}---
${late}`,
    );
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stderr).toMatch(
      /widget\.example\.com\/gear \(namespace default\): no status yet: waiting for the Widget controller to write its first status/,
    );
    expect(run.object('Widget', 'gear')).toMatchObject({
      verdict: 'failed',
      reason: 'InvalidSize',
      restore: { status: 'deleted' },
    });
  });

  it('a custom resource whose controller never writes a status is judged by kstatus after --status-grace, and says so (exit 0)', async () => {
    const run = await kguardJson(
      'widgets.yaml',
      `${WIDGET_CRD_YAML}---
${widgetYaml('gear', 1, 'silent')}`,
      ['--status-grace', '1s'],
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.object('Widget', 'gear')).toMatchObject({
      verdict: 'healthy',
      summary: 'the Widget controller wrote no status in 1s: judged by kstatus without one',
    });
    expect(run.stderr).toContain('the Widget controller wrote no status in 1s');
    expect(env.cluster.store.get('Widget', 'default', 'gear')?.status).toBeUndefined();
  });

  it('a failure in phase 2 restores phase 1 too: a CRD that existed is put back after the resource is undone (exit 3, the cluster as before)', async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], WIDGET_CRD_YAML)).exitCode).toBe(0);
    expect(
      (await kubectl(env.cluster, ['wait', '--for=condition=established', 'crd/widgets.example.com', '--timeout=10s']))
        .exitCode,
    ).toBe(0);
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], widgetYaml('gear', 1))).exitCode).toBe(0);
    const crd2 = WIDGET_CRD_YAML.replace('shortNames: [wdg]', 'shortNames: [wdg, gadget]');
    // The harness checks that exit 3 means every object is exactly as before the run.
    const run = await kguardJson(
      'widgets-2.yaml',
      `${crd2}---\n${widgetYaml('gear', 2, 'stalled')}---\n${widgetYaml('cog', 1)}`,
    );
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.object('CustomResourceDefinition', 'widgets.example.com')).toMatchObject({
      change: 'configured',
      verdict: 'healthy',
      restore: { status: 'restored' },
    });
    expect(run.object('Widget', 'gear')).toMatchObject({
      change: 'configured',
      verdict: 'failed',
      restore: { status: 'restored' },
    });
    expect(run.object('Widget', 'cog')).toMatchObject({ change: 'created', restore: { status: 'deleted' } });
    // The last phase first: the resources are undone before their CRD is put back.
    const [cog, gear, crd] = order(run.stderr, [
      /widget\.example\.com\/cog \(namespace default\): deleted/,
      /widget\.example\.com\/gear \(namespace default\): put back/,
      /customresourcedefinition\/widgets\.example\.com: put back/,
    ]);
    expect(Math.max(cog!, gear!), run.stderr).toBeLessThan(crd!);
    expect(Math.min(cog!, gear!)).toBeGreaterThanOrEqual(0);
  });

  it('a preview dry-runs the CRD and lists the resources it cannot dry-run before the CRD exists; nothing changes', async () => {
    const before = peopleMadeObjects(env.cluster.store);
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('widgets.yaml', `${WIDGET_CRD_YAML}---\n${widgetYaml('gear', 1)}`),
      '--dry-run=server',
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('customresourcedefinition/widgets.example.com: created');
    expect(run.output).toMatch(
      /so this preview cannot dry-run them; the apply would read, dry-run and apply them once the CRDs are Established:\n\s+Widget "gear" \(\S*widgets\.yaml \(document 2\)\)/,
    );
    expect(differencesFrom(before, peopleMadeObjects(env.cluster.store))).toEqual([]);
  });
});

describe('pre and post phases', () => {
  const v1 = `${deploymentYaml('web', 'nginx:1.25')}---\n${configMapYaml('settings', { level: 'info' })}`;

  it('a pre Job that fails stops the run before the workloads change: the Job is deleted, post is never applied (exit 3)', async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], v1)).exitCode).toBe(0);
    const migrate = inPhase(jobYaml('migrate', 'nginx:1.25', { exitCode: 1, backoffLimit: 0, runSeconds: 1 }), 'pre');
    const notify = inPhase(configMapYaml('notify', { done: 'yes' }), 'post');
    const seen = env.cluster.arrivals.length;
    // The harness checks that exit 3 means every object is exactly as before the run.
    const run = await kguardJson(
      'v2.yaml',
      [deploymentYaml('web', 'nginx:1.26'), configMapYaml('settings', { level: 'debug' }), migrate, notify].join(
        '---\n',
      ),
    );
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.object('Job', 'migrate')).toMatchObject({
      phase: 'pre',
      verdict: 'failed',
      restore: { status: 'deleted' },
    });
    expect(run.object('Deployment', 'web')).toMatchObject({ change: 'unchanged' });
    expect(run.stderr).toMatch(
      /phase main \(the workloads and the rest\) was not applied \(phase pre failed\): its objects are left as they were/,
    );
    expect(run.stderr).toMatch(/phase post \(kguard\.dev\/phase: post\) was not applied/);
    // Not one write reached the Deployment or the post ConfigMap.
    const writes = env.cluster.arrivals
      .slice(seen)
      .filter((request) => /^(PATCH|PUT|POST|DELETE) /.test(request) && !/dryRun/.test(request));
    expect(
      writes.filter((request) => /deployments\/web|configmaps\/notify|configmaps\/settings/.test(request)),
    ).toEqual([]);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('a pre Job that completes: then the workloads, then post once they are healthy (exit 0)', async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], v1)).exitCode).toBe(0);
    const migrate = inPhase(jobYaml('migrate', 'nginx:1.25', { runSeconds: 1 }), 'pre');
    const notify = inPhase(configMapYaml('notify', { done: 'yes' }), 'post');
    const run = await kguardJson('v2.yaml', [notify, deploymentYaml('web', 'nginx:1.26'), migrate].join('---\n'));
    expect(run.exitCode, run.stderr).toBe(0);
    const [jobDone, webApplied, webHealthy, postApplied] = order(run.stderr, [
      /job\/migrate \(namespace default\): rolled out/,
      /phase 2\/3, main .*: applying 1 object: deployment\/web/,
      /deployment\/web \(namespace default\): rolled out/,
      /phase 3\/3, post .*: applying 1 object: configmap\/notify/,
    ]);
    expect(jobDone, run.stderr).toBeGreaterThanOrEqual(0);
    expect(webApplied).toBeGreaterThan(jobDone!);
    expect(webHealthy).toBeGreaterThan(webApplied!);
    expect(postApplied).toBeGreaterThan(webHealthy!);
    expect(env.imageOf('web')).toBe('nginx:1.26');
    expect(env.cluster.store.get('ConfigMap', 'default', 'notify')).toBeDefined();
    expect(kguardLeftovers()).toEqual([]);
  });

  it('a workload that fails after its pre Job completed: post is not applied, and the restore undoes main, then deletes the pre Job (exit 3)', async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], v1)).exitCode).toBe(0);
    const migrate = inPhase(jobYaml('migrate', 'nginx:1.25', { runSeconds: 1 }), 'pre');
    const notify = inPhase(configMapYaml('notify', { done: 'yes' }), 'post');
    const run = await kguardJson('v2.yaml', [deploymentYaml('web', MISSING), migrate, notify].join('---\n'));
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.object('ConfigMap', 'notify')).toMatchObject({ change: 'absent' });
    const [web, job] = order(run.stderr, [
      /deployment\/web \(namespace default\): put back/,
      /job\/migrate \(namespace default\): deleted/,
    ]);
    expect(web, run.stderr).toBeGreaterThanOrEqual(0);
    expect(job).toBeGreaterThan(web!);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});
