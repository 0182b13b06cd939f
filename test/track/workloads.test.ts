import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import { type KubeObject, refOf } from '../../src/objects/model.js';
import { trackWorkloads, type WorkloadTarget } from '../../src/track/workloads.js';
import { FakeClock, RecordingReporter, snapshotFrom } from '../fakes.js';
import { fixture } from '../fixtures/load.js';

const options = {
  timeoutMs: 300_000,
  pollIntervalMs: 2000,
  watching: 'rollout' as const,
  stopWhenAnyFails: true,
  watch: false,
  logLines: 5,
};

function target(object: KubeObject): WorkloadTarget {
  return {
    ref: refOf(object),
    applied: object,
    before: object,
  };
}

/** A cluster whose namespace holds `objects` and `pods` at every poll; records what each poll read. */
function cluster(objects: KubeObject[], pods: Pod[] = []) {
  const reads: string[] = [];
  return {
    reads,
    kubectl: {
      async workloadSnapshot(namespace: string, types: readonly string[] = []): Promise<WorkloadSnapshot> {
        reads.push(`${namespace}: ${types.join(',')}`);
        return snapshotFrom({ deployments: [], replicaSets: [], pods, others: objects });
      },
      async events() {
        return [];
      },
    },
  };
}

describe('trackWorkloads', () => {
  it('gives every object an outcome by its kind: watched, applied with a reason, or simply applied', async () => {
    const job = fixture('jobs/complete');
    const onDelete = fixture('statefulsets/on-delete');
    const configMap: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config', namespace: 'shop' },
    };
    const { kubectl, reads } = cluster([job, onDelete]);
    const reporter = new RecordingReporter();
    const outcomes = await trackWorkloads([target(job), target(onDelete), target(configMap)], options, {
      kubectl,
      clock: new FakeClock(),
      reporter,
    });
    expect(outcomes.get('batch/Job/shop/migrate')).toMatchObject({ tracked: true, verdict: { state: 'healthy' } });
    expect(outcomes.get('apps/StatefulSet/shop/db')).toMatchObject({
      tracked: false,
      verdict: { state: 'applied', detail: expect.stringContaining('OnDelete') },
    });
    expect(outcomes.get('/ConfigMap/shop/web-config')).toEqual({
      tracked: false,
      verdict: { state: 'applied', detail: undefined },
      elapsedMs: 0,
    });
    expect(reporter.kinds()).toEqual(['not-watched', 'tracking']);
    expect(reads).toEqual(['shop: jobs.batch,pods']);
  });

  it('kguard.dev/track "false" is applied, not watched', async () => {
    const job = fixture('jobs/running');
    job.metadata.annotations = { 'kguard.dev/track': 'false' };
    const { kubectl, reads } = cluster([job]);
    const outcomes = await trackWorkloads([target(job)], options, {
      kubectl,
      clock: new FakeClock(),
      reporter: new RecordingReporter(),
    });
    expect(outcomes.get('batch/Job/shop/migrate')?.verdict).toEqual({
      state: 'applied',
      detail: 'kguard.dev/track: "false": not watched',
    });
    expect(reads).toEqual([]);
  });

  it("kguard.dev/timeout is that object's own deadline", async () => {
    const job = fixture('jobs/running');
    job.metadata.annotations = { 'kguard.dev/timeout': '10s' };
    const clock = new FakeClock();
    const outcomes = await trackWorkloads([target(job)], options, {
      kubectl: cluster([job]).kubectl,
      clock,
      reporter: new RecordingReporter(),
    });
    expect(outcomes.get('batch/Job/shop/migrate')).toMatchObject({
      verdict: { state: 'timed-out' },
      elapsedMs: 10_000,
    });
  });

  it('reads each namespace once per poll with every type its objects need', async () => {
    const job = fixture('jobs/running');
    const set = fixture('statefulsets/complete');
    const { kubectl, reads } = cluster([job, set]);
    await trackWorkloads(
      [target(job), target(set)],
      { ...options, timeoutMs: 2000 },
      { kubectl, clock: new FakeClock(), reporter: new RecordingReporter() },
    );
    expect(reads[0]).toBe('shop: jobs.batch,pods,statefulsets.apps');
  });
});
