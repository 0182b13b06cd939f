// Whether a workload's last rollout is complete, as kubectl rollout status decides it (kinds/workloads/unsettled.ts),
// by the kinds' own rules (deployment.ts, statefulset.ts, daemonset.ts), in their words.
import { describe, expect, it } from 'vitest';
import { unsettledDaemonSet, unsettledDeployment, unsettledStatefulSet } from '../../src/kinds/workloads/unsettled.js';
import type { KubeObject } from '../../src/objects/model.js';
import type { StatefulSet } from '../../src/kube.js';
import { statefulSetWait } from '../../src/kinds/workloads/statefulset.js';

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
    ).toBe('1 out of 2 new replicas have been updated');
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
      /revision db-2/,
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
    expect(unsettledDaemonSet(daemons)).toBe(
      'waiting for daemon set rollout to finish: 2 out of 4 new pods have been updated',
    );
  });
});

describe('unsettledStatefulSet with rollingUpdate.partition', () => {
  // kubectl's StatefulSetStatusViewer (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go):
  // once rollingUpdate is set, it waits only for status.updatedReplicas to reach
  // replicas - partition ("Waiting for partitioned roll out to finish: %d out of %d new pods have
  // been updated"), then answers "partitioned roll out complete"; it never compares revisions there.
  // The statefulset controller leaves currentRevision at the old revision while a pod below the
  // partition still runs it (completeRollingUpdate advances it only once every replica is updated).
  const partitioned = (partition: number, status: Record<string, unknown>) =>
    ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop', generation: 2 },
      spec: { replicas: 3, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } },
      status: {
        observedGeneration: 2,
        replicas: 3,
        readyReplicas: 3,
        currentRevision: 'db-5d8f7c6b9',
        updateRevision: 'db-7b9c4d5f8',
        ...status,
      },
    }) as unknown as KubeObject;

  it('is settled once every pod at or above the partition is updated, with db-0 still at the old revision', () => {
    expect(unsettledStatefulSet(partitioned(1, { currentReplicas: 1, updatedReplicas: 2 }))).toBeUndefined();
  });

  it("waits for the pods above the partition, in the viewer's words", () => {
    expect(unsettledStatefulSet(partitioned(1, { currentReplicas: 2, updatedReplicas: 1 }))).toBe(
      'waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated',
    );
  });

  it("counts updated replicas, not revisions, at partition 0 (the API server's default) too", () => {
    expect(unsettledStatefulSet(partitioned(0, { currentReplicas: 1, updatedReplicas: 2 }))).toBe(
      'waiting for partitioned roll out to finish: 2 out of 3 new pods have been updated',
    );
    expect(unsettledStatefulSet(partitioned(0, { currentReplicas: 0, updatedReplicas: 3 }))).toBeUndefined();
  });

  it("is the tracker's rule: the row's statefulSetWait gives the same answer", () => {
    const waiting = partitioned(1, { currentReplicas: 2, updatedReplicas: 1 });
    expect(unsettledStatefulSet(waiting)).toBe(statefulSetWait(waiting as unknown as StatefulSet));
  });
});
