// A node joins after an autoscaler event: pods no node matches (nodeSelector) are Unschedulable
// with the scheduler's real message, get cluster-autoscaler's TriggeredScaleUp (or Karpenter's
// Nominated), and schedule once the matching node has joined; kubectl rollout status completes.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { gpuDeploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const gpuDeployment = gpuDeploymentYaml(2);

const podEvents = (reason: string) =>
  cluster!.store
    .list('Event', 'default')
    .filter((event) => event['reason'] === reason && (event['involvedObject'] as { kind: string }).kind === 'Pod')
    .map(
      (event) =>
        `${(event['source'] as { component?: string }).component ?? (event['reportingComponent'] as string)}: ${event['message']}`,
    );

describe('a node that joins after an autoscaler event', () => {
  it('cluster-autoscaler: FailedScheduling, TriggeredScaleUp, then the node joins and the pods run there', async () => {
    cluster = await startCluster({
      timeScale: 40,
      scenario: {
        nodeAutoscaler: {
          nodeGroup: 'gpu-pool',
          maxSize: 3,
          joinAfterMs: 60_000,
          nodes: [{ name: 'gpu-node-1', labels: { pool: 'gpu' } }],
        },
      },
    });
    await kubectl(cluster, ['apply', '-f', '-'], gpuDeployment);
    const rollout = await kubectl(cluster, ['rollout', 'status', 'deployment/trainer', '--timeout=20s']);
    expect(rollout.exitCode, rollout.stderr).toBe(0);

    const failed = cluster.store.list('Event', 'default').find((event) => event['reason'] === 'FailedScheduling')!;
    expect(failed['message']).toBe(
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(podEvents('TriggeredScaleUp')).toEqual([
      'cluster-autoscaler: pod triggered scale-up: [{gpu-pool 0->1 (max: 3)}]',
      'cluster-autoscaler: pod triggered scale-up: [{gpu-pool 0->1 (max: 3)}]',
    ]);
    const pods = cluster.store.list('Pod', 'default', 'app=trainer');
    expect(pods.map((pod) => pod.spec.nodeName)).toEqual(['gpu-node-1', 'gpu-node-1']);
    const nodes = await kubectl(cluster, ['get', 'nodes', '-l', 'pool=gpu', '-o', 'name']);
    expect(nodes.stdout).toBe('node/gpu-node-1');
  });

  it('Karpenter: Nominated with the NodeClaim', async () => {
    cluster = await startCluster({
      timeScale: 40,
      scenario: {
        nodeAutoscaler: {
          flavour: 'karpenter',
          nodeGroup: 'default',
          joinAfterMs: 30_000,
          nodes: [{ name: 'ip-10-0-1-23', labels: { pool: 'gpu' } }],
        },
      },
    });
    await kubectl(cluster, ['apply', '-f', '-'], gpuDeployment);
    const rollout = await kubectl(cluster, ['rollout', 'status', 'deployment/trainer', '--timeout=20s']);
    expect(rollout.exitCode, rollout.stderr).toBe(0);
    const nominated = [...new Set(podEvents('Nominated'))];
    expect(nominated).toHaveLength(1);
    expect(nominated[0]).toMatch(
      /^karpenter: Pod should schedule on: nodeclaim\/default-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    );
  });

  it('pods no configured node could match stay Pending, with no scale-up event', async () => {
    cluster = await startCluster({
      timeScale: 40,
      scenario: { nodeAutoscaler: { nodes: [{ name: 'cpu-node-9', labels: { pool: 'cpu' } }] } },
    });
    await kubectl(cluster, ['apply', '-f', '-'], gpuDeployment);
    const rollout = await kubectl(cluster, ['rollout', 'status', 'deployment/trainer', '--timeout=2s']);
    expect(rollout.exitCode).toBe(1);
    expect(podEvents('TriggeredScaleUp')).toEqual([]);
    expect(cluster.store.get('Node', '', 'cpu-node-9')).toBeUndefined();
  });
});
