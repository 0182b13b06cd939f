// What breaks a bake (verify/bake-rules.ts), on pods shaped as the API server returns them.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import { bakeLook, marksOf } from '../../src/verify/bake-rules.js';
import { pod } from '../fixtures/load.js';

const ready = pod('running-ready') as unknown as Pod;

/** The ready pod, changed: its one container's status and the pod's Ready condition. */
function variant(
  change: {
    restartCount?: number;
    ready?: boolean;
    lastState?: object;
    state?: object;
    status?: Partial<NonNullable<Pod['status']>>;
    deleting?: boolean;
  },
  base: Pod = ready,
): Pod {
  const container = base.status!.containerStatuses![0]!;
  const isReady = change.ready ?? true;
  return {
    ...base,
    metadata: { ...base.metadata, ...(change.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) },
    status: {
      ...base.status,
      conditions: (base.status!.conditions ?? []).map((condition) =>
        condition.type === 'Ready'
          ? {
              ...condition,
              status: isReady ? 'True' : 'False',
              reason: isReady ? undefined : 'ContainersNotReady',
              message: isReady ? undefined : `containers with unready status: [${container.name}]`,
            }
          : condition,
      ),
      containerStatuses: [
        {
          ...container,
          ready: isReady,
          restartCount: change.restartCount ?? container.restartCount,
          lastState: change.lastState ?? container.lastState,
          state: change.state ?? container.state,
        },
      ],
      ...change.status,
    },
  };
}

describe('bakeLook', () => {
  const container = ready.status!.containerStatuses![0]!.name;

  it('sees nothing wrong with pods that stay Ready and do not restart', () => {
    const { breach, marks } = bakeLook(marksOf([ready]), [ready]);
    expect(breach).toBeUndefined();
    expect(marks.size).toBe(1);
  });

  it('catches a restart since the rollout was called healthy, with the last exit, and reads the crashed run', () => {
    const crashed = variant({ restartCount: 1, lastState: { terminated: { exitCode: 1, reason: 'Error' } } });
    const { breach } = bakeLook(marksOf([ready]), [crashed]);
    expect(breach).toEqual({
      what: 'restarted',
      why: 'exits',
      pod: ready.metadata.name,
      container,
      summary: `container ${container} of pod ${ready.metadata.name} restarted (exit code 1, Error)`,
      logs: { pod: ready.metadata.name, container, previous: true },
    });
  });

  it('catches a pod that leaves Ready, before the kubelet restarts its container', () => {
    const down = variant({ ready: false, state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } });
    const { breach } = bakeLook(marksOf([ready]), [down]);
    expect(breach).toMatchObject({
      what: 'left-ready',
      why: 'exits',
      summary: `pod ${ready.metadata.name} is no longer Ready: container ${container} ended (exit code 137, OOMKilled)`,
    });
  });

  it("catches the kubelet's eviction for the pod's own limit (phase Failed, reason Evicted): its replacement goes the same way", () => {
    // kubelet eviction/helpers.go containerEphemeralStorageMessageFmt.
    const message = 'Container web exceeded its local ephemeral storage limit "1Gi". ';
    const evicted = variant({ ready: false, status: { phase: 'Failed', reason: 'Evicted', message } });
    expect(bakeLook(marksOf([ready]), [evicted]).breach).toMatchObject({
      what: 'evicted',
      summary: `pod ${ready.metadata.name} was evicted by the kubelet: ${message.trim()}`,
    });
  });

  it('leaves alone a pod its node ended: evicted under node pressure, shut down, rejected (its controller replaces it)', () => {
    // kubelet eviction/helpers.go evictionMessage (memory pressure), nodeshutdown_manager_linux.go
    // (reason Terminated), kubelet.go rejectPod ("Pod was rejected: " + the admit handler's message).
    const pressure = variant({
      ready: false,
      status: {
        phase: 'Failed',
        reason: 'Evicted',
        message:
          'The node was low on resource: memory. Threshold quantity: 100Mi, available: 84Mi. Container web was using 512Mi, request is 128Mi, has larger consumption of memory. ',
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'TerminationByKubelet',
            message: 'The node was low on resource: memory. ',
          },
        ],
      },
    });
    const shutdown = variant({
      ready: false,
      status: {
        phase: 'Failed',
        reason: 'Terminated',
        message: 'Pod was terminated in response to imminent node shutdown.',
      },
    });
    const rejected = variant({
      ready: false,
      status: {
        phase: 'Failed',
        reason: 'OutOfcpu',
        message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000",
      },
    });
    for (const pod of [pressure, shutdown, rejected]) expect(bakeLook(marksOf([ready]), [pod]).breach).toBeUndefined();
  });

  it('leaves alone pods being deleted (a scale-down) and new pods that are not Ready yet (an autoscaler)', () => {
    const starting = {
      ...variant({ ready: false, state: { waiting: { reason: 'ContainerCreating' } } }),
      metadata: { ...ready.metadata, name: 'web-new', uid: 'other-uid' },
    };
    const leaving = variant({ ready: false, deleting: true });
    expect(bakeLook(marksOf([ready]), [leaving, starting]).breach).toBeUndefined();
  });

  it('remembers a pod that became Ready during the bake: leaving Ready later is a breach', () => {
    const other = { metadata: { ...ready.metadata, name: 'web-new', uid: 'other-uid' } };
    const starting = { ...variant({ ready: false }), ...other };
    const first = bakeLook(marksOf([]), [starting]);
    const second = bakeLook(first.marks, [{ ...ready, ...other }]);
    expect(second.breach).toBeUndefined();
    expect(bakeLook(second.marks, [starting]).breach).toMatchObject({ what: 'left-ready', pod: 'web-new' });
  });
});
