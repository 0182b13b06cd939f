import { describe, expect, it } from 'vitest';
import {
  condition,
  deployment,
  eventsFor,
  getDeployment,
  podsOf,
  replicaSetsOf,
  simForThisTest,
  waitFor,
} from './harness.js';

describe('scheduler', () => {
  it('marks pods that fit no node Unschedulable with the real FailedScheduling message', async () => {
    const sim = simForThisTest();
    sim.store.create(deployment('big', { replicas: 1, container: { resources: { requests: { cpu: '8' } } } }));
    const pod = await waitFor('unschedulable', () => {
      const found = sim!.store.list('Pod', 'default', 'app=big')[0];
      return condition(found, 'PodScheduled')?.status === 'False' ? found : undefined;
    });
    const message =
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    expect(condition(pod, 'PodScheduled')).toMatchObject({ reason: 'Unschedulable', message });
    expect(pod.status.phase).toBe('Pending');
    const event = eventsFor(sim.store, pod.metadata.name).find((e) => e.reason === 'FailedScheduling')!;
    expect(event).toMatchObject({
      type: 'Warning',
      message,
      reportingComponent: 'default-scheduler',
      action: 'Scheduling',
    });
  });

  it('counts each reason per node and explains a nodeSelector mismatch', async () => {
    const sim = simForThisTest({
      nodes: [
        { name: 'small', cpu: '1', memory: '1Gi' },
        { name: 'big', cpu: '8', memory: '32Gi', labels: { disk: 'ssd' } },
      ],
    });
    sim.store.create(deployment('pick', { replicas: 1, podSpec: { nodeSelector: { disk: 'hdd' } } }));
    const pod = await waitFor('unschedulable', () => {
      const found = sim!.store.list('Pod', 'default', 'app=pick')[0];
      return condition(found, 'PodScheduled')?.status === 'False' ? found : undefined;
    });
    expect(condition(pod, 'PodScheduled')!.message).toBe(
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  });

  it('schedules a waiting pod once another pod frees the node', async () => {
    const sim = simForThisTest({ nodes: { count: 1, cpu: '1' } });
    sim.store.create(deployment('first', { replicas: 1, container: { resources: { requests: { cpu: '800m' } } } }));
    await waitFor(
      'first available',
      () => condition(getDeployment(sim!.store, 'first'), 'Available')?.status === 'True',
    );
    sim.store.create(deployment('second', { replicas: 1, container: { resources: { requests: { cpu: '800m' } } } }));
    await waitFor(
      'second unschedulable',
      () => condition(sim!.store.list('Pod', 'default', 'app=second')[0], 'PodScheduled')?.status === 'False',
    );
    sim.store.delete('Deployment', 'default', 'first');
    await waitFor(
      'second available',
      () => condition(getDeployment(sim!.store, 'second'), 'Available')?.status === 'True',
    );
  });
});

describe('replicaset controller', () => {
  it('reports FailedCreate and ReplicaFailure when a ResourceQuota refuses pods', async () => {
    const sim = simForThisTest({ quotas: [{ namespace: 'default', name: 'compute', hard: { 'requests.cpu': '1' } }] });
    const created = sim.store.create(
      deployment('web', { replicas: 3, container: { resources: { requests: { cpu: '500m' } } } }),
    );
    const d = await waitFor('ReplicaFailure', () => {
      const found = getDeployment(sim!.store, 'web');
      return condition(found, 'ReplicaFailure') ? found : undefined;
    });
    const rs = replicaSetsOf(sim.store, created)[0]!;
    const failure = condition(d, 'ReplicaFailure')!;
    expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
    expect(failure.message).toMatch(
      new RegExp(
        `^pods "${rs.metadata.name}-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1, limited: requests.cpu=1$`,
      ),
    );
    const events = eventsFor(sim.store, rs.metadata.name).filter((e) => e.reason === 'FailedCreate');
    expect(events[0]).toMatchObject({ type: 'Warning', source: { component: 'replicaset-controller' } });
    expect(events[0]!.message).toMatch(/^Error creating: pods ".*" is forbidden: exceeded quota: compute/);
  });

  it('counts pods available only after minReadySeconds', async () => {
    const sim = simForThisTest();
    sim.store.create(deployment('web', { replicas: 1, spec: { minReadySeconds: 20 } }));
    const available = await waitFor('available', () => {
      const found = getDeployment(sim!.store, 'web');
      return found?.status?.availableReplicas === 1 ? found : undefined;
    });
    // Compare the timestamps the simulator wrote (its own clock), not when this test happened to look:
    // under load a poll can come late by many simulated seconds at time scale 100.
    const pod = replicaSetsOf(sim.store, available).flatMap((rs) => podsOf(sim!.store, rs))[0];
    const readySince = Date.parse(condition(pod, 'Ready')!.lastTransitionTime!);
    const availableSince = Date.parse(condition(available, 'Available')!.lastTransitionTime!);
    expect(condition(available, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(availableSince - readySince).toBeGreaterThanOrEqual(19_000);
  });
});
