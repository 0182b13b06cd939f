// The statefulset controller under the real kubectl: rollout status, ordered creation, rolling
// updates from the highest ordinal, partitions, OnDelete, and the stuck pod a reverted template
// does not replace (the documented "forced rollback").

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { kubectl, statefulSetYaml } from '../testing/kubectl.js';
import type { KubeObject } from '../types.js';
import { applied, stopAfterEach } from '../testing/test-steps.js';
import { waitFor } from './harness.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const apply = (yaml: string) => applied(cluster!, yaml);

const pods = (name: string): KubeObject[] => cluster!.store.list('Pod', 'default', `app=${name}`);
const revisionOf = (pod: KubeObject | undefined) => pod?.metadata.labels?.['controller-revision-hash'];

/** Polls the simulator (not the clock) every 20 ms until `probe` holds. */
const until = <T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000) =>
  waitFor(what, probe, timeoutMs, 20);

describe('statefulset controller with the real kubectl', () => {
  it('creates pods in ordinal order, each after the previous is Ready, and rollout status succeeds', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(statefulSetYaml('db', 'nginx:1.25'));
    const status = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s']);
    expect(status.exitCode, status.stderr).toBe(0);
    // How many pods rollout status still waits for at its first look depends on when it starts: the
    // order below is what the controller owes (each pod created after the previous is Ready).
    expect(status.stdout).toContain('partitioned roll out complete: 3 new pods have been updated...');
    const [first, second, third] = ['db-0', 'db-1', 'db-2'].map((name) => cluster!.store.get('Pod', 'default', name)!);
    const readyAt = (pod: KubeObject) =>
      (pod.status.conditions as { type: string; lastTransitionTime: string }[]).find((c) => c.type === 'Ready')!
        .lastTransitionTime;
    expect(Date.parse(second!.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(Date.parse(readyAt(first!)));
    expect(Date.parse(third!.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(Date.parse(readyAt(second!)));
    const set = cluster.store.get('StatefulSet', 'default', 'db')!;
    expect(set.status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
      collisionCount: 0,
    });
    expect(set.status.currentRevision).toBe(set.status.updateRevision);
    expect(revisionOf(first)).toBe(set.status.updateRevision);
    expect(first!.metadata.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'db-0',
      'apps.kubernetes.io/pod-index': '0',
    });
    expect(first!.spec).toMatchObject({ hostname: 'db-0', subdomain: 'db' });
    const revisions = cluster.store.list('ControllerRevision', 'default');
    expect(revisions.map((revision) => revision.metadata.name)).toEqual([set.status.updateRevision]);
    expect(revisions[0]!['revision']).toBe(1);
  });

  it('replaces pods from the highest ordinal down and completes the revision', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(statefulSetYaml('db', 'nginx:1.25'));
    expect((await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s'])).exitCode).toBe(0);
    const before = cluster.store.get('StatefulSet', 'default', 'db')!.status.currentRevision as string;
    await apply(statefulSetYaml('db', 'nginx:1.26'));
    const status = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s']);
    expect(status.exitCode, status.stderr).toBe(0);
    const set = cluster.store.get('StatefulSet', 'default', 'db')!;
    expect(set.status.updateRevision).not.toBe(before);
    expect(set.status.currentRevision).toBe(set.status.updateRevision);
    expect(pods('db').map((pod) => pod.spec.containers[0].image)).toEqual(['nginx:1.26', 'nginx:1.26', 'nginx:1.26']);
    const deletions = cluster.store
      .list('Event', 'default')
      .filter((event) => event['reason'] === 'SuccessfulDelete')
      .map((event) => event['message']);
    expect(deletions).toEqual([
      'delete Pod db-2 in StatefulSet db successful',
      'delete Pod db-1 in StatefulSet db successful',
      'delete Pod db-0 in StatefulSet db successful',
    ]);
    const history = await kubectl(cluster, ['rollout', 'history', 'statefulset/db']);
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
  });

  it('a new pod that never becomes Ready blocks the rollout, and reverting the template leaves it stuck until it is deleted', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { registry: { 'nginx:9.99': 'missing' } } });
    await apply(statefulSetYaml('db', 'nginx:1.25'));
    expect((await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s'])).exitCode).toBe(0);
    const good = cluster.store.get('StatefulSet', 'default', 'db')!.status.currentRevision as string;
    await apply(statefulSetYaml('db', 'nginx:9.99'));
    const bad = await until('the bad revision', () => {
      const set = cluster!.store.get('StatefulSet', 'default', 'db')!;
      return set.status.updateRevision !== good && (set.status.updateRevision as string);
    });
    await until('db-2 stuck pulling', () => {
      const pod = cluster!.store.get('Pod', 'default', 'db-2');
      return (
        revisionOf(pod) === bad && pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff'
      );
    });
    const stuck = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=1s']);
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stdout).toContain('Waiting for 1 pods to be ready...');
    expect(revisionOf(cluster.store.get('Pod', 'default', 'db-1'))).toBe(good);
    expect(cluster.store.get('StatefulSet', 'default', 'db')!.status).toMatchObject({
      currentRevision: good,
      updateRevision: bad,
      readyReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 1,
    });

    // The forced rollback: the template goes back, the controller moves the good revision to the
    // top of the history, but waits for db-2 to be Ready before it does anything else.
    await apply(statefulSetYaml('db', 'nginx:1.25'));
    await until(
      'the good revision as update revision',
      () => cluster!.store.get('StatefulSet', 'default', 'db')!.status.updateRevision === good,
    );
    const revisions = cluster.store.list('ControllerRevision', 'default');
    expect(revisions.find((revision) => revision.metadata.name === good)!['revision']).toBe(3);
    const clockBefore = cluster.clock.now().getTime();
    await until('30 simulated seconds', () => cluster!.clock.now().getTime() > clockBefore + 30_000);
    expect(revisionOf(cluster.store.get('Pod', 'default', 'db-2'))).toBe(bad);

    expect((await kubectl(cluster, ['delete', 'pod', 'db-2'])).exitCode).toBe(0);
    const restored = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s']);
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(pods('db').map(revisionOf)).toEqual([good, good, good]);
  });

  it('updates only the ordinals at or above the partition', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(statefulSetYaml('db', 'nginx:1.25', { partition: 2 }));
    expect((await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s'])).exitCode).toBe(0);
    await apply(statefulSetYaml('db', 'nginx:1.26', { partition: 2 }));
    await until(
      'generation observed',
      () => cluster!.store.get('StatefulSet', 'default', 'db')!.status.observedGeneration === 2,
    );
    const status = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('partitioned roll out complete: 1 new pods have been updated...');
    expect(pods('db').map((pod) => pod.spec.containers[0].image)).toEqual(['nginx:1.25', 'nginx:1.25', 'nginx:1.26']);
    const set = cluster.store.get('StatefulSet', 'default', 'db')!;
    expect(set.status.currentRevision).not.toBe(set.status.updateRevision);
  });

  it('OnDelete replaces nothing until a pod is deleted; rollout status refuses the strategy', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(statefulSetYaml('db', 'nginx:1.25', { strategy: 'OnDelete', replicas: 2 }));
    await until(
      'two ready pods',
      () => cluster!.store.get('StatefulSet', 'default', 'db')!.status?.readyReplicas === 2,
    );
    await apply(statefulSetYaml('db', 'nginx:1.26', { strategy: 'OnDelete', replicas: 2 }));
    await until(
      'generation observed',
      () => cluster!.store.get('StatefulSet', 'default', 'db')!.status.observedGeneration === 2,
    );
    const status = await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=5s']);
    expect(status.exitCode).toBe(1);
    expect(status.stderr).toContain('rollout status is only available for RollingUpdate strategy type');
    expect(pods('db').map((pod) => pod.spec.containers[0].image)).toEqual(['nginx:1.25', 'nginx:1.25']);
    expect((await kubectl(cluster, ['delete', 'pod', 'db-1'])).exitCode).toBe(0);
    await until(
      'db-1 at the new image',
      () => cluster!.store.get('Pod', 'default', 'db-1')?.spec.containers[0].image === 'nginx:1.26',
    );
    expect(cluster.store.get('Pod', 'default', 'db-0')!.spec.containers[0].image).toBe('nginx:1.25');
  });

  it('Parallel creates every pod at once', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(statefulSetYaml('db', 'nginx:1.25', { policy: 'Parallel' }));
    await until('three pods', () => pods('db').length === 3);
    // One sync creates all three; at 20x simulated time its few wall milliseconds can straddle a
    // second of creationTimestamp (second precision), so they are within a second, not equal.
    // OrderedReady waits for each pod to be Ready first: seconds apart.
    const created = pods('db').map((pod) => Date.parse(pod.metadata.creationTimestamp!));
    expect(Math.max(...created) - Math.min(...created)).toBeLessThanOrEqual(1000);
    expect((await kubectl(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=30s'])).exitCode).toBe(0);
    // None waited for another to be Ready.
    const readyAt = (pod: KubeObject) =>
      Date.parse(
        (pod.status.conditions as { type: string; lastTransitionTime: string }[]).find((c) => c.type === 'Ready')!
          .lastTransitionTime,
      );
    expect(Math.max(...created)).toBeLessThanOrEqual(Math.min(...pods('db').map(readyAt)));
  });
});
