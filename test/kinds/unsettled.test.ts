// Whether a workload's last rollout is complete, as kubectl rollout status decides it (kinds/workloads/unsettled.ts).
import { describe, expect, it } from 'vitest';
import { unsettledDaemonSet, unsettledDeployment, unsettledStatefulSet } from '../../src/kinds/workloads/unsettled.js';
import type { KubeObject } from '../../src/objects/model.js';

const deployment = (generation: number, spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', generation },
    spec,
    status,
  }) as unknown as KubeObject;

describe('unsettledDeployment', () => {
  it('is settled when every replica is updated and available (status as the deployment controller writes it)', () => {
    const done = deployment(
      3,
      { replicas: 2 },
      {
        observedGeneration: 3,
        replicas: 2,
        updatedReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
      },
    );
    expect(unsettledDeployment(done)).toBeUndefined();
  });

  it('waits for a new revision that is not rolled out, and for old replicas going away', () => {
    expect(
      unsettledDeployment(
        deployment(
          2,
          { replicas: 2 },
          { observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 2 },
        ),
      ),
    ).toBe('1 of 2 new replicas have been updated');
    expect(
      unsettledDeployment(
        deployment(
          2,
          { replicas: 2 },
          { observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2 },
        ),
      ),
    ).toBe('1 old replicas are pending termination');
    expect(unsettledDeployment(deployment(4, { replicas: 2 }, { observedGeneration: 3 }))).toMatch(/not been observed/);
  });

  it('calls a rollout past its progress deadline unsettled', () => {
    const stuck = deployment(
      2,
      { replicas: 2 },
      {
        observedGeneration: 2,
        replicas: 3,
        updatedReplicas: 1,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
      },
    );
    expect(unsettledDeployment(stuck)).toBe('its rollout exceeded its progress deadline');
  });
});

describe('unsettledStatefulSet and unsettledDaemonSet', () => {
  it('wait for the update revision and for scheduled pods; OnDelete is never waited for', () => {
    const set = (status: Record<string, unknown>, strategy = 'RollingUpdate') =>
      ({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: 'shop', generation: 2 },
        spec: { replicas: 3, updateStrategy: { type: strategy } },
        status: { observedGeneration: 2, ...status },
      }) as unknown as KubeObject;
    expect(unsettledStatefulSet(set({ readyReplicas: 3, currentRevision: 'db-1', updateRevision: 'db-2' }))).toMatch(
      /update revision db-2/,
    );
    expect(unsettledStatefulSet(set({ readyReplicas: 3, currentRevision: 'db-2', updateRevision: 'db-2' }))).toBe(
      undefined,
    );
    expect(unsettledStatefulSet(set({ readyReplicas: 1 }, 'OnDelete'))).toBeUndefined();
    const daemons = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'shop', generation: 5 },
      spec: { updateStrategy: { type: 'RollingUpdate' } },
      status: { observedGeneration: 5, desiredNumberScheduled: 4, updatedNumberScheduled: 2, numberAvailable: 4 },
    } as unknown as KubeObject;
    expect(unsettledDaemonSet(daemons)).toBe('2 of 4 updated pods are scheduled');
  });
});
