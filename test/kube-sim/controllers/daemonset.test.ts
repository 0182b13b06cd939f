// The daemonset controller under the real kubectl: one pod per node placed by the scheduler
// through node affinity, `kubectl rollout status daemonset/x` as on a real cluster, rolling
// updates within maxUnavailable, a bad image that stops the rollout, OnDelete.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { daemonSetYaml, kubectl } from '../testing/kubectl.js';
import type { KubeObject } from '../types.js';
import { applied, stopAfterEach } from '../testing/test-steps.js';
import { waitFor } from './harness.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const apply = (yaml: string) => applied(cluster!, yaml);

const pods = (name: string): KubeObject[] => cluster!.store.list('Pod', 'default', `app=${name}`);
const daemonSet = (name: string) => cluster!.store.get('DaemonSet', 'default', name)!;

/** Polls the simulator (not the clock) every 20 ms until `probe` holds. */
const until = <T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000) =>
  waitFor(what, probe, timeoutMs, 20);

describe('daemonset controller with the real kubectl', () => {
  it('runs one pod on every node, and rollout status succeeds', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(daemonSetYaml('agent', 'nginx:1.25'));
    const status = await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('daemon set "agent" successfully rolled out');
    expect(
      pods('agent')
        .map((pod) => pod.spec.nodeName)
        .sort(),
    ).toEqual(['node-1', 'node-2', 'node-3']);
    const ds = daemonSet('agent');
    expect(ds.metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('1');
    expect(ds.status).toEqual({
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      desiredNumberScheduled: 3,
      numberReady: 3,
      observedGeneration: 1,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
    });
    const [pod] = pods('agent');
    expect(pod!.metadata.labels).toMatchObject({ 'pod-template-generation': '1' });
    const revisions = cluster.store.list('ControllerRevision', 'default');
    expect(revisions.map((revision) => revision.metadata.name)).toEqual([
      `agent-${pod!.metadata.labels!['controller-revision-hash']}`,
    ]);
    expect(
      pod!.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        .matchFields[0],
    ).toMatchObject({ key: 'metadata.name', operator: 'In' });
  });

  it('honours the template nodeSelector', async () => {
    cluster = await startCluster({
      timeScale: 20,
      scenario: { nodes: [{ name: 'a', labels: { disk: 'ssd' } }, { name: 'b' }] },
    });
    await apply(daemonSetYaml('agent', 'nginx:1.25', { nodeSelector: { disk: 'ssd' } }));
    expect((await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=30s'])).exitCode).toBe(0);
    expect(pods('agent').map((pod) => pod.spec.nodeName)).toEqual(['a']);
    expect(daemonSet('agent').status.desiredNumberScheduled).toBe(1);
  });

  it('rolls a new template node by node, never more than maxUnavailable down', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(daemonSetYaml('agent', 'nginx:1.25'));
    expect((await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=30s'])).exitCode).toBe(0);
    let mostDown = 0;
    const unsubscribe = cluster.store.subscribe(() => {
      const ds = cluster!.store.get('DaemonSet', 'default', 'agent');
      if (ds?.status?.observedGeneration === 2) mostDown = Math.max(mostDown, ds.status.numberUnavailable ?? 0);
    });
    await apply(daemonSetYaml('agent', 'nginx:1.26'));
    const status = await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    unsubscribe();
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('Waiting for daemon set "agent" rollout to finish:');
    expect(mostDown).toBe(1);
    expect(pods('agent').map((pod) => pod.spec.containers[0].image)).toEqual([
      'nginx:1.26',
      'nginx:1.26',
      'nginx:1.26',
    ]);
    expect(daemonSet('agent').metadata.annotations?.['deprecated.daemonset.template.generation']).toBe('2');
    expect(pods('agent').map((pod) => pod.metadata.labels?.['pod-template-generation'])).toEqual(['2', '2', '2']);
    expect(
      cluster.store
        .list('ControllerRevision', 'default')
        .map((revision) => revision['revision'])
        .sort(),
    ).toEqual([1, 2]);
  });

  it('a new pod that cannot pull stops the rollout at maxUnavailable', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { registry: { 'nginx:9.99': 'missing' } } });
    await apply(daemonSetYaml('agent', 'nginx:1.25'));
    expect((await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=30s'])).exitCode).toBe(0);
    await apply(daemonSetYaml('agent', 'nginx:9.99'));
    await until('one new pod pulling in vain', () =>
      pods('agent').some((pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff'),
    );
    const stuck = await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=2s']);
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stdout).toContain(
      'Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...',
    );
    expect(pods('agent').filter((pod) => pod.spec.containers[0].image === 'nginx:1.25')).toHaveLength(2);
  });

  it('OnDelete replaces a pod only when it is deleted', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(daemonSetYaml('agent', 'nginx:1.25', { strategy: 'OnDelete' }));
    await until('three ready pods', () => daemonSet('agent').status?.numberReady === 3);
    await apply(daemonSetYaml('agent', 'nginx:1.26', { strategy: 'OnDelete' }));
    await until('generation observed', () => daemonSet('agent').status.observedGeneration === 2);
    const status = await kubectl(cluster, ['rollout', 'status', 'daemonset/agent', '--timeout=5s']);
    expect(status.stderr).toContain('rollout status is only available for RollingUpdate strategy type');
    const victim = pods('agent')[0]!;
    expect((await kubectl(cluster, ['delete', 'pod', victim.metadata.name])).exitCode).toBe(0);
    await until('a new pod on its node', () =>
      pods('agent').some(
        (pod) => pod.spec.nodeName === victim.spec.nodeName && pod.spec.containers[0].image === 'nginx:1.26',
      ),
    );
    expect(pods('agent').filter((pod) => pod.spec.containers[0].image === 'nginx:1.25')).toHaveLength(2);
  });
});
