// Which pending workloads a look judges (src/track/due.ts): one whose rules read only what it
// controls waits while none of its copies changed, until the tracker's next tick or its deadline.
import { describe, expect, it } from 'vitest';
import { deploymentRules } from '../../src/kinds/workloads/deployment.js';
import { serviceRules } from '../../src/kinds/network/service.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import { dueToJudge, tickAt, type DueQuestion } from '../../src/track/due.js';
import { snapshotFrom } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

const web = deployment('progressing-new-rs');
const webRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const replicaSets = [replicaSet('progressing-old'), replicaSet('progressing-new')];
/** A look at the namespace: each look reads a new list, of the copies the watch holds. */
const look = (pods = [pod('container-creating')], others: unknown[] = []) =>
  snapshotFrom({
    deployments: [web],
    replicaSets,
    pods,
    others,
  });

function question(snapshot: DueQuestion['snapshot'], changes: Partial<DueQuestion> = {}): DueQuestion {
  return {
    workload: webRef,
    rules: deploymentRules,
    firstSeen: new Map(),
    last: undefined,
    snapshot,
    now: 10_000,
    tickAt: 10_000,
    deadlineAt: 600_000,
    ...changes,
  };
}

/** Judged at `at` on `snapshot`: what the tracker remembers. */
function judgedOn(snapshot: WorkloadSnapshot, at = 10_000) {
  const last = dueToJudge(question(snapshot, { now: at }));
  if (!last) throw new Error('a first look always judges');
  return last;
}

describe('dueToJudge', () => {
  it('judges at the first look, and remembers the object, its ReplicaSets and their pods', () => {
    const snapshot = look();
    const last = judgedOn(snapshot);
    expect(last.at).toBe(10_000);
    expect(last.read?.map((copy) => (copy as { metadata: { name: string } }).metadata.name)).toEqual([
      'web',
      'web-5f8b9c7d6e',
      'web-7d9c6b8f4d',
      'web-7d9c6b8f4d-b7c2d',
    ]);
  });

  it('lets the last verdict stand on the same copies until the next tick', () => {
    const first = look();
    const last = judgedOn(first);
    // Another look: a new list of the same copies, and someone else's pod that changed.
    const stranger = pod('running-ready');
    stranger.metadata.ownerReferences = [];
    const second = look(first.pods, [stranger]);
    expect(dueToJudge(question(second, { last, now: 11_999 }))).toBeUndefined();
    // Judged by a change between two ticks: it stands until the next one.
    const between = judgedOn(first, 11_000);
    expect(dueToJudge(question(second, { last: between, now: 11_999 }))).toBeUndefined();
  });

  it('judges again at the next tick, or at the deadline, on the same copies', () => {
    const snapshot = look();
    const last = judgedOn(snapshot, 11_500);
    expect(dueToJudge(question(snapshot, { last, now: 12_000, tickAt: 12_000 }))).toEqual({
      at: 12_000,
      read: last.read,
    });
    expect(dueToJudge(question(snapshot, { last, now: 11_000, deadlineAt: 11_000 }))?.at).toBe(11_000);
  });

  it('judges again when one of its copies changed, came or went', () => {
    const snapshot = look();
    const last = judgedOn(snapshot);
    const now = 10_500;
    // A new copy of its pod (the watch replaced it).
    expect(dueToJudge(question(look([structuredClone(snapshot.pods[0]!)]), { last, now }))).toBeDefined();
    // A second pod of its new ReplicaSet.
    expect(dueToJudge(question(look([...snapshot.pods, pod('image-pull-backoff')]), { last, now }))).toBeDefined();
    // Its pod is gone.
    expect(dueToJudge(question(look([]), { last, now }))).toBeDefined();
    // Its Deployment is gone.
    expect(dueToJudge(question({ objects: snapshot.pods, pods: snapshot.pods } as never, { last, now }))).toBeDefined();
  });

  it('reads the pod a remembered finding names, wherever it is: its change is a reason to judge', () => {
    const orphan = pod('image-pull-backoff');
    orphan.metadata.ownerReferences = [];
    const firstSeen = new Map([[`${orphan.metadata.name}/app`, 9000]]);
    const before = look([pod('container-creating'), orphan]);
    const last = dueToJudge(question(before, { firstSeen }))!;
    expect(last.read).toContain(orphan);
    const after = look([before.pods[0]!, structuredClone(orphan)]);
    expect(dueToJudge(question(after, { firstSeen, last, now: 10_500 }))).toBeDefined();
  });

  it('judges at every look a workload whose rules read beyond what it controls (a Service reads the pods it selects)', () => {
    const snapshot = look();
    const service = { workload: { apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'web' } };
    const last = dueToJudge(question(snapshot, { ...service, rules: serviceRules }))!;
    expect(last.read).toBeUndefined();
    expect(dueToJudge(question(snapshot, { ...service, rules: serviceRules, last, now: 10_001 }))).toBeDefined();
  });

  it('judges when the namespace could not be read, so that its deadline is still kept', () => {
    const last = judgedOn(look());
    expect(dueToJudge(question(new Error('refused'), { last, now: 10_001 }))).toEqual({ at: 10_001, read: undefined });
    expect(dueToJudge(question(undefined, { last, now: 10_001 }))).toEqual({ at: 10_001, read: undefined });
  });
});

describe('tickAt', () => {
  it('is the last tick at or before now, one every poll interval from the start', () => {
    expect(tickAt(1000, 1000, 2000)).toBe(1000);
    expect(tickAt(1000, 2999, 2000)).toBe(1000);
    expect(tickAt(1000, 3000, 2000)).toBe(3000);
    expect(tickAt(1000, 8500, 2000)).toBe(7000);
    // A clock that went back, or no interval: the start.
    expect(tickAt(1000, 500, 2000)).toBe(1000);
    expect(tickAt(1000, 8500, 0)).toBe(1000);
  });
});
