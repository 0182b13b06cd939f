// Health rules for custom resources, end to end through the real kubectl: an ExternalSecret the
// user told kguard not to judge (kguard.dev/health: ignore) stays Ready=False SecretSyncedError
// beside a healthy Deployment (exit 0), and is a failure without the annotation (the built-in
// rule, exit 3); an Argo Rollout is judged by status.phase, as Argo CD's health check reads it.
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { crdYaml, deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { kguardJson as applyJson, sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '30s'];

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

async function install(group: string, kind: string, plural: string): Promise<void> {
  expect((await kubectl(env.cluster, ['apply', '-f', '-'], crdYaml(group, kind, plural))).exitCode).toBe(0);
  expect(
    (await kubectl(env.cluster, ['wait', '--for=condition=established', `crd/${plural}.${group}`, '--timeout=10s']))
      .exitCode,
  ).toBe(0);
}

/** An ExternalSecret whose (simulated) controller reports Ready=False SecretSyncedError. */
function externalSecretYaml(annotations: Record<string, string>): string {
  const all = {
    'sim.kguard.dev/ready': 'false',
    'sim.kguard.dev/ready-reason': 'SecretSyncedError',
    'sim.kguard.dev/ready-message':
      'could not get secret data from provider: key "shop/db" from ExternalSecret "db-credentials"',
    ...annotations,
  };
  return `apiVersion: external-secrets.io/v1alpha1
kind: ExternalSecret
metadata:
  name: db-credentials
  annotations:
${Object.entries(all)
  .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}\n`)
  .join('')}spec:
  refreshInterval: 1h
  secretStoreRef: { kind: SecretStore, name: vault }
  target: { name: db-credentials }
  data:
  - secretKey: password
    remoteRef: { key: shop/db, property: password }
`;
}

function kguardJson(file: string, text: string) {
  return applyJson(env, file, text, fast);
}

describe('ExternalSecret (external-secrets.io rule)', () => {
  it('kguard.dev/health: ignore: it stays Ready=False while its Deployment rolls out healthy (exit 0)', async () => {
    await install('external-secrets.io', 'ExternalSecret', 'externalsecrets');
    const run = await kguardJson(
      'app.yaml',
      `${externalSecretYaml({ 'kguard.dev/health': 'ignore' })}---\n${deploymentYaml('web', 'nginx:1.25')}`,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.object('ExternalSecret', 'db-credentials')).toMatchObject({
      change: 'created',
      tracked: false,
      verdict: 'applied',
    });
    expect(run.object('Deployment', 'web')).toMatchObject({ tracked: true, verdict: 'healthy' });
    expect(env.cluster.store.get('ExternalSecret', 'default', 'db-credentials')?.status?.conditions?.[0]).toMatchObject(
      { type: 'Ready', status: 'False', reason: 'SecretSyncedError' },
    );
  });

  it('without the annotation, Ready=False SecretSyncedError for its generation fails it and the apply is undone (exit 3)', async () => {
    await install('external-secrets.io', 'ExternalSecret', 'externalsecrets');
    const run = await kguardJson('app.yaml', `${externalSecretYaml({})}---\n${deploymentYaml('web', 'nginx:1.25')}`);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.object('ExternalSecret', 'db-credentials')).toMatchObject({
      verdict: 'failed',
      reason: 'SecretSyncedError',
      restore: { status: 'deleted' },
    });
    expect(env.cluster.store.get('ExternalSecret', 'default', 'db-credentials')).toBeUndefined();
  });
});

describe('Argo Rollout (argoproj.io rule: status.phase)', () => {
  /** Stands in for the Argo Rollouts controller: writes status.phase (and message) on every Rollout it sees without one. */
  function rolloutController(phase: string, message: string): () => void {
    return env.cluster.store.subscribe(({ type, object }) => {
      if (type === 'DELETED' || object.kind !== 'Rollout' || object.status?.phase !== undefined) return;
      setTimeout(() => {
        const live = env.cluster.store.get('Rollout', object.metadata.namespace ?? '', object.metadata.name);
        if (!live || live.status?.phase !== undefined) return;
        const generation = String(live.metadata.generation ?? 1);
        env.cluster.store.updateStatus({
          ...live,
          metadata: { ...live.metadata, resourceVersion: undefined },
          status: { ...(live.status ?? {}), phase, message, observedGeneration: generation },
        });
      }, 200);
    });
  }

  const rolloutYaml = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: canary-demo
spec:
  replicas: 2
  selector: { matchLabels: { app: canary-demo } }
  strategy: { canary: { steps: [ { setWeight: 50 }, { pause: { duration: 10 } } ] } }
  template:
    metadata: { labels: { app: canary-demo } }
    spec: { containers: [ { name: canary-demo, image: argoproj/rollouts-demo:yellow } ] }
`;

  it('phase Healthy: rolled out (exit 0)', async () => {
    await install('argoproj.io', 'Rollout', 'rollouts');
    const stop = rolloutController('Healthy', '');
    try {
      const run = await kguardJson('rollout.yaml', rolloutYaml);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.object('Rollout', 'canary-demo')).toMatchObject({ tracked: true, verdict: 'healthy' });
    } finally {
      stop();
    }
  });

  it('phase Degraded: failed with its message though its Ready condition is True (kstatus alone would pass it), and undone (exit 3)', async () => {
    await install('argoproj.io', 'Rollout', 'rollouts');
    const stop = rolloutController(
      'Degraded',
      'RolloutAborted: Rollout aborted update to revision 1: Metric "success-rate" assessed Failed due to failed (3) > failureLimit (2)',
    );
    try {
      const run = await kguardJson('rollout.yaml', rolloutYaml);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.object('Rollout', 'canary-demo')).toMatchObject({
        verdict: 'failed',
        reason: 'Degraded',
        restore: { status: 'deleted' },
      });
      expect(run.stderr).toContain('assessed Failed due to failed (3) > failureLimit (2)');
    } finally {
      stop();
    }
  });
});

describe('--health-rules FILE', () => {
  it('a file that does not follow the schema is refused before anything is applied (exit 1, naming the problem)', async () => {
    const rules = await env.write(
      'rules.yaml',
      'rules:\n  - id: external-secrets.io/ExternalSecret\n    match: [{ group: external-secrets.io, kind: ExternalSecret }]\n    healthy: [{ condition: Ready, staus: "True" }]\n',
    );
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('app.yaml', deploymentYaml('web', 'nginx:1.25')),
      ...fast,
      '--health-rules',
      rules,
    ]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain(
      'does not follow schema/health-rules.schema.json: /rules/0/healthy/0 has an unknown field "staus"',
    );
    expect(env.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
  });

  it('a rule of the same id replaces the built-in one: an ExternalSecret healthy once Ready is written at all (exit 0)', async () => {
    await install('external-secrets.io', 'ExternalSecret', 'externalsecrets');
    const rules = await env.write(
      'rules.json',
      JSON.stringify({
        rules: [
          {
            id: 'external-secrets.io/ExternalSecret',
            match: [{ group: 'external-secrets.io', kind: 'ExternalSecret' }],
            healthy: [{ condition: 'Ready' }],
          },
        ],
      }),
    );
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('app.yaml', externalSecretYaml({})),
      ...fast,
      '-o',
      'json',
      '--health-rules',
      rules,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.objects.find((object) => object.kind === 'ExternalSecret')).toMatchObject({
      tracked: true,
      verdict: 'healthy',
    });
  });
});
