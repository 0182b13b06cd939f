// Issue #36's "done when", end to end through the real kubectl, for every built-in custom resource
// rule (src/kinds/health/health-table.ts): one Healthy and one Degraded case of Argo CD's own
// health tests (test/fixtures/health/argocd/, the status as Argo CD's test has it) for each kind,
// as a new object and as a change to one its controller already answered healthy; the simulated
// controller answers each write 0.5 s later, once naming the generation it answered (its
// observedGeneration fields moved to the object's generation) and once naming none. Healthy ends
// exit 0; Degraded is restored, exit 3, and the harness checks the object is back as before. A
// restore onto an object that already failed the same way before the apply ends exit 3 with that
// failure named. One simulated cluster per kind; the kinds run side by side.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import type { JsonReport } from '../../src/report/json.js';
import { kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';

const ARGO_CD = fileURLToPath(new URL('../fixtures/health/argocd/', import.meta.url));

// --time-scale 10 (the harness's): "5" simulated seconds is the controller's 0.5 s answer.
const ANSWER_AFTER = '5';
// --status-grace: a controller that names no generation and answers with the status already
// there writes nothing (the API server drops a no-op update); kguard judges the standing one then.
const fast = ['--poll-interval', '200ms', '--timeout', '20s', '--rollback-timeout', '20s', '--status-grace', '2s'];

interface KindCase {
  /** The rule it exercises (health-table.ts id). */
  rule: string;
  /** Argo CD's cases, under test/fixtures/health/argocd/. */
  healthy: string;
  degraded: string;
  /** Kinds the API serves cluster-wide (no namespace). */
  clusterScoped?: readonly string[];
  /** The status revision 1 of a "changed" Degraded case was answered with, when the Healthy case is another kind. */
  healthyStatus?: Record<string, unknown>;
  /** Why its controllers always name the generation they answered: no case without. */
  alwaysNamesGeneration?: string;
}

const FLUX = 'fluxcd/pkg runtime/conditions: every condition carries observedGeneration';
const GATEWAY_API =
  'gateway-api apis/v1: metav1.Condition on the object, each route parent and listener, set by implementations (conformance)';

/**
 * The cases of one rule that judges several kinds: each kind (of the group at its index, or the one
 * group) with Argo CD's testdata/healthy.yaml and testdata/<degraded>.
 */
function perKind(
  groups: readonly string[],
  kinds: readonly string[],
  rule: string,
  degraded: string,
  alwaysNamesGeneration: string,
): KindCase[] {
  return kinds.map((kind, index) => {
    const dir = `${groups[index] ?? groups[0]}/${kind}/testdata`;
    return {
      rule: `${rule} (${kind})`,
      healthy: `${dir}/healthy.yaml`,
      degraded: `${dir}/${degraded}`,
      alwaysNamesGeneration,
    };
  });
}

const KINDS: readonly KindCase[] = [
  {
    rule: 'argoproj.io/Rollout',
    healthy: 'argoproj.io/Rollout/testdata/bluegreen/healthy_servingActiveService.yaml',
    degraded: 'argoproj.io/Rollout/testdata/degraded_rolloutTimeout.yaml',
  },
  {
    rule: 'cert-manager.io/Certificate',
    healthy: 'cert-manager.io/Certificate/testdata/healthy_issued.yaml',
    degraded: 'cert-manager.io/Certificate/testdata/degraded_configError.yaml',
  },
  {
    rule: 'cert-manager.io/Issuer',
    healthy: 'cert-manager.io/Issuer/testdata/healthy_registered.yaml',
    degraded: 'cert-manager.io/Issuer/testdata/degraded_acmeFailed.yaml',
  },
  {
    rule: 'cert-manager.io/Issuer (ClusterIssuer)',
    healthy: 'cert-manager.io/ClusterIssuer/testdata/healthy_registered.yaml',
    degraded: 'cert-manager.io/ClusterIssuer/testdata/degraded_acmeFailed.yaml',
    clusterScoped: ['ClusterIssuer'],
  },
  {
    rule: 'external-secrets.io/ExternalSecret',
    healthy: 'external-secrets.io/ExternalSecret/testdata/healthy.yaml',
    degraded: 'external-secrets.io/ExternalSecret/testdata/degraded.yaml',
  },
  ...perKind(
    ['kustomize.toolkit.fluxcd.io', 'helm.toolkit.fluxcd.io'],
    ['Kustomization', 'HelmRelease'],
    'toolkit.fluxcd.io/Flux',
    'degraded.yaml',
    FLUX,
  ),
  ...perKind(
    ['source.toolkit.fluxcd.io'],
    ['GitRepository', 'OCIRepository', 'HelmRepository', 'HelmChart', 'Bucket'],
    'toolkit.fluxcd.io/Flux',
    'degraded.yaml',
    FLUX,
  ),
  {
    // Argo CD's only Healthy case of _.upbound.io is a ProviderConfig (no status); its Degraded one
    // a managed resource (LastAsyncOperation False AsyncUpdateFailure).
    rule: 'crossplane.io/ProviderConfig, crossplane.io/Managed',
    healthy: '_.upbound.io/_/testdata/providerconfig_healthy.yaml',
    degraded: '_.upbound.io/_/testdata/managedresource_failedupdate_degraded.yaml',
    clusterScoped: ['ProviderConfig'],
    // A managed resource its provider reconciled: crossplane-runtime apis/common/v1/condition.go
    // ReconcileSuccess() (Synced True) and Available() (Ready True).
    healthyStatus: {
      conditions: [
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: '2024-01-01T00:00:00Z' },
        { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
    },
  },
  {
    rule: 'gateway.networking.k8s.io/Gateway',
    healthy: 'gateway.networking.k8s.io/Gateway/testdata/healthy.yaml',
    degraded: 'gateway.networking.k8s.io/Gateway/testdata/degraded_accepted.yaml',
    alwaysNamesGeneration: GATEWAY_API,
  },
  ...perKind(
    ['gateway.networking.k8s.io'],
    ['HTTPRoute', 'GRPCRoute'],
    'gateway.networking.k8s.io/Route',
    'degraded_accepted.yaml',
    GATEWAY_API,
  ),
  {
    rule: 'keda.sh/ScaledObject',
    healthy: 'keda.sh/ScaledObject/testdata/keda-healthy.yaml',
    degraded: 'keda.sh/ScaledObject/testdata/keda-degraded.yaml',
  },
];

interface Fixture {
  apiVersion: string;
  kind: string;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

function fixture(file: string): Fixture {
  return parse(readFileSync(`${ARGO_CD}${file}`, 'utf8')) as Fixture;
}

function crdYaml({ apiVersion, kind }: Fixture, clusterScoped: boolean): string {
  const [group, version] = apiVersion.split('/') as [string, string];
  const plural = kind.toLowerCase().replace(/y$/, 'ie').concat('s');
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: clusterScoped ? 'Cluster' : 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
}

/**
 * The case's object, named `name`, at spec revision `revision` (a spec change: a new generation
 * its controller must answer), whose simulated controller answers each new generation 0.5 s
 * later with the case's status; a case without a status (a ProviderConfig) gets none.
 */
function manifest(
  from: Fixture,
  name: string,
  revision: number,
  observedGeneration: boolean,
  clusterScoped: boolean,
): string {
  const annotations: Record<string, string> = {
    'sim.kguard.dev/answer-after': ANSWER_AFTER,
    'sim.kguard.dev/observed-generation': String(observedGeneration),
    ...(from.status && Object.keys(from.status).length > 0
      ? { 'sim.kguard.dev/status': JSON.stringify(from.status) }
      : { 'sim.kguard.dev/ready': 'silent' }),
  };
  return JSON.stringify({
    apiVersion: from.apiVersion,
    kind: from.kind,
    metadata: { name, ...(clusterScoped ? {} : { namespace: 'default' }), annotations },
    spec: { ...(from.spec ?? {}), kguardE2eRevision: revision },
  });
}

type Stage = 'new' | 'changed';

// The kinds' clusters mostly wait (on the controller's 0.5 s, on --status-grace): more of them side
// by side than vitest's default 5 keeps the file near 2 minutes without loading the machine more.
vi.setConfig({ maxConcurrency: KINDS.length });

describe('every built-in custom resource kind ends as its upstream health check says', () => {
  for (const row of KINDS) {
    describe(row.rule, { concurrent: true }, () => {
      describe.sequential('cases', () => {
        const healthy = fixture(row.healthy);
        const degraded = fixture(row.degraded);
        const scoped = (kind: string) => (row.clusterScoped ?? []).includes(kind);
        let env: Sandbox;

        beforeAll(async () => {
          env = await sandbox();
          const kinds = new Map([healthy, degraded].map((one) => [one.kind, one]));
          for (const one of kinds.values()) {
            const crd = crdYaml(one, scoped(one.kind));
            expect((await kubectl(env.cluster, ['apply', '-f', '-'], crd)).exitCode).toBe(0);
            const wait = [
              'wait',
              '--for=condition=established',
              `crd/${JSON.parse(crd).metadata.name}`,
              '--timeout=20s',
            ];
            expect((await kubectl(env.cluster, wait)).exitCode).toBe(0);
          }
        });
        afterAll(async () => {
          await env?.stop();
        });

        /** Applies revision 1 with kubectl and waits for its controller's answer. */
        async function reconciled(from: Fixture, name: string, observedGeneration: boolean): Promise<void> {
          const text = manifest(from, name, 1, observedGeneration, scoped(from.kind));
          const applied = await kubectl(env.cluster, ['apply', '-f', '-'], text);
          expect(applied.exitCode, applied.stderr).toBe(0);
          if (!from.status || Object.keys(from.status).length === 0) return;
          await eventually(() =>
            env.cluster.store.get(from.kind, scoped(from.kind) ? '' : 'default', name)?.status ? true : undefined,
          );
        }

        async function kguard(from: Fixture, name: string, revision: number, observedGeneration: boolean) {
          const file = await env.write(
            `${name}.json`,
            manifest(from, name, revision, observedGeneration, scoped(from.kind)),
          );
          const run = await env.kguard(['apply', '-f', file, ...fast, '-o', 'json']);
          const report = JSON.parse(run.stdout) as JsonReport;
          return { ...run, object: report.objects.find((object) => object.name === name) };
        }

        // The controller's healthy answer to revision 1 of a "changed" case, of the Degraded case's kind.
        const healthyBefore: Fixture =
          healthy.kind === degraded.kind ? healthy : { ...degraded, status: row.healthyStatus ?? {} };

        for (const observedGeneration of row.alwaysNamesGeneration ? [true] : [true, false]) {
          const how = observedGeneration ? 'with observedGeneration' : 'without observedGeneration';
          const tag = observedGeneration ? 'og' : 'no-og';
          for (const stage of ['new', 'changed'] as Stage[]) {
            it(`${how}, ${stage}: Argo CD's Healthy case is healthy (exit 0)`, async () => {
              const name = `healthy-${stage}-${tag}`;
              if (stage === 'changed') await reconciled(healthy, name, observedGeneration);
              const run = await kguard(healthy, name, 2, observedGeneration);
              expect(run.exitCode, run.stderr).toBe(0);
              expect(run.object?.verdict, run.stderr).toMatch(/^(healthy|applied)$/);
            });

            it(`${how}, ${stage}: Argo CD's Degraded case fails and is restored (exit 3)`, async () => {
              const name = `degraded-${stage}-${tag}`;
              if (stage === 'changed') await reconciled(healthyBefore, name, observedGeneration);
              const run = await kguard(degraded, name, 2, observedGeneration);
              expect(run.exitCode, run.stderr).toBe(3);
              expect(run.object, run.stderr).toMatchObject({
                verdict: 'failed',
                restore:
                  stage === 'new'
                    ? { status: 'deleted' }
                    : { status: 'restored', healthyAfterRestore: true, failingBefore: null },
              });
            });
          }

          it(`${how}: a Degraded change to one that was Degraded before is restored, the failure before named (exit 3)`, async () => {
            const name = `degraded-before-${tag}`;
            await reconciled(degraded, name, observedGeneration);
            const run = await kguard(degraded, name, 2, observedGeneration);
            expect(run.exitCode, run.stderr).toBe(3);
            expect(run.object, run.stderr).toMatchObject({
              verdict: 'failed',
              restore: { status: 'restored', healthyAfterRestore: false, failingBefore: expect.any(String) },
            });
            expect(run.stderr).toContain('it was already failing before the apply');
          });
        }
      });
    });
  }
});
