import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../types.js';
import {
  condition,
  deployment,
  eventsFor,
  getDeployment,
  podsOf,
  replicaSetsOf,
  simForThisTest,
  updateTemplate,
  waitFor,
} from './harness.js';

const revisionOf = (obj: KubeObject | undefined) => obj?.metadata.annotations?.['deployment.kubernetes.io/revision'];

function isComplete(d: KubeObject | undefined): boolean {
  const replicas = d?.spec.replicas ?? 1;
  return (
    !!d &&
    d.status?.observedGeneration === d.metadata.generation &&
    d.status?.updatedReplicas === replicas &&
    d.status?.availableReplicas === replicas &&
    d.status?.replicas === replicas &&
    condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable'
  );
}

describe('deployment controller', () => {
  it('rolls out a new deployment as revision 1 and reports NewReplicaSetAvailable', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web', { replicas: 2 }));
    const done = await waitFor('rollout complete', () =>
      isComplete(getDeployment(store, 'web')) ? getDeployment(store, 'web') : undefined,
    );

    expect(revisionOf(done)).toBe('1');
    const [rs] = replicaSetsOf(store, created);
    expect(rs).toBeDefined();
    const hash = rs!.metadata.labels!['pod-template-hash']!;
    expect(rs!.metadata.name).toBe(`web-${hash}`);
    expect(rs!.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs!.spec.template.metadata.labels['pod-template-hash']).toBe(hash);
    expect(rs!.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(rs!.metadata.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
    expect(condition(done, 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
    });
    expect(condition(done, 'Progressing')).toMatchObject({
      status: 'True',
      message: `ReplicaSet "${rs!.metadata.name}" has successfully progressed.`,
    });
    expect(done!.status).toMatchObject({ readyReplicas: 2 });
    expect(done!.status.unavailableReplicas).toBeUndefined();

    const pods = podsOf(store, rs!);
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.metadata.name).toMatch(new RegExp(`^${rs!.metadata.name}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(pod.status.phase).toBe('Running');
    }
    const messages = eventsFor(store, 'web').map((event) => `${event.reason}: ${event.message}`);
    expect(messages).toContain(`ScalingReplicaSet: Scaled up replica set ${rs!.metadata.name} from 0 to 2`);
    expect(eventsFor(store, rs!.metadata.name).map((event) => event.reason)).toContain('SuccessfulCreate');
  });

  it('creates revision 2 for a new image and scales the old ReplicaSet to 0 within maxSurge', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(
      deployment('web', {
        replicas: 4,
        spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      }),
    );
    await waitFor('first rollout', () => isComplete(getDeployment(store, 'web')));
    let maxTotal = 0;
    const unsubscribe = store.subscribe(() => {
      maxTotal = Math.max(
        maxTotal,
        replicaSetsOf(store, created).reduce((sum, rs) => sum + (rs.spec.replicas ?? 0), 0),
      );
    });
    updateTemplate(store, 'web', (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    const done = await waitFor('second rollout', () => {
      const d = getDeployment(store, 'web');
      return isComplete(d) && revisionOf(d) === '2' ? d : undefined;
    });
    unsubscribe();

    const sets = replicaSetsOf(store, created);
    expect(sets).toHaveLength(2);
    const newRS = sets.find((rs) => revisionOf(rs) === '2')!;
    const oldRS = sets.find((rs) => revisionOf(rs) === '1')!;
    expect(newRS.spec.template.spec.containers[0].image).toBe('nginx:1.26');
    expect(newRS.spec.replicas).toBe(4);
    expect(oldRS.spec.replicas).toBe(0);
    expect(maxTotal).toBe(5); // replicas + maxSurge, never more
    expect(done!.metadata.generation).toBe(2);
    const scaling = eventsFor(store, 'web')
      .filter((e) => e.reason === 'ScalingReplicaSet')
      .map((e) => e.message);
    expect(scaling).toContain(`Scaled up replica set ${newRS.metadata.name} from 0 to 1`);
    expect(scaling).toContain(`Scaled down replica set ${oldRS.metadata.name} from 4 to 3`);
  });

  it('reuses the old ReplicaSet when the template is rolled back and moves it to the next revision', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web'));
    await waitFor('revision 1', () => isComplete(getDeployment(store, 'web')));
    const firstRS = replicaSetsOf(store, created)[0]!;
    updateTemplate(store, 'web', (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await waitFor(
      'revision 2',
      () => isComplete(getDeployment(store, 'web')) && revisionOf(getDeployment(store, 'web')) === '2',
    );

    // What `kubectl rollout undo` sends: the old template as a Go object, with empty fields.
    updateTemplate(store, 'web', (d) => {
      d.spec.template = {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }], resources: {} }] },
      };
    });
    const done = await waitFor('revision 3', () => {
      const d = getDeployment(store, 'web');
      return isComplete(d) && revisionOf(d) === '3' ? d : undefined;
    });
    const sets = replicaSetsOf(store, created);
    expect(sets).toHaveLength(2);
    const reused = sets.find((rs) => rs.metadata.uid === firstRS.metadata.uid)!;
    expect(revisionOf(reused)).toBe('3');
    expect(reused.metadata.annotations!['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(reused.spec.replicas).toBe(2);
    expect(revisionOf(done)).toBe('3');
  });

  it('copies the Deployment annotations onto its ReplicaSet except the revision ones and last-applied', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(
      deployment('web', {
        annotations: {
          'kubernetes.io/change-cause': 'first',
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
        },
      }),
    );
    const rs = await waitFor('rs', () => replicaSetsOf(store, created)[0]);
    expect(rs.metadata.annotations!['kubernetes.io/change-cause']).toBe('first');
    expect(rs.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
  });

  it('reports ProgressDeadlineExceeded when the new pods never become available', async () => {
    const sim = simForThisTest({ registry: { 'nginx:9.99': 'missing' } });
    const { store } = sim;
    store.create(deployment('web', { image: 'nginx:9.99', spec: { progressDeadlineSeconds: 30 } }));
    const timedOut = await waitFor('deadline', () => {
      const progressing = condition(getDeployment(store, 'web'), 'Progressing');
      return progressing?.reason === 'ProgressDeadlineExceeded' ? progressing : undefined;
    });
    const rsName = replicaSetsOf(store, getDeployment(store, 'web')!)[0]!.metadata.name;
    expect(timedOut).toMatchObject({ status: 'False', message: `ReplicaSet "${rsName}" has timed out progressing.` });
    expect(condition(getDeployment(store, 'web'), 'Available')).toMatchObject({
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    });
  });

  it('honours spec.paused: a template change creates no new ReplicaSet until resumed', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web', { replicas: 1 }));
    await waitFor('rollout', () => isComplete(getDeployment(store, 'web')));
    updateTemplate(store, 'web', (d) => {
      d.spec.paused = true;
      d.spec.template.spec.containers[0].image = 'nginx:1.26';
    });
    await waitFor(
      'paused condition',
      () => condition(getDeployment(store, 'web'), 'Progressing')?.reason === 'DeploymentPaused',
    );
    expect(replicaSetsOf(store, created)).toHaveLength(1);
    updateTemplate(store, 'web', (d) => (d.spec.paused = false));
    await waitFor(
      'resumed rollout',
      () => isComplete(getDeployment(store, 'web')) && revisionOf(getDeployment(store, 'web')) === '2',
    );
    expect(replicaSetsOf(store, created)).toHaveLength(2);
  });

  it('Recreate scales the old ReplicaSet to 0 before creating the new one', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web', { replicas: 2, spec: { strategy: { type: 'Recreate' } } }));
    await waitFor('rollout', () => isComplete(getDeployment(store, 'web')));
    let overlap = false;
    const unsubscribe = store.subscribe(() => {
      const active = replicaSetsOf(store, created).filter(
        (rs) => (rs.status?.replicas ?? 0) > 0 || rs.spec.replicas > 0,
      );
      if (active.length > 1) overlap = true;
    });
    updateTemplate(store, 'web', (d) => (d.spec.template.spec.containers[0].image = 'nginx:1.26'));
    await waitFor(
      'recreated',
      () => isComplete(getDeployment(store, 'web')) && revisionOf(getDeployment(store, 'web')) === '2',
    );
    unsubscribe();
    expect(overlap).toBe(false);
  });

  it('deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web', { replicas: 1, spec: { revisionHistoryLimit: 1 } }));
    for (const [index, image] of ['nginx:1.25', 'nginx:1.26', 'nginx:1.27'].entries()) {
      if (index > 0) updateTemplate(store, 'web', (d) => (d.spec.template.spec.containers[0].image = image));
      await waitFor(
        `revision ${index + 1}`,
        () => isComplete(getDeployment(store, 'web')) && revisionOf(getDeployment(store, 'web')) === String(index + 1),
      );
    }
    const revisions = await waitFor('cleanup', () => {
      const sets = replicaSetsOf(store, created);
      return sets.length === 2 ? sets.map(revisionOf).sort() : undefined;
    });
    expect(revisions).toEqual(['2', '3']);
  });

  it('scales proportionally when replicas change', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    const created = store.create(deployment('web', { replicas: 2 }));
    await waitFor('rollout', () => isComplete(getDeployment(store, 'web')));
    updateTemplate(store, 'web', (d) => (d.spec.replicas = 5));
    await waitFor('scaled', () => isComplete(getDeployment(store, 'web')));
    expect(replicaSetsOf(store, created)[0]!.spec.replicas).toBe(5);
    expect(eventsFor(store, 'web').map((e) => e.message)).toContain(
      `Scaled up replica set ${replicaSetsOf(store, created)[0]!.metadata.name} from 2 to 5`,
    );
  });

  it('terminates scaled-down pods gracefully: deletionTimestamp, Killing, then gone', async () => {
    const sim = simForThisTest();
    const { store } = sim;
    store.create(deployment('web', { replicas: 2 }));
    await waitFor('rollout', () => isComplete(getDeployment(store, 'web')));
    const terminating: KubeObject[] = [];
    store.subscribe(({ type, object }) => {
      if (type === 'MODIFIED' && object.kind === 'Pod' && object.metadata.deletionTimestamp) terminating.push(object);
    });
    updateTemplate(store, 'web', (d) => (d.spec.replicas = 1));
    const pod = await waitFor('a Terminating pod', () => terminating[0]);
    expect(pod.metadata.deletionGracePeriodSeconds).toBe(30);
    await waitFor('gone', () => !store.get('Pod', 'default', pod.metadata.name));
    expect(eventsFor(store, pod.metadata.name).map((e) => `${e.reason}: ${e.message}`)).toContain(
      'Killing: Stopping container app',
    );
    // deletionTimestamp is "now + grace period" at the deletion: compare it with the Killing Event the
    // kubelet wrote as it saw the deletion (same instant, both second precision), not with when this
    // test looked. Killing comes no earlier than the deletion, so at most 30 s apart; a deletionTimestamp
    // of "now" (no grace) would be ~0 s.
    const killing = eventsFor(store, pod.metadata.name).find((e) => e.reason === 'Killing')!;
    const ahead = Date.parse(pod.metadata.deletionTimestamp!) - Date.parse(String(killing.firstTimestamp));
    expect(ahead).toBeGreaterThan(25_000);
    expect(ahead).toBeLessThanOrEqual(30_000);
    expect(store.list('Pod', 'default', 'app=web')).toHaveLength(1);
  });
});
