// What breaks a bake (verify/bake-rules.ts), on pods shaped as the API server returns them.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { KubeEvent, Pod } from '../../src/kube.js';
import { bakeLook, endedQuietly, marksOf } from '../../src/verify/bake-rules.js';
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

describe('a pod that ended Succeeded without a delete (kubernetes#120182, #141483)', () => {
  // Recorded from a real kubelet v1.37.2 (test/kube-sim/controllers/kubelet/fixtures/README.md): a
  // pod over its emptyDir sizeLimit whose container exits 0 on SIGTERM. Phase Succeeded, no reason,
  // no message, no DisruptionTarget; only the Evicted event says why.
  const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../kube-sim/controllers/kubelet/fixtures');
  const quiet = JSON.parse(readFileSync(join(fixtures, 'evicted-exit-0.pod.json'), 'utf8')) as Pod;
  const recorded = (
    JSON.parse(readFileSync(join(fixtures, 'evicted-exit-0.events.json'), 'utf8')) as { items: KubeEvent[] }
  ).items;
  const uid = quiet.metadata.uid!;
  /** The recorded events with the Evicted one's message replaced (or left out: undefined). */
  const withEviction = (message: string | undefined): KubeEvent[] =>
    recorded.flatMap((event) =>
      event.reason !== 'Evicted' ? [event] : message === undefined ? [] : [{ ...event, message }],
    );

  it('is endedQuietly, and a breach when its Evicted event names its own limit: the emptyDir, as recorded', () => {
    expect(quiet.status?.phase).toBe('Succeeded');
    expect(endedQuietly(quiet)).toBe(true);
    // Seen Ready at the last look: a pod that "left Ready" would be the wrong account of it.
    const before = marksOf([{ ...quiet, status: { ...quiet.status, phase: 'Running' } }]);
    expect(bakeLook(before, [quiet], new Map([[uid, recorded]])).breach).toEqual({
      what: 'evicted',
      why: 'evicted',
      pod: 'fill',
      summary:
        'pod fill was evicted by the kubelet: Usage of EmptyDir volume "cache" exceeds the limit "8Mi". (its containers exited 0, so the pod shows Succeeded)',
    });
  });

  it("is a breach for the pod's and a container's ephemeral-storage limit (eviction/helpers.go), the message on one line", () => {
    for (const message of [
      'Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. ',
      'Container app exceeded its local ephemeral storage limit "1Gi". ',
    ])
      expect(bakeLook(new Map(), [quiet], new Map([[uid, withEviction(message)]])).breach?.summary).toBe(
        `pod fill was evicted by the kubelet: ${message.trim()} (its containers exited 0, so the pod shows Succeeded)`,
      );
    const split = withEviction('Container app exceeded its local ephemeral storage limit "1Gi".\n::error::x');
    expect(bakeLook(new Map(), [quiet], new Map([[uid, split]])).breach?.summary).toContain(
      'limit "1Gi". ::error::x (its',
    );
  });

  it("is not a breach when the Evicted event says node pressure (the node's), or when there is no Evicted event", () => {
    // eviction/helpers.go nodeLowMessageFmt, nodeConditionMessageFmt.
    for (const message of [
      'The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi. ',
      'The node had condition: [DiskPressure]. ',
      undefined,
    ])
      expect(bakeLook(new Map(), [quiet], new Map([[uid, withEviction(message)]])).breach).toBeUndefined();
    // Events not read (or unreadable): nothing says whose fault it was.
    expect(bakeLook(new Map(), [quiet]).breach).toBeUndefined();
    // Another pod's Evicted event (same name, earlier uid) says nothing of this one.
    const other = recorded.map((event) => ({ ...event, involvedObject: { ...event.involvedObject, uid: 'earlier' } }));
    expect(bakeLook(new Map(), [quiet], new Map([[uid, other]])).breach).toBeUndefined();
  });

  it('is not endedQuietly when deleted (a scale-down), a pod that may end (restartPolicy OnFailure, Never), or not Succeeded', () => {
    const deleted = { ...quiet, metadata: { ...quiet.metadata, deletionTimestamp: '2026-12-07T17:02:20Z' } };
    const job = { ...quiet, spec: { ...quiet.spec, restartPolicy: 'OnFailure' } };
    const failed = { ...quiet, status: { ...quiet.status, phase: 'Failed', reason: 'Evicted' } };
    for (const pod of [deleted, job]) {
      expect(endedQuietly(pod)).toBe(false);
      expect(bakeLook(new Map(), [pod], new Map([[uid, recorded]])).breach).toBeUndefined();
    }
    expect(endedQuietly(failed)).toBe(false);
  });
});
