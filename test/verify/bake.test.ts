// The bake loop (verify/bake.ts) on a scripted cluster and a clock that advances instantly: what
// --settle did in the tracker, asked more strictly, after the checks.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import type { VerifyOutcome } from '../../src/model/verify.js';
import { bake, type BakeTarget } from '../../src/verify/bake.js';
import { expectationOf, FakeClock, RecordingReporter, snapshotFrom } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

function scripted(snapshots: WorkloadSnapshot[]) {
  let reads = 0;
  return {
    async workloadSnapshot() {
      reads += 1;
      return snapshots[Math.min(reads - 1, snapshots.length - 1)]!;
    },
    async events() {
      return [];
    },
    async logs() {
      return { ok: true as const, text: 'serving\npanic: nil map\n' };
    },
    reads: () => reads,
  };
}

const complete = deployment('complete');
const ready = pod('running-ready') as unknown as Pod;
const target: BakeTarget = {
  workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
  expected: expectationOf(complete),
  baseline: [ready],
};
const run = { durationMs: 30_000, pollIntervalMs: 2000, watch: false, logLines: 5, verifyIntervalMs: 0 };
const healthy = snapshotFrom({ deployments: [complete], replicaSets: [replicaSet('complete-new')], pods: [ready] });

describe('bake', () => {
  it('passes a workload that stays healthy for the whole bake, and no longer', async () => {
    const clock = new FakeClock();
    const reporter = new RecordingReporter();
    const { outcome } = await bake([target], run, { kubectl: scripted([healthy]), clock, reporter });
    expect(outcome).toMatchObject({ passed: true, durationMs: 30_000, elapsedMs: 30_000, checksRun: 0 });
    expect(clock.now()).toBe(30_000);
    expect(reporter.kinds()).toEqual(['bake-started', 'baked']);
  });

  it("fails at the first look that sees a restart, with the crashed run's last lines", async () => {
    const restarted = structuredClone(ready);
    restarted.status!.containerStatuses![0]!.restartCount = 1;
    restarted.status!.containerStatuses![0]!.lastState = { terminated: { exitCode: 2, reason: 'Error' } };
    const clock = new FakeClock();
    const reporter = new RecordingReporter();
    const crashing = snapshotFrom({
      deployments: [complete],
      replicaSets: [replicaSet('complete-new')],
      pods: [restarted],
    });
    const { outcome } = await bake([target], run, {
      kubectl: scripted([healthy, healthy, healthy, crashing]),
      clock,
      reporter,
    });
    expect(outcome).toMatchObject({ passed: false, stoppedBy: 'workload', elapsedMs: 6000, workload: target.workload });
    expect(outcome.summary).toBe(`container app of pod ${ready.metadata.name} restarted (exit code 2, Error)`);
    expect(outcome.logs).toEqual([
      { pod: ready.metadata.name, container: 'app', previous: true, lines: ['serving', 'panic: nil map'], shown: 5 },
    ]);
    expect(reporter.kinds()).toEqual(['bake-started', 'bake-failed']);
  });

  it('catches a restart that happened before the bake began (while the checks ran): the first marks are the pods at the healthy verdict', async () => {
    const restarted = structuredClone(ready);
    restarted.status!.containerStatuses![0]!.restartCount = 1;
    const crashing = snapshotFrom({
      deployments: [complete],
      replicaSets: [replicaSet('complete-new')],
      pods: [restarted],
    });
    const { outcome } = await bake([target], run, {
      kubectl: scripted([crashing]),
      clock: new FakeClock(),
      reporter: new RecordingReporter(),
    });
    expect(outcome).toMatchObject({ passed: false, elapsedMs: 0 });
  });

  it('runs the checks again every --verify-interval and stops at the first that fails', async () => {
    const clock = new FakeClock();
    const results: Array<VerifyOutcome | undefined> = [
      undefined,
      {
        check: { type: 'command', command: 'curl web' },
        during: 'bake',
        passed: false,
        summary: 'exited with code 22',
        timedOut: false,
        elapsedMs: 10,
        lines: [],
        evidence: [],
        logs: [],
      },
    ];
    let calls = 0;
    const { outcome } = await bake(
      [target],
      { ...run, verifyIntervalMs: 5000 },
      { kubectl: scripted([healthy]), clock, reporter: new RecordingReporter() },
      async () => results[calls++],
    );
    expect(calls).toBe(2);
    expect(outcome).toMatchObject({
      passed: false,
      stoppedBy: 'check',
      checksRun: 2,
      summary: '`curl web`, run again, exited with code 22',
    });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(10_000);
    expect(outcome.elapsedMs).toBeLessThan(15_000);
  });

  it("hands back someone else's change during the bake as the object's verdict: it wins, nothing is restored", async () => {
    const changed = structuredClone(complete) as typeof complete & {
      spec: { template: { spec: { containers: Array<{ image: string }> } } };
    };
    changed.spec.template.spec.containers[0]!.image = 'someone/else:2';
    const reporter = new RecordingReporter();
    const { outcome, verdicts } = await bake([target], run, {
      kubectl: scripted([
        snapshotFrom({ deployments: [changed], replicaSets: [replicaSet('complete-new')], pods: [ready] }),
      ]),
      clock: new FakeClock(),
      reporter,
    });
    expect(outcome).toMatchObject({ passed: false, stoppedBy: 'conflict' });
    expect(verdicts.get('apps/Deployment/shop/web')?.state).toBe('conflict');
    expect(reporter.kinds()).toEqual(['bake-started', 'conflict']);
  });
});

describe('bake: a new pod that ends Succeeded without a delete (kubernetes#120182)', () => {
  /** The ready pod as a real kubelet v1.37.2 leaves one it evicted whose container exited 0 (kubelet/fixtures/evicted-exit-0). */
  function endedQuietly(): Pod {
    const ended = structuredClone(ready);
    ended.status!.phase = 'Succeeded';
    ended.status!.conditions = ended.status!.conditions!.map((condition) =>
      condition.type === 'Ready' ? { ...condition, status: 'False', reason: 'PodCompleted' } : condition,
    );
    ended.status!.containerStatuses![0]!.ready = false;
    ended.status!.containerStatuses![0]!.state = { terminated: { exitCode: 0, reason: 'Completed' } };
    return ended;
  }
  const ended = endedQuietly();
  const evictedEvent = {
    metadata: { name: `${ended.metadata.name}.18ef076c523691f4`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', name: ended.metadata.name, namespace: 'shop', uid: ended.metadata.uid },
    reason: 'Evicted',
    type: 'Warning',
    message: 'Usage of EmptyDir volume "cache" exceeds the limit "8Mi". ',
  };
  const quiet = snapshotFrom({ deployments: [complete], replicaSets: [replicaSet('complete-new')], pods: [ended] });

  /** Answers each read of the pod's events with the next of `answers` (the last one again after). */
  function withEvents(answers: object[][]) {
    const base = scripted([healthy, quiet]);
    const reads: string[] = [];
    return {
      kubectl: {
        ...base,
        async events(_namespace: string, name: string) {
          reads.push(name);
          return answers[Math.min(reads.length - 1, answers.length - 1)] as never;
        },
      },
      reads,
    };
  }

  it("reads its events at each look until the Evicted event comes, and ends the bake when it names the pod's own limit", async () => {
    const { kubectl, reads } = withEvents([[], [evictedEvent]]);
    const { outcome } = await bake([target], run, {
      kubectl,
      clock: new FakeClock(),
      reporter: new RecordingReporter(),
    });
    expect(reads).toEqual([ended.metadata.name, ended.metadata.name]);
    expect(outcome).toMatchObject({ passed: false, stoppedBy: 'workload', elapsedMs: 4000 });
    expect(outcome.summary).toBe(
      `pod ${ended.metadata.name} was evicted by the kubelet: Usage of EmptyDir volume "cache" exceeds the limit "8Mi". (its containers exited 0, so the pod shows Succeeded)`,
    );
  });

  it('reads them at most 3 times, and passes when no Evicted event says why, or it says node pressure', async () => {
    const pressure = { ...evictedEvent, message: 'The node was low on resource: ephemeral-storage. ' };
    for (const answer of [[], [pressure]]) {
      const { kubectl, reads } = withEvents([answer]);
      const { outcome } = await bake([target], run, {
        kubectl,
        clock: new FakeClock(),
        reporter: new RecordingReporter(),
      });
      expect(outcome).toMatchObject({ passed: true, elapsedMs: 30_000 });
      // An Evicted event of node pressure is an answer: read once; no Evicted event: 3 reads.
      expect(reads.length).toBe(answer.length === 0 ? 3 : 1);
    }
  });
});
