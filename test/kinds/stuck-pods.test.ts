import { describe, expect, it } from 'vitest';
import type { Pod, StatefulSet } from '../../src/kube.js';
import { deleteStuckPods, stuckPods } from '../../src/kinds/workloads/stuck-pods.js';
import type { WriteResult } from '../../src/kubectl/types.js';
import type { KubeObject } from '../../src/objects/model.js';
import { FakeClock, snapshotFrom } from '../fakes.js';
import { fixture } from '../fixtures/load.js';

const failed = fixture<StatefulSet>('statefulsets/rolling-stuck');
const before = fixture<StatefulSet>('statefulsets/before');
const pods = ['db-0-old-ready', 'db-1-old-ready', 'db-2-new-image-pull-backoff'].map((name) =>
  fixture<Pod>(`statefulsets/pods/${name}`),
);

describe('stuckPods', () => {
  it('picks the not-Ready pods of the failed update revision only', () => {
    expect(stuckPods(failed, before, pods).map((pod) => pod.metadata.name)).toEqual(['db-2']);
  });

  it('leaves a Ready pod of the failed revision to the controller', () => {
    expect(stuckPods(failed, before, [...pods.slice(0, 2), fixture<Pod>('statefulsets/pods/db-2-new-ready')])).toEqual(
      [],
    );
  });

  it('never touches a revision that was live before the apply', () => {
    const wasLive = { ...before, status: { ...before.status, updateRevision: failed.status?.updateRevision } };
    expect(stuckPods(failed, wasLive, pods)).toEqual([]);
  });

  it('needs a status about the applied generation: an older one names no pod of the applied template', () => {
    const unobserved = { ...failed, metadata: { ...failed.metadata, generation: 4 } };
    expect(stuckPods(unobserved, before, pods)).toEqual([]);
  });

  it('ignores pods of another owner and pods already being deleted', () => {
    const foreign = structuredClone(pods[2]!);
    foreign.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other', uid: 'another-uid', controller: true },
    ];
    const deleting = structuredClone(pods[2]!);
    deleting.metadata.deletionTimestamp = '2026-11-30T10:20:00Z';
    expect(stuckPods(failed, before, [foreign, deleting])).toEqual([]);
  });
});

describe('deleteStuckPods (the StatefulSet restore hook)', () => {
  it('waits for the controller to observe the restored generation, then deletes the stuck pod by uid', async () => {
    const restored = { ...before, metadata: { ...before.metadata, generation: 4 } } as unknown as KubeObject;
    const observed = [3, 4].map((observedGeneration) => ({
      ...restored,
      status: { ...before.status, observedGeneration },
    }));
    const deletes: Array<{ path: string; uid: string }> = [];
    const clock = new FakeClock();
    const lines = await deleteStuckPods(
      { failed: failed as unknown as KubeObject, before: before as unknown as KubeObject, restored },
      {
        clock,
        deadlineMs: 60_000,
        kubectl: {
          getObject: async () => observed.shift() ?? observed[0],
          workloadSnapshot: async () => snapshotFrom({ deployments: [], replicaSets: [], pods }),
          deleteExact: async (path: string, preconditions: { uid: string }): Promise<WriteResult> => {
            deletes.push({ path, uid: preconditions.uid });
            return { ok: true };
          },
        },
      },
    );
    expect(clock.now()).toBe(500);
    expect(deletes).toEqual([
      { path: '/api/v1/namespaces/shop/pods/db-2', uid: '3f1e4c2a-0d6b-4a7e-8c91-1b2d3e4f5a62' },
    ]);
    expect(lines).toEqual([
      'deleted pod db-2 (failed revision db-7d4b9c8f6, not Ready) so the controller recreates it from the restored template',
    ]);
  });
});
