// A write the API server stores and then answers 504 (its request deadline passed while the
// storage write went on): kubectl reports the timeout, the object is there, and a retried create
// meets it as 409 AlreadyExists.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { deploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const TIMEOUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

describe('a write stored and then answered 504', () => {
  it('a create lands, is answered 504 Timeout, and its retry gets AlreadyExists', async () => {
    cluster = await startCluster({ controllers: false });
    cluster.faults.commitThenTimeout(1, /^POST .*\/configmaps/);
    const first = await kubectl(cluster, ['create', 'configmap', 'settings', '--from-literal=mode=fast']);
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toBe(`error: failed to create configmap: ${TIMEOUT}`);
    expect(cluster.store.get('ConfigMap', 'default', 'settings')?.data).toEqual({ mode: 'fast' });
    expect(cluster.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([504]);

    const retry = await kubectl(cluster, ['create', 'configmap', 'settings', '--from-literal=mode=fast']);
    expect(retry.exitCode).toBe(1);
    expect(retry.stderr).toBe('error: failed to create configmap: configmaps "settings" already exists');
  });

  it('an apply patch lands and is answered 504; the Status body is the real one', async () => {
    cluster = await startCluster({ controllers: false });
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'));
    cluster.faults.commitThenTimeout(1, /^PATCH .*\/deployments\/web/);
    const applied = await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.26'));
    expect(applied.exitCode).toBe(1);
    expect(applied.stderr).toContain(`Error from server (Timeout): error when applying patch:`);
    expect(applied.stderr).toContain(TIMEOUT);
    expect(cluster.store.get('Deployment', 'default', 'web')?.spec.template.spec.containers[0].image).toBe(
      'nginx:1.26',
    );

    cluster.faults.commitThenTimeout(1, /^PUT .*\/configmaps\/raw/);
    cluster.store.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'raw', namespace: 'default' },
      data: { a: '1' },
    });
    const response = await fetch(`${cluster.url}/api/v1/namespaces/default/configmaps/raw`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'raw', namespace: 'default' },
        data: { a: '2' },
      }),
    });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: TIMEOUT,
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    expect(cluster.store.get('ConfigMap', 'default', 'raw')?.data).toEqual({ a: '2' });
  });
});
