// A new pod counts for "is it serving" only while its controller counts it (controller_utils.go
// IsPodActive): one its node ended is a note, never a reason to wait; one that ended for the
// release's own reason keeps today's verdict. The same rule judges a restore (the old ReplicaSet's
// terminated pods) and the Deployment's own `kubectl rollout status` rule is untouched.
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/kinds/engine.js';
import { replicaSetRules } from '../../src/kinds/workloads/replicaset.js';
import type { Pod, ReplicaSet } from '../../src/kube.js';
import type { Moment } from '../../src/model/verdict.js';
import type { KubeObject } from '../../src/objects/model.js';
import { snapshotFrom } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';
import { expectationOf, verdictFor } from './judge-deployment.js';

const at = (now: number, timeoutMs = 300_000): Moment => ({ now, startedAt: 0, timeoutMs });
const complete = (pods: Pod[]) => ({
  deployment: deployment('complete'),
  replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
  pods,
});
const ready = (name: string): Pod => {
  const running = pod('running-ready');
  return { ...running, metadata: { ...running.metadata, name, uid: `${name}-uid` } };
};
const serving = [pod('running-ready'), ready('web-7d9c6b8f4d-b2c3d'), ready('web-7d9c6b8f4d-f4g5h')];

describe('a complete Deployment with a new pod its node ended', () => {
  it.each([
    ['evicted-node-pressure', 'was evicted by its node (memory pressure)'],
    ['evicted-node-pressure-1.26', 'was evicted by its node (memory pressure)'],
    ['node-shutdown', 'was ended by the graceful shutdown of its node'],
    ['rejected-out-of-cpu', 'was rejected by the kubelet of node'],
    ['rejected-node-affinity', 'was rejected by the kubelet of node'],
    ['failed-by-pod-gc', 'was failed by pod GC'],
  ])('is healthy, as kubectl rollout status says, with %s as a note', (name, how) => {
    const ended = pod(name);
    const verdict = verdictFor(
      complete([...serving, ended]),
      expectationOf(deployment('complete')),
      new Map(),
      at(1000),
    );
    expect(verdict.state).toBe('healthy');
    expect(verdict.findings).toEqual([]);
    expect(verdict.notes).toEqual([expect.stringContaining(`pod ${ended.metadata.name} ${how}`)]);
    expect(verdict.notes?.[0]).toMatch(/; its replacement counts$/);
  });

  it('still waits at a deadline-long timeout when the pod ended for its own limit (its replacement will too)', () => {
    const own = pod('evicted-ephemeral-storage');
    const verdict = verdictFor(complete([...serving, own]), expectationOf(deployment('complete')), new Map(), at(1000));
    expect(verdict.state).toBe('progressing');
    if (verdict.state !== 'progressing') throw new Error('expected progressing');
    expect(verdict.waitingFor).toContain(`new pod ${own.metadata.name} was evicted for going over its own limit`);
    expect(verdict.notes).toBeUndefined();
    expect(verdict.findings.map((finding) => finding.reason)).toEqual(['Evicted']);
  });

  it('fails when two new pods are evicted for their own limit, as before', () => {
    const verdict = verdictFor(
      complete([...serving, pod('evicted-ephemeral-storage'), pod('evicted-ephemeral-storage-2')]),
      expectationOf(deployment('complete')),
      new Map(),
      at(1000),
    );
    expect(verdict.state).toBe('failed');
  });

  it('does not let a terminated pod hide an active one that is not ready', () => {
    const verdict = verdictFor(
      complete([pod('evicted-node-pressure'), pod('running-not-ready-readiness')]),
      expectationOf(deployment('complete')),
      new Map(),
      at(1000),
    );
    expect(verdict.state).toBe('progressing');
  });
});

describe('a restored ReplicaSet with the terminated pods it kept', () => {
  it('is healthy once its active pods serve (the replicaset controller counts only those)', () => {
    const set = replicaSet('progressing-new') as ReplicaSet & { spec?: { replicas?: number } };
    const restored = {
      ...set,
      spec: { ...set.spec, replicas: 1 },
      status: { replicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: set.metadata.generation ?? 1 },
    } as unknown as KubeObject;
    const verdict = judge(
      replicaSetRules,
      {
        object: restored,
        snapshot: snapshotFrom({
          replicaSets: [restored as never],
          pods: [pod('node-shutdown'), pod('running-ready')],
        }),
      },
      expectationOf(restored),
      new Map(),
      at(1000),
    );
    expect(verdict.state).toBe('healthy');
    expect(verdict.notes).toHaveLength(1);
  });
});
