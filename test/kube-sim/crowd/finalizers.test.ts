// Finalizers with the real kubectl: a controller adds its finalizer to the objects it manages
// (scenario `finalizers`), a DELETE then only marks the object (deletionTimestamp) and kubectl
// waits until the controller takes the finalizer off; the API server refuses new finalizers on an
// object being deleted.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { waitFor } from '../controllers/harness.js';
import { kubectl, kubectlPatch } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const LB_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

function serviceYaml(name: string, type: 'LoadBalancer' | 'ClusterIP'): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  type: ${type}
  selector:
    app: ${name}
  ports:
  - port: 80
`;
}

const service = (name: string) => cluster!.store.get('Service', 'default', name);

describe('finalizers added and removed by a controller', () => {
  it('the LB controller guards LoadBalancer Services; kubectl delete waits until it lets go', async () => {
    cluster = await startCluster({
      timeScale: 20,
      scenario: {
        finalizers: [
          {
            kind: 'Service',
            finalizer: LB_FINALIZER,
            match: { 'spec.type': 'LoadBalancer' },
            manager: 'cloud-controller-manager',
            removeAfterMs: 40_000,
          },
        ],
      },
    });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${serviceYaml('web', 'LoadBalancer')}---\n${serviceYaml('internal', 'ClusterIP')}`,
    );
    await waitFor('the finalizer on service/web', () => service('web')?.metadata.finalizers?.includes(LB_FINALIZER));
    expect(service('internal')?.metadata.finalizers).toBeUndefined();
    const entry = (
      service('web')!.metadata['managedFields'] as {
        manager: string;
        operation: string;
        fieldsV1: Record<string, unknown>;
      }[]
    ).find((e) => e.manager === 'cloud-controller-manager');
    expect(entry).toMatchObject({
      operation: 'Update',
      fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {}, [`v:"${LB_FINALIZER}"`]: {} } } },
    });

    const marked = await kubectl(cluster, ['delete', 'service', 'web', '--wait=false']);
    expect(marked.exitCode, marked.stderr).toBe(0);
    expect(marked.stdout).toMatch(/^service "web" deleted( from default namespace)?$/);
    const terminating = service('web')!;
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(terminating.metadata.finalizers).toEqual([LB_FINALIZER]);

    // A second delete (with the default --wait) returns once the controller has removed its finalizer
    // (40 simulated seconds after the deletion started: long enough to see it Terminating above).
    const waited = await kubectl(cluster, ['delete', 'service', 'web', '--timeout=20s']);
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(service('web')).toBeUndefined();
  });

  it('refuses a new finalizer on an object being deleted, and deletes it when the last one goes', async () => {
    cluster = await startCluster({ timeScale: 20 });
    const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: guarded
  finalizers: [example.com/keep]
data:
  a: "1"
`;
    await kubectl(cluster, ['apply', '-f', '-'], configMap);
    const deleted = await kubectl(cluster, ['delete', 'configmap', 'guarded', '--wait=false']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(cluster.store.get('ConfigMap', 'default', 'guarded')?.metadata.deletionTimestamp).toBeDefined();

    const added = await kubectlPatch(
      cluster,
      'configmap',
      'guarded',
      'json',
      '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/more"}]',
    );
    expect(added.exitCode).toBe(1);
    expect(added.stderr).toContain(
      'The ConfigMap "guarded" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
    );

    const released = await kubectlPatch(
      cluster,
      'configmap',
      'guarded',
      'json',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    );
    expect(released.exitCode, released.stderr).toBe(0);
    expect(cluster.store.get('ConfigMap', 'default', 'guarded')).toBeUndefined();
  });
});
