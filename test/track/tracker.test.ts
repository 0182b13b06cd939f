import { describe, expect, it } from 'vitest';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import type { KubeEvent } from '../../src/kube.js';
import { trackRollouts, type TrackTarget } from '../../src/track/tracker.js';
import { FakeClock, RecordingReporter, snapshotFrom, expectationOf } from '../fakes.js';
import { deployment, events, pod, replicaSet } from '../fixtures/load.js';
import {
  POLLED_ROLLOUT as options,
  web,
  webReplicaSets as replicaSets,
  webTarget as target,
} from './track-fixtures.js';

/** A scripted cluster: each poll returns the next snapshot (the last one repeats). */
function scriptedKubectl(snapshots: WorkloadSnapshot[], podEvents: KubeEvent[] = []) {
  const calls: string[] = [];
  return {
    calls,
    kubectl: {
      async workloadSnapshot(namespace: string) {
        calls.push(`workloadSnapshot ${namespace}`);
        return snapshots[
          Math.min(calls.filter((call) => call.startsWith('workloadSnapshot')).length - 1, snapshots.length - 1)
        ]!;
      },
      async events(namespace: string, name: string) {
        calls.push(`events ${namespace} ${name}`);
        return podEvents;
      },
    },
  };
}

describe('trackRollouts', () => {
  it('runs a 600 s deadline in no time and reports the timeout with what it waited for', async () => {
    const clock = new FakeClock();
    const { kubectl, calls } = scriptedKubectl([
      snapshotFrom({ deployments: [web], replicaSets, pods: [pod('container-creating')] }),
    ]);
    const tracked = await trackRollouts([target], options, { kubectl, clock, reporter: new RecordingReporter() });
    const result = tracked.get('apps/Deployment/shop/web');
    expect(result?.verdict.state).toBe('timed-out');
    expect(result?.elapsedMs).toBe(600_000);
    expect(calls.filter((call) => call.startsWith('workloadSnapshot'))).toHaveLength(301);
  });

  it('stops at the first poll that sees a fatal reason, with the kubelet events as evidence', async () => {
    const clock = new FakeClock();
    const { kubectl, calls } = scriptedKubectl(
      [
        snapshotFrom({ deployments: [web], replicaSets, pods: [pod('container-creating')] }),
        snapshotFrom({ deployments: [web], replicaSets, pods: [pod('image-pull-backoff')] }),
      ],
      events('image-pull-backoff'),
    );
    const reporter = new RecordingReporter();
    const tracked = await trackRollouts([target], options, { kubectl, clock, reporter });
    const result = tracked.get('apps/Deployment/shop/web');
    expect(result?.verdict.state).toBe('failed');
    expect(clock.now()).toBe(2000);
    expect(calls).toContain('events shop web-7d9c6b8f4d-q7r4t');
    expect(result?.diagnosis?.summary).toBe('new pods cannot pull image "xxxxxnginx:1.17": ImagePullBackOff');
    expect(result?.diagnosis?.evidence[0]).toMatch(
      /^pod web-7d9c6b8f4d-q7r4t, container app: ImagePullBackOff: pull access denied/,
    );
    // The Failed event says what the pod line says: it is not repeated.
    expect(result?.diagnosis?.evidence.some((line) => line.startsWith('event Failed: Failed to pull image'))).toBe(
      false,
    );
    // The verdict came at the poll that saw the problem: one failure block, no warning before it.
    expect(reporter.kinds()).toContain('failed');
    expect(reporter.kinds()).not.toContain('pod-problem');
  });

  it('polls each namespace once per cycle, however many Deployments it holds', async () => {
    const clock = new FakeClock();
    const complete = deployment('complete');
    const deployments = ['a', 'b', 'c'].map((name) => ({ ...complete, metadata: { ...complete.metadata, name } }));
    const targets: TrackTarget[] = deployments.map((applied) => ({
      workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: applied.metadata.name, namespace: 'shop' },
      expected: expectationOf(applied),
    }));
    const { kubectl, calls } = scriptedKubectl([
      snapshotFrom({ deployments, replicaSets: [replicaSet('complete-new')], pods: [] }),
    ]);
    const tracked = await trackRollouts(targets, options, { kubectl, clock, reporter: new RecordingReporter() });
    expect([...tracked.values()].map((result) => result.verdict.state)).toEqual(['healthy', 'healthy', 'healthy']);
    expect(calls).toEqual(['workloadSnapshot shop']);
  });

  it('keeps polling through API errors and times out naming the error', async () => {
    const clock = new FakeClock();
    const reporter = new RecordingReporter();
    const kubectl = {
      async workloadSnapshot(): Promise<WorkloadSnapshot> {
        throw new Error('kubectl could not read workloads in namespace shop: connection refused.');
      },
      async events() {
        return [];
      },
    };
    const tracked = await trackRollouts([target], { ...options, timeoutMs: 10_000 }, { kubectl, clock, reporter });
    const verdict = tracked.get('apps/Deployment/shop/web')?.verdict;
    expect(verdict?.state).toBe('timed-out');
    if (verdict?.state === 'timed-out') expect(verdict.waitingFor).toContain('connection refused');
    expect(reporter.kinds().filter((kind) => kind === 'poll-error')).toHaveLength(1);
  });
});
