// End to end through the API server and the controllers: kubectl rollout status, history and undo.
// (controllers/kubectl-rollout.test.ts covers failing rollouts; this covers the history kubectl
// reconstructs from ReplicaSets, which depends on how the API stores and patches them.)

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { deploymentYaml, kubectl } from './testing/kubectl.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ timeScale: 50 });
});

afterAll(async () => {
  await cluster?.stop();
});

function withChangeCause(yaml: string, cause: string): string {
  return yaml.replace(/^(metadata:\n)/m, `$1  annotations:\n    kubernetes.io/change-cause: "${cause}"\n`);
}

async function rollOut(name: string, image: string, cause: string): Promise<void> {
  const applied = await kubectl(cluster, ['apply', '-f', '-'], withChangeCause(deploymentYaml(name, image), cause));
  expect(applied.exitCode, applied.stderr).toBe(0);
  const status = await kubectl(cluster, ['rollout', 'status', `deployment/${name}`, '--timeout=10s']);
  expect(status.stdout).toContain(`deployment "${name}" successfully rolled out`);
}

function replicaSets(name: string) {
  return cluster.store.list('ReplicaSet', 'default', `app=${name}`);
}

describe('kubectl rollout against the simulated cluster', () => {
  it('reports success and lists the history with change causes', async () => {
    await rollOut('hist', 'nginx:1.25', 'first');
    await rollOut('hist', 'nginx:1.26', 'second');
    const history = await kubectl(cluster, ['rollout', 'history', 'deployment/hist']);
    expect(history.exitCode).toBe(0);
    expect(history.stdout).toBe('deployment.apps/hist \nREVISION  CHANGE-CAUSE\n1         first\n2         second\n');
    const revision = await kubectl(cluster, ['rollout', 'history', 'deployment/hist', '--revision=1']);
    expect(revision.stdout).toContain('deployment.apps/hist with revision #1');
    expect(revision.stdout).toMatch(/Image:\s+nginx:1\.25/);
  });

  it('undoes to a chosen revision by reusing its ReplicaSet', async () => {
    await rollOut('undo', 'nginx:1.25', 'one');
    await rollOut('undo', 'nginx:1.26', 'two');
    await rollOut('undo', 'nginx:1.27', 'three');
    const firstSet = replicaSets('undo').find(
      (rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'] === '1',
    )!;

    const undo = await kubectl(cluster, ['rollout', 'undo', 'deployment/undo', '--to-revision=1']);
    expect(undo).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/undo rolled back' });
    const status = await kubectl(cluster, ['rollout', 'status', 'deployment/undo', '--timeout=10s']);
    expect(status.exitCode).toBe(0);

    const sets = replicaSets('undo');
    expect(sets).toHaveLength(3);
    const reused = sets.find((rs) => rs.metadata.uid === firstSet.metadata.uid)!;
    expect(reused.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('4');
    expect(reused.spec.replicas).toBe(2);
    expect(cluster.store.get('Deployment', 'default', 'undo')?.spec.template.spec.containers[0].image).toBe(
      'nginx:1.25',
    );
    const history = await kubectl(cluster, ['rollout', 'history', 'deployment/undo']);
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+two\n3\s+three\n4\s+one\n$/);
  });

  it('refuses unknown revisions and skips a rollback to the current template', async () => {
    await rollOut('skip', 'nginx:1.25', 'one');
    await rollOut('skip', 'nginx:1.26', 'two');
    const unknown = await kubectl(cluster, ['rollout', 'undo', 'deployment/skip', '--to-revision=99']);
    expect(unknown).toMatchObject({ exitCode: 1, stderr: 'error: unable to find specified revision 99 in history' });
    const current = await kubectl(cluster, ['rollout', 'undo', 'deployment/skip', '--to-revision=2']);
    expect(current).toMatchObject({
      exitCode: 0,
      stdout: 'deployment.apps/skip skipped rollback (current template already matches revision 2)',
    });
  });

  it('dry-runs an undo on the server without changing the Deployment', async () => {
    await rollOut('dry', 'nginx:1.25', 'one');
    await rollOut('dry', 'nginx:1.26', 'two');
    const generation = cluster.store.get('Deployment', 'default', 'dry')?.metadata.generation;
    const undo = await kubectl(cluster, ['rollout', 'undo', 'deployment/dry', '--dry-run=server']);
    expect(undo).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/dry rolled back (server dry run)' });
    const deployment = cluster.store.get('Deployment', 'default', 'dry')!;
    expect(deployment.metadata.generation).toBe(generation);
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.26');
  });

  it('lets the kubelet finish a graceful pod deletion, so `kubectl delete pod` returns once it is gone', async () => {
    await rollOut('grace', 'nginx:1.25', 'one');
    const [pod] = cluster.store.list('Pod', 'default', 'app=grace');
    const seen: string[] = [];
    const unsubscribe = cluster.store.subscribe((event) => {
      if (event.object.metadata.name === pod!.metadata.name)
        seen.push(event.object.metadata.deletionTimestamp ? `${event.type} terminating` : event.type);
    });
    const result = await kubectl(cluster, ['delete', 'pod', pod!.metadata.name, '--timeout=10s']);
    unsubscribe();
    // kubectl 1.35 adds where it was deleted from.
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(new RegExp(`^pod "${pod!.metadata.name}" deleted( from default namespace)?$`)),
    });
    expect(seen[0]).toBe('MODIFIED terminating');
    expect(seen[seen.length - 1]).toBe('DELETED terminating');
    expect(cluster.store.get('Pod', 'default', pod!.metadata.name)).toBeUndefined();
  });
});
