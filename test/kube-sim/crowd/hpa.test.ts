// The HPA controller under the real kubectl: it scales its target through /scale as
// kube-controller-manager (managedFields: subresource scale), writes its status and conditions,
// clamps to min/max, and scales back after a kubectl apply puts the manifest's replicas back.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { firstSeen, waitFor } from '../controllers/harness.js';
import { deploymentYaml, hpaYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const replicas = (name: string) => cluster!.store.get('Deployment', 'default', name)?.spec.replicas as number;
const hpa = (name: string) => cluster!.store.get('HorizontalPodAutoscaler', 'default', name)!;
const conditions = (name: string) =>
  Object.fromEntries(
    ((hpa(name).status?.conditions ?? []) as { type: string; reason: string; message: string; status: string }[]).map(
      (c) => [c.type, `${c.status} ${c.reason}: ${c.message}`],
    ),
  );

describe('HPA controller', () => {
  it('scales the Deployment through /scale as kube-controller-manager and reports it in its status', async () => {
    cluster = await startCluster({
      timeScale: 20,
      scenario: { autoscaling: { desiredReplicas: { 'default/web': 5 } } },
    });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${deploymentYaml('web', 'nginx:1.25', { replicas: 2 })}---\n${hpaYaml('web', 2, 6)}`,
    );
    await waitFor('the HPA to scale web to 5', () => replicas('web') === 5);

    const entries = cluster.store.get('Deployment', 'default', 'web')!.metadata['managedFields'] as Record<
      string,
      unknown
    >[];
    expect(entries.find((entry) => entry['subresource'] === 'scale')).toMatchObject({
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    await waitFor('the HPA status', () => hpa('web').status?.desiredReplicas === 5);
    expect(hpa('web').status).toMatchObject({ currentReplicas: 2, desiredReplicas: 5 });
    expect(hpa('web').status.lastScaleTime).toBeDefined();
    expect(conditions('web')).toEqual({
      AbleToScale: 'True SucceededRescale: the HPA controller was able to update the target scale to 5',
      ScalingActive:
        'True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
      ScalingLimited: 'False DesiredWithinRange: the desired count is within the acceptable range',
    });
    const statusEntry = (hpa('web').metadata['managedFields'] as Record<string, unknown>[]).find(
      (entry) => entry['subresource'] === 'status',
    );
    expect(statusEntry).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update' });
    const events = cluster.store
      .list('Event', 'default')
      .filter((event) => (event['involvedObject'] as { kind: string }).kind === 'HorizontalPodAutoscaler');
    expect(
      events.map((event) => [event['reason'], event['message'], (event['source'] as { component: string }).component]),
    ).toEqual([
      [
        'SuccessfulRescale',
        'New size: 5; reason: cpu resource utilization (percentage of request) above target',
        'horizontal-pod-autoscaler',
      ],
    ]);

    const table = await kubectl(cluster, ['get', 'hpa', 'web']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    expect(table.stdout.split('\n')[1]).toMatch(/^web\s+Deployment\/web\s+cpu: <unknown>\/70%\s+2\s+6\s+[25]\s+\d+s$/);

    // The next sync finds the count where it wants it.
    await waitFor('ReadyForNewScale', () => conditions('web')['AbleToScale']?.includes('ReadyForNewScale'));
    expect(hpa('web').status).toMatchObject({ currentReplicas: 5, desiredReplicas: 5 });

    // kubectl apply puts the manifest's 2 back (it owns spec.replicas too); the HPA scales to 5 again.
    const sawTwo = firstSeen(cluster.store, 'replicas back at 2', () => replicas('web') === 2);
    const reapplied = await kubectl(
      cluster,
      ['apply', '-f', '-'],
      deploymentYaml('web', 'nginx:1.25', { replicas: 2 }),
    );
    expect(reapplied.stdout).toBe('deployment.apps/web configured');
    await sawTwo;
    await waitFor('the HPA to scale web to 5 again', () => replicas('web') === 5);
  });

  it('clamps to maxReplicas (TooManyReplicas) and brings a target below minReplicas up', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { autoscaling: { desiredReplicas: { busy: 40 } } } });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${deploymentYaml('busy', 'nginx:1.25', { replicas: 3 })}---\n${hpaYaml('busy', 1, 4)}---\n${deploymentYaml('small', 'nginx:1.25', { replicas: 1 })}---\n${hpaYaml('small', 3, 5)}`,
    );
    await waitFor('busy at its max', () => replicas('busy') === 4);
    await waitFor('the busy HPA status', () => hpa('busy').status?.desiredReplicas === 4);
    expect(conditions('busy')['ScalingLimited']).toBe(
      'True TooManyReplicas: the desired replica count is more than the maximum replica count',
    );
    await waitFor('small at its min', () => replicas('small') === 3);
    const events = cluster.store
      .list('Event', 'default')
      .filter((event) => (event['involvedObject'] as { name: string }).name === 'small');
    expect(events.map((event) => event['message'])).toContain(
      'New size: 3; reason: Current number of replicas below Spec.MinReplicas',
    );
  });

  it('owns spec.replicas after scaling, so a server-side apply of other replicas conflicts with it', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { autoscaling: { desiredReplicas: { web: 4 } } } });
    await kubectl(cluster, ['apply', '--server-side', '-f', '-'], deploymentYaml('web', 'nginx:1.25', { replicas: 2 }));
    await kubectl(cluster, ['apply', '-f', '-'], hpaYaml('web', 1, 5));
    await waitFor('the HPA to scale web to 4', () => replicas('web') === 4);
    const conflicting = await kubectl(
      cluster,
      ['apply', '--server-side', '-f', '-'],
      deploymentYaml('web', 'nginx:1.26', { replicas: 2 }),
    );
    expect(conflicting.exitCode).toBe(1);
    expect(conflicting.stderr).toContain(
      'error: Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "scale" using apps/v1: .spec.replicas',
    );
    expect(replicas('web')).toBe(4);
  });

  it('scales down only after the 300 s stabilization window (the annotation knob)', async () => {
    cluster = await startCluster({ timeScale: 100 });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${deploymentYaml('web', 'nginx:1.25', { replicas: 2 })}---\n${hpaYaml('web', 1, 6)}`,
    );
    await kubectl(cluster, ['annotate', 'hpa', 'web', 'sim.kguard.dev/desired-replicas=5']);
    await waitFor('web at 5', () => replicas('web') === 5);
    await kubectl(cluster, ['annotate', '--overwrite', 'hpa', 'web', 'sim.kguard.dev/desired-replicas=2']);
    const loweredAt = cluster.clock.now().getTime();
    await waitFor('ScaleDownStabilized', () => conditions('web')['AbleToScale']?.includes('ScaleDownStabilized'));
    expect(conditions('web')['AbleToScale']).toBe(
      'True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation',
    );
    expect(replicas('web')).toBe(5);
    await waitFor('web down to 2', () => replicas('web') === 2, 20_000);
    expect(cluster.clock.now().getTime() - loweredAt).toBeGreaterThanOrEqual(270_000);
    const messages = cluster.store
      .list('Event', 'default')
      .filter((event) => event['reason'] === 'SuccessfulRescale')
      .map((event) => event['message']);
    expect(messages).toContain('New size: 2; reason: All metrics below target');
  });

  it('reports a missing target: AbleToScale False FailedGetScale', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(cluster, ['apply', '-f', '-'], hpaYaml('ghost', 1, 3));
    await waitFor('FailedGetScale', () => conditions('ghost')['AbleToScale']);
    expect(conditions('ghost')['AbleToScale']).toBe(
      'False FailedGetScale: the HPA controller was unable to get the target\'s current scale: deployments.apps "ghost" not found',
    );
  });
});
