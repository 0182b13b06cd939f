// Issue 9: the tracker reads what the pod status cannot say (events, logs) at the right moments.
import { describe, expect, it } from 'vitest';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import type { KubeEvent } from '../../src/kube.js';
import { trackRollouts, type TrackTarget } from '../../src/track/tracker.js';
import { FakeClock, RecordingReporter, snapshotFrom, expectationOf } from '../fakes.js';
import { deployment, events, fixture, pod, replicaSet } from '../fixtures/load.js';
import {
  POLLED_ROLLOUT as options,
  web,
  webReplicaSets as replicaSets,
  webTarget as target,
} from './track-fixtures.js';
import type { KubeObject } from '../../src/objects/model.js';

function cluster(snapshots: WorkloadSnapshot[], podEvents: Record<string, KubeEvent[]> = {}, logText = '') {
  const calls: string[] = [];
  let polls = 0;
  return {
    calls,
    kubectl: {
      async workloadSnapshot() {
        polls += 1;
        return snapshots[Math.min(polls - 1, snapshots.length - 1)]!;
      },
      async events(_namespace: string, name: string) {
        calls.push(`events ${name}`);
        return podEvents[name] ?? [];
      },
      async logs(
        _namespace: string,
        name: string,
        container: string,
        { tail, previous }: { tail: number; previous: boolean },
      ) {
        calls.push(`logs ${name} ${container} --tail=${tail}${previous ? ' --previous' : ''}`);
        return { ok: true as const, text: logText };
      },
    },
  };
}

describe('trackRollouts evidence', () => {
  it("reads the crashed container's last lines when the verdict is reached, and prints them in the failure", async () => {
    const logText = `${Array.from({ length: 8 }, (_, index) => `line ${index + 1}`).join('\n')}\nError: connect ECONNREFUSED 10.0.0.5:5432\r\n\n`;
    const { kubectl, calls } = cluster(
      [snapshotFrom({ deployments: [web], replicaSets, pods: [pod('crash-loop-backoff')] })],
      {},
      logText,
    );
    const reporter = new RecordingReporter();
    const tracked = await trackRollouts(
      [target],
      { ...options, logLines: 3 },
      { kubectl, clock: new FakeClock(), reporter },
    );
    expect(calls).toContain('logs web-7d9c6b8f4d-h6s9k app --tail=50');
    const logs = tracked.get('apps/Deployment/shop/web')?.diagnosis?.logs;
    expect(logs?.[0]?.lines.at(-1)).toBe('Error: connect ECONNREFUSED 10.0.0.5:5432');
    const failure = reporter.events.find((event) => event.kind === 'failed');
    expect(failure?.kind === 'failed' && failure.diagnosis.logs?.[0]?.shown).toBe(3);
  });

  it('reads no logs with --log-lines 0, and none for a pull failure', async () => {
    const crash = cluster([snapshotFrom({ deployments: [web], replicaSets, pods: [pod('crash-loop-backoff')] })]);
    await trackRollouts(
      [target],
      { ...options, logLines: 0 },
      { kubectl: crash.kubectl, clock: new FakeClock(), reporter: new RecordingReporter() },
    );
    expect(crash.calls.some((call) => call.startsWith('logs'))).toBe(false);
    const pull = cluster([snapshotFrom({ deployments: [web], replicaSets, pods: [pod('image-pull-backoff')] })]);
    await trackRollouts([target], options, {
      kubectl: pull.kubectl,
      clock: new FakeClock(),
      reporter: new RecordingReporter(),
    });
    expect(pull.calls.some((call) => call.startsWith('logs'))).toBe(false);
  });

  it('reads the events of a ≤1.31 back-off to learn the cause: a rate limit is waited out, not rolled back', async () => {
    const backOff = pod('image-pull-backoff-1.31');
    const healthy = deployment('complete');
    const { kubectl, calls } = cluster(
      [
        ...Array.from({ length: 13 }, () => snapshotFrom({ deployments: [web], replicaSets, pods: [backOff] })),
        snapshotFrom({
          deployments: [{ ...web, status: healthy.status, spec: web.spec }],
          replicaSets: [replicaSet('complete-old'), replicaSet('complete-new')],
          pods: [pod('running-ready')],
        }),
      ],
      { [backOff.metadata.name]: events('image-pull-backoff-1.31') },
    );
    const reporter = new RecordingReporter();
    const tracked = await trackRollouts(
      [target],
      { ...options, timeoutMs: 600_000 },
      { kubectl, clock: new FakeClock(), reporter },
    );
    expect(calls[0]).toBe(`events ${backOff.metadata.name}`);
    // Once the cause is known, the events are not read again at every poll.
    expect(calls.filter((call) => call.startsWith('events')).length).toBe(1);
    expect(tracked.get('apps/Deployment/shop/web')?.verdict.state).toBe('healthy');
  });

  it('reads the events of a pod stuck creating its containers and fails a missing volume source after its grace', async () => {
    const creating = pod('container-creating');
    const { kubectl, calls } = cluster([snapshotFrom({ deployments: [web], replicaSets, pods: [creating] })], {
      [creating.metadata.name]: events('failed-mount'),
    });
    const clock = new FakeClock();
    const tracked = await trackRollouts([target], options, { kubectl, clock, reporter: new RecordingReporter() });
    const result = tracked.get('apps/Deployment/shop/web');
    expect(result?.verdict.state).toBe('failed');
    expect(result?.diagnosis?.summary).toBe('new pods cannot mount their volumes: FailedMount');
    // 5 s waiting to start before the first read, then 30 s of FailedMount.
    expect(clock.now()).toBeGreaterThanOrEqual(36_000);
    expect(clock.now()).toBeLessThanOrEqual(40_000);
    expect(calls.filter((call) => call.startsWith('events')).length).toBeLessThanOrEqual(9);
  });
});

describe('trackRollouts evidence without a pod to blame', () => {
  it('a LoadBalancer Service with no address at its deadline shows its own Warning events, not those of another kind of the same name', async () => {
    const service = fixture<KubeObject>('services/web-lb-pending');
    const serviceTarget: TrackTarget = {
      workload: { apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'shop' },
      expected: expectationOf(service),
    };
    const warning = (kind: string, reason: string, message: string): KubeEvent => ({
      metadata: { name: `web.${reason}`, namespace: 'shop' },
      type: 'Warning',
      reason,
      message,
      involvedObject: { kind, name: 'web', namespace: 'shop' },
      lastTimestamp: '2026-11-30T10:15:05Z',
    });
    const { kubectl, calls } = cluster([snapshotFrom({ pods: [pod('running-ready')], others: [service] })], {
      web: [
        warning(
          'Service',
          'SyncLoadBalancerFailed',
          'Error syncing load balancer: failed to ensure load balancer: googleapi: Error 403: QUOTA_EXCEEDED',
        ),
        warning('Deployment', 'ReplicaSetCreateError', 'a Deployment of the same name'),
      ],
    });
    const tracked = await trackRollouts(
      [serviceTarget],
      { ...options, timeoutMs: 10_000 },
      { kubectl, clock: new FakeClock(), reporter: new RecordingReporter() },
    );
    const result = tracked.get('/Service/shop/web');
    expect(result?.verdict).toMatchObject({ state: 'failed', cause: { reason: 'NoLoadBalancerAddress' } });
    expect(calls).toContain('events web');
    expect(result?.diagnosis?.evidence).toEqual([
      'event SyncLoadBalancerFailed: Error syncing load balancer: failed to ensure load balancer: googleapi: Error 403: QUOTA_EXCEEDED',
    ]);
  });
});
