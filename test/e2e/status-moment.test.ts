// Judging each object against the right moment (issue #36), end to end through the real kubectl:
// a custom resource's status counts for kguard's write only once written for it (the simulated
// controller answers every new generation 0.5 s after the write, with and without
// observedGeneration); a restore is judged against the state before the apply; a Service that
// selected nothing before the apply does not undo a healthy release.
import { describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, kguardJson as applyJson, sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

// --time-scale 10: "5" simulated seconds is the controller's 0.5 s answer.
const ANSWER_AFTER = '5';
const fast = ['--poll-interval', '200ms', '--timeout', '30s'];

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

async function installExternalSecrets(): Promise<void> {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: externalsecrets.external-secrets.io
spec:
  group: external-secrets.io
  scope: Namespaced
  names: { kind: ExternalSecret, listKind: ExternalSecretList, plural: externalsecrets, singular: externalsecret }
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources: { status: {} }
    schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
  expect((await kubectl(env.cluster, ['apply', '-f', '-'], crd)).exitCode).toBe(0);
  expect(
    (
      await kubectl(env.cluster, [
        'wait',
        '--for=condition=established',
        'crd/externalsecrets.external-secrets.io',
        '--timeout=10s',
      ])
    ).exitCode,
  ).toBe(0);
}

// External Secrets Operator's Ready condition, as Argo CD's health tests show it
// (resource_customizations/external-secrets.io/ExternalSecret/testdata/healthy.yaml, degraded.yaml).
const SYNCED = {
  conditions: [{ type: 'Ready', status: 'True', reason: 'SecretSynced', message: 'Secret was synced' }],
};
const SYNC_ERROR = {
  conditions: [
    {
      type: 'Ready',
      status: 'False',
      reason: 'SecretSyncedError',
      message: 'could not get secret data from provider: key "shop/db-v2" from ExternalSecret "db-credentials"',
    },
  ],
};

/** An ExternalSecret whose simulated controller answers with `status` 0.5 s after each new generation. */
function externalSecretYaml(key: string, status: unknown, observedGeneration: boolean): string {
  return `apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: db-credentials
  annotations:
    sim.kguard.dev/answer-after: "${ANSWER_AFTER}"
    sim.kguard.dev/observed-generation: "${observedGeneration}"
    sim.kguard.dev/status: '${JSON.stringify(status)}'
spec:
  refreshInterval: 1h
  secretStoreRef: { kind: SecretStore, name: vault }
  target: { name: db-credentials }
  data:
  - secretKey: password
    remoteRef: { key: ${key}, property: password }
`;
}

/** The first version, applied and answered (Ready True) before kguard runs. */
async function reconciledExternalSecret(observedGeneration: boolean): Promise<void> {
  await installExternalSecrets();
  const first = externalSecretYaml('shop/db', SYNCED, observedGeneration);
  expect((await kubectl(env.cluster, ['apply', '-f', '-'], first)).exitCode).toBe(0);
  await eventually(() => env.cluster.store.get('ExternalSecret', 'default', 'db-credentials')?.status?.conditions);
}

function kguardJson(file: string, text: string, extra: string[] = []) {
  return applyJson(env, file, text, [...fast, ...extra]);
}

describe('a custom resource is judged by the status written for kguard’s write', () => {
  for (const observedGeneration of [false, true]) {
    const how = observedGeneration ? 'with observedGeneration' : 'without observedGeneration';

    it(`${how}: a change its controller answers with SecretSyncedError 0.5 s later fails and is restored healthy (exit 3)`, async () => {
      await reconciledExternalSecret(observedGeneration);
      const run = await kguardJson('secret.yaml', externalSecretYaml('shop/db-v2', SYNC_ERROR, observedGeneration));
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.object('ExternalSecret', 'db-credentials')).toMatchObject({
        verdict: 'failed',
        reason: 'SecretSyncedError',
        restore: { status: 'restored', healthyAfterRestore: true },
      });
      expect(run.stderr).not.toContain('ROLLBACK FAILED');
    });

    it(`${how}: a new one its controller answers with SecretSyncedError 0.5 s later fails and is deleted (exit 3)`, async () => {
      await installExternalSecrets();
      const run = await kguardJson('secret.yaml', externalSecretYaml('shop/db-v2', SYNC_ERROR, observedGeneration));
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.object('ExternalSecret', 'db-credentials')).toMatchObject({
        verdict: 'failed',
        restore: { status: 'deleted' },
      });
    });
  }

  it('without observedGeneration, a change its controller answers with the same status is judged on the standing one after --status-grace, and says so (exit 0)', async () => {
    await reconciledExternalSecret(false);
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('secret.yaml', externalSecretYaml('shop/db-v2', SYNCED, false)),
      ...fast,
      '--status-grace',
      '2s',
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('no status written since the apply; judged on the one from before');
  });
});

describe('a restore is judged against the state before the apply', () => {
  it('a Deployment crash-looping before the apply, given another crashing image, is restored and the pre-existing failure named (exit 3)', async () => {
    const crashing = (image: string) =>
      deploymentYaml('web', image).replace(
        /template:\n(\s+)metadata:\n/,
        'template:\n$1metadata:\n$1  annotations:\n$1    sim.kguard.dev/exit-code: "1"\n$1    sim.kguard.dev/run-seconds: "0"\n',
      );
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], crashing('nginx:1.25'))).exitCode).toBe(0);
    await eventually(() =>
      env.cluster.store
        .list('Pod', 'default')
        .some((pod) => (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0)
        ? true
        : undefined,
    );
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('web.yaml', crashing('nginx:1.26')),
      ...fast,
      '--rollback-timeout',
      '20s',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('it was already failing before the apply');
    expect(run.output).not.toContain('ROLLBACK FAILED');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe('a failure that stood before the apply does not undo it', () => {
  it('a Service that selected no pods before the apply, whose port the apply names, is a warning beside a healthy Deployment (exit 0)', async () => {
    await env.deployHealthy('web');
    const service = (portName: string) => `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: wbe }
  ports:
  - port: 80
    targetPort: 80${portName ? `\n    name: ${portName}` : ''}
`;
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], service(''))).exitCode).toBe(0);
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('app.yaml', `${deploymentYaml('web', 'nginx:1.26')}---\n${service('http')}`),
      ...fast,
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('matched no pod before the apply either');
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });
});
