// Restoring the whole apply exactly (issue "Restore the whole apply exactly"), end to end.
// The headline: after a failed deploy restored by kguard, the next plain `kubectl apply` behaves as
// if the failed one never happened. Cluster A sees v1, a failing v2 through kguard, then v3;
// cluster B sees v1 then v3. Their objects must be equal.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import type { KubeObject } from '../kube-sim/types.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { configMapYaml, serviceYaml } from './manifests.js';
import { MISSING } from './run-fixtures.js';

const scenario = { registry: { [MISSING]: 'missing' as const } };
const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

let env: Sandbox;
let other: Cluster | undefined;
beforeEach(async () => {
  env = await sandbox({ scenario });
});
afterEach(async () => {
  await other?.stop();
  other = undefined;
  await env.stop();
});

interface Version {
  config: string;
  replicas: number;
  container: string;
  image: string;
  env: Record<string, string>;
  port: number;
}

/** One version of a small app: a ConfigMap, a Deployment that reads it, a Service in front. */
function app(version: Version): string {
  const env = Object.entries(version.env)
    .map(([name, value]) => `        - name: ${name}\n          value: "${value}"`)
    .join('\n');
  const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels:
    app: shop
spec:
  replicas: ${version.replicas}
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: ${version.container}
        image: ${version.image}
        env:
${env}
        envFrom:
        - configMapRef:
            name: shop-config
`;
  return [configMapYaml('shop-config', { mode: version.config }), deployment, serviceYaml('shop', version.port)].join(
    '---\n',
  );
}

const V1: Version = {
  config: 'one',
  replicas: 2,
  container: 'web',
  image: 'nginx:1.25',
  env: { GREETING: 'hello', LEGACY: 'on' },
  port: 80,
};
// The failing version: container renamed, LEGACY removed, config, replicas and port changed, image missing.
const V2: Version = {
  config: 'two',
  replicas: 3,
  container: 'app',
  image: MISSING,
  env: { GREETING: 'hello' },
  port: 8080,
};
// The fixed version: like v2 with an image that exists.
const V3: Version = { ...V2, config: 'three', image: 'nginx:1.26' };

const KINDS = [
  ['ConfigMap', 'shop-config'],
  ['Deployment', 'shop'],
  ['Service', 'shop'],
] as const;

/**
 * An object as a later apply sees it, without what differs between two clusters by nature:
 * identity and timing (uid, resourceVersion, creationTimestamp, managedFields times), the
 * allocated cluster IP, status, and the controller's revision bookkeeping (generation, revision).
 */
function portable(object: KubeObject | undefined): unknown {
  if (!object) return undefined;
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _created,
    generation: _generation,
    ...metadata
  } = object.metadata;
  const annotations = { ...(metadata.annotations ?? {}) };
  delete annotations['deployment.kubernetes.io/revision'];
  const managedFields = ((metadata.managedFields ?? []) as Record<string, unknown>[]).map((entry) => ({
    ...entry,
    time: undefined,
  }));
  const spec = { ...(object.spec as Record<string, unknown> | undefined) };
  delete spec.clusterIP;
  delete spec.clusterIPs;
  return JSON.parse(
    JSON.stringify({
      ...object,
      status: undefined,
      spec: object.spec ? spec : undefined,
      metadata: { ...metadata, annotations, managedFields },
    }),
  );
}

async function applyPlain(cluster: Pick<Cluster, 'env'>, manifest: string, serverSide: boolean): Promise<void> {
  const result = await kubectl(cluster, ['apply', ...(serverSide ? ['--server-side'] : []), '-f', '-'], manifest);
  expect(result.exitCode, result.stderr).toBe(0);
}

async function settled(cluster: Cluster): Promise<void> {
  await eventually(() => {
    const deployment = cluster.store.get('Deployment', 'default', 'shop');
    const status = deployment?.status as
      | { observedGeneration?: number; updatedReplicas?: number; availableReplicas?: number }
      | undefined;
    return status?.observedGeneration === deployment?.metadata.generation &&
      status?.availableReplicas === deployment?.spec.replicas
      ? true
      : undefined;
  });
}

describe('kguard restores the whole apply exactly', () => {
  for (const serverSide of [false, true]) {
    const how = serverSide ? 'server-side' : 'client-side';
    it(`a failed v2 leaves no trace: v1 → v2 (restored) → v3 equals v1 → v3 (${how} apply)`, async () => {
      // Cluster A: v1, the failing v2 through kguard, then v3 by hand.
      await applyPlain(env.cluster, app(V1), serverSide);
      await settled(env.cluster);
      const file = await env.write('v2.yaml', app(V2));
      const run = await env.kguard(['apply', '-f', file, ...fast, ...(serverSide ? ['--server-side'] : [])]);
      expect(run.exitCode, run.output).toBe(3);
      for (const [kind, name] of KINDS) {
        expect(run.output).toContain(
          `${kind.toLowerCase()}/${name} (namespace default): put back as it was before the apply`,
        );
      }
      expect(run.output).not.toContain('skipped rollback');
      await applyPlain(env.cluster, app(V3), serverSide);
      await settled(env.cluster);

      // Cluster B: v1, then v3.
      other = await startCluster({ timeScale: 10, scenario });
      await applyPlain(other, app(V1), serverSide);
      await settled(other);
      await applyPlain(other, app(V3), serverSide);
      await settled(other);

      for (const [kind, name] of KINDS) {
        expect(portable(env.cluster.store.get(kind, 'default', name)), `${kind}/${name}`).toEqual(
          portable(other.store.get(kind, 'default', name)),
        );
      }
      // What rollout undo would have got wrong: the renamed container and the removed env var.
      const containers = env.cluster.store.get('Deployment', 'default', 'shop')?.spec.template.spec.containers as {
        name: string;
        env?: { name: string }[];
      }[];
      expect(containers.map((container) => container.name)).toEqual(['app']);
      expect(containers[0]?.env?.map((entry) => entry.name)).toEqual(['GREETING']);
    });
  }

  it('restores a replicas-only change (no new pods, nothing for rollout undo to do) when another object fails', async () => {
    await applyPlain(
      env.cluster,
      `${deploymentYaml('api', 'nginx:1.25')}---\n${deploymentYaml('web', 'nginx:1.25')}`,
      false,
    );
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const file = await env.write(
      'next.yaml',
      `${deploymentYaml('api', 'nginx:1.25', { replicas: 4 })}---\n${deploymentYaml('web', MISSING)}`,
    );
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('deployment/api (namespace default): put back as it was before the apply');
    expect(run.output).not.toContain('skipped rollback');
    expect(env.cluster.store.get('Deployment', 'default', 'api')?.spec.replicas).toBe(2);
  });

  it('restores a Deployment with revisionHistoryLimit 0 (no old ReplicaSet to undo to)', async () => {
    const limited = (image: string) =>
      deploymentYaml('web', image).replace(/^spec:\n/m, 'spec:\n  revisionHistoryLimit: 0\n');
    await applyPlain(env.cluster, limited('nginx:1.25'), false);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const file = await env.write('web.yaml', limited(MISSING));
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('deployment/web (namespace default): restored and healthy again, 2/2 pods ready');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('a ConfigMap changed with a failing Deployment is restored with it; an unchanged one is not written', async () => {
    await applyPlain(
      env.cluster,
      `${configMapYaml('settings', { level: 'info' })}---\n${configMapYaml('static', { a: '1' })}---\n${deploymentYaml('web', 'nginx:1.25')}`,
      false,
    );
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const staticVersion = env.cluster.store.get('ConfigMap', 'default', 'static')?.metadata.resourceVersion;
    const file = await env.write(
      'next.yaml',
      `${configMapYaml('settings', { level: 'debug' })}---\n${configMapYaml('static', { a: '1' })}---\n${deploymentYaml('web', MISSING)}`,
    );
    const run = await env.kguard(['apply', '-f', file, ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('configmap/settings (namespace default): put back as it was before the apply');
    expect(env.cluster.store.get('ConfigMap', 'default', 'settings')?.data).toEqual({ level: 'info' });
    // Never touch an object this apply did not change.
    expect(env.cluster.store.get('ConfigMap', 'default', 'static')?.metadata.resourceVersion).toBe(staticVersion);
  });
});
