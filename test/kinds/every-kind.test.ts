// One engine for every kind that has pods: what used to differ between Deployment's own engine and
// the shared one (pod counts, flap memory, clues read from events) now holds for all of them.
// Each workload is a real-shaped fixture; the pods are the same kubelet fixtures, made pods of the
// workload's new revision the way its controller labels and owns them.
import { describe, expect, it } from 'vitest';
import { judge, rememberSeen } from '../../src/kinds/engine.js';
import { NO_OVERRIDES } from '../../src/kinds/overrides.js';
import { rowFor } from '../../src/kinds/table.js';
import type { Pod } from '../../src/kube.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import { type KubeObject, refOf } from '../../src/objects/model.js';
import { trackRollouts } from '../../src/track/tracker.js';
import { expectationOf, FakeClock, RecordingReporter, snapshotFrom } from '../fakes.js';
import { deployment, events, fixture, pod, replicaSet } from '../fixtures/load.js';
import type { KubeEvent } from '../../src/kube.js';
import { POLLED_ROLLOUT as options } from '../track/track-fixtures.js';

interface KindCase {
  kind: string;
  /** The workload as applied, with its rollout under way. */
  applied(podsFor: (pods: Pod[]) => Pod[], pods: Pod[]): KubeObject;
  /** The same workload once its rollout is done (same spec: nobody else changed it). */
  done(applied: KubeObject): KubeObject;
  /** Makes a kubelet fixture a pod of the new revision. */
  newPod(applied: KubeObject, base: Pod): Pod;
  /** Other objects a look reads beside it (a Deployment's ReplicaSets). */
  others(): KubeObject[];
  /** For a bare Pod the pod is the workload: the look's pods are the object itself. */
  bare?: boolean;
}

const owned = (base: Pod, owner: KubeObject, labels: Record<string, string> = {}): Pod => {
  const copy = structuredClone(base);
  copy.metadata.ownerReferences = [
    {
      apiVersion: owner.apiVersion,
      kind: owner.kind,
      name: owner.metadata.name,
      uid: owner.metadata.uid ?? '',
      controller: true,
    },
  ];
  copy.metadata.labels = { ...copy.metadata.labels, ...labels };
  return copy;
};

const KINDS: KindCase[] = [
  {
    kind: 'Deployment',
    applied: () => deployment('progressing-new-rs') as unknown as KubeObject,
    done: (applied) => ({ ...applied, status: deployment('complete').status }),
    // The fixtures' pods already belong to the new ReplicaSet (web-7d9c6b8f4d).
    newPod: (_applied, base) => structuredClone(base),
    others: () => [replicaSet('progressing-old'), replicaSet('progressing-new')] as unknown as KubeObject[],
  },
  {
    kind: 'StatefulSet',
    applied: () => fixture('statefulsets/rolling-stuck'),
    done: (applied) => {
      const replicas = (applied['spec'] as { replicas?: number }).replicas ?? 1;
      const revision = (applied['status'] as { updateRevision: string }).updateRevision;
      const status = {
        observedGeneration: applied.metadata.generation,
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        updatedReplicas: replicas,
        currentRevision: revision,
        updateRevision: revision,
      };
      return { ...applied, status };
    },
    newPod: (applied, base) =>
      owned(base, applied, {
        'controller-revision-hash': (applied['status'] as { updateRevision: string }).updateRevision,
      }),
    others: () => [],
  },
  {
    kind: 'DaemonSet',
    applied: () => fixture('daemonsets/rolling'),
    done: (applied) => {
      const desired = (applied['status'] as { desiredNumberScheduled: number }).desiredNumberScheduled;
      const status = {
        observedGeneration: applied.metadata.generation,
        desiredNumberScheduled: desired,
        updatedNumberScheduled: desired,
        numberReady: desired,
        numberAvailable: desired,
        currentNumberScheduled: desired,
      };
      return { ...applied, status };
    },
    newPod: (applied, base) =>
      owned(base, applied, {
        'pod-template-generation': applied.metadata.annotations?.['deprecated.daemonset.template.generation'] ?? '',
      }),
    others: () => [],
  },
  {
    kind: 'Job',
    applied: () => fixture('jobs/running'),
    done: (applied) => ({
      ...applied,
      status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True', reason: 'CompletionsReached' }] },
    }),
    newPod: (applied, base) => owned(base, applied),
    others: () => [],
  },
  {
    kind: 'Pod',
    bare: true,
    applied: (_podsFor, pods) => pods[0] as unknown as KubeObject,
    done: (applied) => ({ ...applied, status: pod('running-ready').status }),
    newPod: (_applied, base) => structuredClone(base),
    others: () => [],
  },
];

/** The workload applied with `bases` as its new pods: the object and the look that reads them. */
function scene(kind: KindCase, bases: Pod[]) {
  if (kind.bare) {
    const object = structuredClone(bases[0]!) as unknown as KubeObject;
    return {
      applied: object,
      pods: [object as unknown as Pod],
      look: (object: KubeObject, pods: Pod[]) =>
        snapshotFrom({ others: [object], pods: pods.filter((candidate) => candidate !== (object as unknown)) }),
    };
  }
  const applied = kind.applied(() => [], []);
  const pods = bases.map((base) => kind.newPod(applied, base));
  return {
    applied,
    pods,
    look: (object: KubeObject, looked: Pod[]) => snapshotFrom({ others: [object, ...kind.others()], pods: looked }),
  };
}

function cluster(looks: WorkloadSnapshot[], podEvents: Record<string, KubeEvent[]> = {}) {
  let reads = 0;
  return {
    async workloadSnapshot(): Promise<WorkloadSnapshot> {
      reads += 1;
      return looks[Math.min(reads - 1, looks.length - 1)]!;
    },
    async events(_namespace: string, name: string): Promise<KubeEvent[]> {
      return podEvents[name] ?? [];
    },
  };
}

describe.each(KINDS.map((kind) => [kind.kind, kind] as const))('%s, by the shared engine', (_name, kind) => {
  it('fails at once when two new pods are evicted over their own limits', async () => {
    const bases = kind.bare
      ? [pod('evicted-ephemeral-storage')]
      : [pod('evicted-ephemeral-storage'), pod('evicted-ephemeral-storage-2')];
    const { applied, pods, look } = scene(kind, bases);
    const clock = new FakeClock();
    const tracked = await trackRollouts([{ workload: refOf(applied), expected: expectationOf(applied) }], options, {
      kubectl: cluster([look(applied, pods)]),
      clock,
      reporter: new RecordingReporter(),
    });
    const result = [...tracked.values()][0]!;
    expect(result.verdict.state).toBe('failed');
    // The eviction policy's 120 s grace is not waited for: the pod count decides.
    expect(clock.now()).toBe(0);
  });

  it('reads the events of a new pod stuck creating its containers, and fails a FailedMount after its grace', async () => {
    const { applied, pods, look } = scene(kind, [pod('container-creating')]);
    const clock = new FakeClock();
    const tracked = await trackRollouts([{ workload: refOf(applied), expected: expectationOf(applied) }], options, {
      kubectl: cluster([look(applied, pods)], { [pods[0]!.metadata.name]: events('failed-mount') }),
      clock,
      reporter: new RecordingReporter(),
    });
    const result = [...tracked.values()][0]!;
    expect(result.verdict.state).toBe('failed');
    expect(result.diagnosis?.summary).toBe('new pods cannot mount their volumes: FailedMount');
    expect(clock.now()).toBeGreaterThanOrEqual(35_000);
  });

  it('waits out a ≤1.31 kubelet rate limit (ErrImagePull 429, then a bare back-off) and ends healthy', async () => {
    const { applied, pods, look } = scene(kind, [pod('image-pull-backoff-1.31')]);
    const backingOff = look(applied, pods);
    const done = kind.done(applied);
    const ready = kind.bare ? [] : [kind.newPod(applied, pod('running-ready'))];
    const looks = [...Array.from({ length: 13 }, () => backingOff), look(done, ready)];
    const tracked = await trackRollouts([{ workload: refOf(applied), expected: expectationOf(applied) }], options, {
      kubectl: cluster(looks, { [pods[0]!.metadata.name]: events('image-pull-backoff-1.31') }),
      clock: new FakeClock(),
      reporter: new RecordingReporter(),
    });
    expect([...tracked.values()][0]?.verdict.state).toBe('healthy');
  });

  it("keeps a flapping container's first-seen time while it briefly runs between crashes", () => {
    const { applied, pods, look } = scene(kind, [pod('crash-loop-backoff')]);
    const rules = rowFor(applied).rules(NO_OVERRIDES)!;
    const expected = expectationOf(applied);
    const crashing = look(applied, pods);
    const runningBetween = pods.map((candidate) => {
      const copy = structuredClone(candidate);
      for (const status of copy.status?.containerStatuses ?? []) {
        status.state = { running: { startedAt: '2026-11-30T10:16:00Z' } };
        status.ready = false;
      }
      return copy;
    });
    const flapped = look(kind.bare ? (runningBetween[0] as unknown as KubeObject) : applied, runningBetween);
    const at = (now: number) => ({ now, startedAt: 0, timeoutMs: 600_000 });
    const crashingObject = kind.bare ? (pods[0] as unknown as KubeObject) : applied;
    const flappedObject = kind.bare ? (runningBetween[0] as unknown as KubeObject) : applied;
    const crashKey = `${pods[0]!.metadata.name}/app/crash`;
    const first = judge(rules, { object: crashingObject, snapshot: crashing }, expected, new Map(), at(0));
    let seen = rememberSeen(rules, new Map(), first, 0, { object: crashingObject, snapshot: crashing }, expected);
    expect(seen.get(crashKey)).toBe(0);
    const between = judge(rules, { object: flappedObject, snapshot: flapped }, expected, seen, at(10_000));
    expect(between.state).toBe('progressing');
    seen = rememberSeen(rules, seen, between, 10_000, { object: flappedObject, snapshot: flapped }, expected);
    // Not ready while it runs: the crash family keeps the time it first failed.
    expect(seen.get(crashKey)).toBe(0);
  });
});
