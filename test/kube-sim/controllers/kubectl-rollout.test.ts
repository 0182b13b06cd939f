// The controllers under the real kubectl: what kguard itself will run.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { deploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

function manifest(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kube-sim-manifest-')), 'deploy.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('controllers with the real kubectl', () => {
  it('rollout status succeeds, a bad image times out, and rollout undo --to-revision restores revision 1', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { registry: { 'nginx:9.99': 'missing' } } });
    expect((await kubectl(cluster, ['apply', '-f', manifest(deploymentYaml('web', 'nginx:1.25'))])).stdout).toBe(
      'deployment.apps/web created',
    );
    const healthy = await kubectl(cluster, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
    expect(healthy.stdout).toContain('deployment "web" successfully rolled out');
    expect(healthy.exitCode).toBe(0);

    expect((await kubectl(cluster, ['apply', '-f', manifest(deploymentYaml('web', 'nginx:9.99'))])).stdout).toBe(
      'deployment.apps/web configured',
    );
    const stuck = await kubectl(cluster, ['rollout', 'status', 'deployment/web', '--timeout=2s']);
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stderr).toContain('error: timed out waiting for the condition');

    // The new pod's first pull fails a few simulated seconds after the apply; on a loaded machine the
    // simulator may not be there yet when kubectl first looks, so look again for a while.
    const waitingReasons = async () => {
      const pods = JSON.parse((await kubectl(cluster!, ['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout) as {
        items: { status: { containerStatuses?: { state: { waiting?: { reason: string } } }[] } }[];
      };
      return pods.items.map((pod) => pod.status.containerStatuses?.[0]?.state.waiting?.reason).filter(Boolean);
    };
    const pullFailed = (reasons: (string | undefined)[]) =>
      reasons.some((reason) => reason === 'ErrImagePull' || reason === 'ImagePullBackOff');
    let reasons = await waitingReasons();
    for (let attempt = 0; attempt < 20 && !pullFailed(reasons); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      reasons = await waitingReasons();
    }
    expect(reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^(ErrImagePull|ImagePullBackOff)$/)]));

    const history = await kubectl(cluster, ['rollout', 'history', 'deployment/web']);
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const undo = await kubectl(cluster, ['rollout', 'undo', 'deployment/web', '--to-revision=1']);
    expect(undo.stdout).toBe('deployment.apps/web rolled back');
    const restored = await kubectl(cluster, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
    expect(restored.stdout).toContain('deployment "web" successfully rolled out');

    const sets = JSON.parse((await kubectl(cluster, ['get', 'rs', '-l', 'app=web', '-o', 'json'])).stdout) as {
      items: {
        metadata: { annotations: Record<string, string> };
        spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
      }[];
    };
    expect(sets.items).toHaveLength(2); // the revision-1 ReplicaSet was reused, not duplicated
    const current = sets.items.find((rs) => rs.spec.replicas === 2)!;
    expect(current.spec.template.spec.containers[0]!.image).toBe('nginx:1.25');
    expect(current.metadata.annotations['deployment.kubernetes.io/revision']).toBe('3');
    expect((await kubectl(cluster, ['rollout', 'history', 'deployment/web'])).stdout).toMatch(/2\s+<none>\n3\s+<none>/);
  });

  it('rollout status reports an exceeded progress deadline', async () => {
    cluster = await startCluster({ timeScale: 30, scenario: { registry: { 'nginx:9.99': 'missing' } } });
    const yaml = deploymentYaml('pds', 'nginx:9.99', { replicas: 1 }).replace(
      'spec:\n  replicas',
      'spec:\n  progressDeadlineSeconds: 30\n  replicas',
    );
    await kubectl(cluster, ['apply', '-f', manifest(yaml)]);
    const result = await kubectl(cluster, ['rollout', 'status', 'deployment/pds', '--timeout=15s']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: deployment "pds" exceeded its progress deadline');
  });
});
