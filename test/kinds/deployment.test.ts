import { describe, expect, it } from 'vitest';
import type { Deployment, Pod } from '../../src/kube.js';
import { expectationOf, rememberFindings, verdictFor } from './judge-deployment.js';
import { rolloutWait } from '../../src/kinds/workloads/deployment.js';
import type { Moment } from '../../src/model/verdict.js';
import { newReplicaSetFor } from '../../src/kinds/workloads/template.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

const at = (now: number, timeoutMs = 300_000): Moment => ({ now, startedAt: 0, timeoutMs });
const rollout = (name: string, pods: Pod[] = []) => ({
  deployment: deployment(name),
  replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
  pods,
});

describe('newReplicaSetFor', () => {
  it('finds the ReplicaSet whose template matches the Deployment, ignoring pod-template-hash', () => {
    const found = newReplicaSetFor(deployment('progressing-new-rs'), [
      replicaSet('progressing-old'),
      replicaSet('progressing-new'),
    ]);
    expect(found?.metadata.name).toBe('web-7d9c6b8f4d');
  });

  it('ignores ReplicaSets owned by another Deployment', () => {
    const foreign = replicaSet('progressing-new');
    foreign.metadata.ownerReferences = [{ kind: 'Deployment', name: 'other', uid: 'another-uid', controller: true }];
    expect(newReplicaSetFor(deployment('progressing-new-rs'), [foreign])).toBeUndefined();
  });
});

describe('verdictFor', () => {
  it('calls a rollout healthy exactly when kubectl rollout status would', () => {
    const complete = deployment('complete');
    const verdict = verdictFor(
      rollout('complete', [pod('running-ready')]),
      expectationOf(complete),
      new Map(),
      at(1000),
    );
    expect(verdict.state).toBe('healthy');
    expect(verdict.progress).toMatchObject({ revision: 7, desired: 3 });
  });

  it('keeps waiting while old replicas are still running, like rollout status', () => {
    const verdict = verdictFor(
      rollout('progressing-new-rs'),
      expectationOf(deployment('progressing-new-rs')),
      new Map(),
      at(1000),
    );
    expect(verdict).toMatchObject({ state: 'progressing', waitingFor: '2 out of 3 new replicas have been updated' });
  });

  it('fails at the first poll that sees ImagePullBackOff on a pod of the new ReplicaSet', () => {
    const observation = rollout('progressing-new-rs', [pod('image-pull-backoff')]);
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(2000));
    expect(verdict.state).toBe('failed');
    if (verdict.state !== 'failed' || verdict.cause.source !== 'pod') throw new Error('expected a pod cause');
    expect(verdict.cause.finding).toMatchObject({ reason: 'ImagePullBackOff', pod: 'web-7d9c6b8f4d-q7r4t' });
  });

  it('never judges the old ReplicaSet by its pods', () => {
    const broken = pod('image-pull-backoff');
    broken.metadata.ownerReferences = [
      { kind: 'ReplicaSet', name: 'web-5f8b9c7d6e', uid: '40ccf54f-e0ed-49f9-b59e-380fa3fa300d', controller: true },
    ];
    const observation = rollout('progressing-new-rs', [broken]);
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(2000));
    expect(verdict.state).toBe('progressing');
    expect(verdict.findings).toEqual([]);
  });

  it('fails at the first ErrImagePull when the registry says the tag does not exist: no back-off wait', () => {
    const observation = rollout('progressing-new-rs', [pod('err-image-pull-not-found')]);
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(1000));
    expect(verdict.state).toBe('failed');
  });

  it('waits out the grace period of a pull error it cannot judge, counted from the first failure of the family', () => {
    const unknown = pod('err-image-pull-not-found');
    unknown.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'ErrImagePull', message: 'failed to pull and unpack image "x": something new' },
    };
    const observation = rollout('progressing-new-rs', [unknown]);
    const expected = expectationOf(observation.deployment);
    const first = verdictFor(observation, expected, new Map(), at(1000));
    expect(first.state).toBe('progressing');
    const seen = rememberFindings(new Map(), first, 1000, observation.deployment, observation.pods);
    // The kubelet moves to ImagePullBackOff (a bare ≤1.31 message): same family, same clock.
    const backOff = structuredClone(unknown);
    backOff.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:1.17.99"' },
    };
    const later = rollout('progressing-new-rs', [backOff]);
    expect(verdictFor(later, expected, seen, at(10_000)).state).toBe('progressing');
    const again = rememberFindings(
      seen,
      verdictFor(later, expected, seen, at(10_000)),
      10_000,
      later.deployment,
      later.pods,
    );
    expect(again.get('web-7d9c6b8f4d-m8n2v/app/image-pull')).toBe(1000);
    expect(verdictFor(later, expected, again, at(21_000)).state).toBe('failed');
  });

  it('fails a crash loop once the container has restarted three times', () => {
    const observation = rollout('progressing-new-rs', [pod('crash-loop-backoff')]);
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(1000));
    expect(verdict.state).toBe('failed');
  });

  it('takes ProgressDeadlineExceeded as the controller verdict', () => {
    const observation = {
      ...rollout('progress-deadline-exceeded'),
      replicaSets: [replicaSet('deadline-old'), replicaSet('deadline-new')],
    };
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(1000));
    expect(verdict.state).toBe('failed');
    if (verdict.state !== 'failed' || verdict.cause.source !== 'condition')
      throw new Error('expected a condition cause');
    expect(verdict.cause.reason).toBe('ProgressDeadlineExceeded');
  });

  it('ignores a stale deadline condition until the controller has observed the new generation', () => {
    const stale = deployment('progress-deadline-exceeded');
    stale.metadata.generation = 13;
    const observation = { deployment: stale, replicaSets: [replicaSet('deadline-old')], pods: [] };
    const verdict = verdictFor(observation, { ...expectationOf(stale) }, new Map(), at(1000));
    expect(verdict).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the deployment controller to observe generation 13',
    });
  });

  it('reports a conflict when someone else changes the pod template while kguard watches', () => {
    const applied = deployment('progressing-new-rs');
    const expected = expectationOf(applied);
    const theirs: Deployment = structuredClone(applied);
    theirs.metadata.generation = 13;
    theirs.spec!.template!.spec!.containers![0]!.image = 'registry.example.com/shop/web:9.9.9';
    const verdict = verdictFor({ ...rollout('progressing-new-rs'), deployment: theirs }, expected, new Map(), at(1000));
    expect(verdict).toMatchObject({ state: 'conflict' });
    if (verdict.state === 'conflict') expect(verdict.detail).toContain('spec.template.spec.containers[0].image');
  });

  it('calls scaling by someone else a conflict too: a restore would overwrite their replicas', () => {
    const applied = deployment('progressing-new-rs');
    const expected = expectationOf(applied);
    const scaled: Deployment = structuredClone(applied);
    scaled.metadata.generation = 13;
    scaled.spec!.replicas = 5;
    const verdict = verdictFor({ ...rollout('progressing-new-rs'), deployment: scaled }, expected, new Map(), at(1000));
    expect(verdict).toMatchObject({ state: 'conflict', detail: expect.stringContaining('spec.replicas') });
  });

  it("does not call status or controller bookkeeping someone else's change", () => {
    const applied = deployment('progressing-new-rs');
    const expected = expectationOf(applied);
    const observed: Deployment = structuredClone(applied);
    observed.status = { ...observed.status, observedGeneration: 12, updatedReplicas: 3 };
    observed.metadata.resourceVersion = '99999';
    observed.metadata.annotations = { ...observed.metadata.annotations, 'deployment.kubernetes.io/revision': '8' };
    const verdict = verdictFor(
      { ...rollout('progressing-new-rs'), deployment: observed },
      expected,
      new Map(),
      at(1000),
    );
    expect(verdict.state).not.toBe('conflict');
  });

  it('says a Deployment deleted during the watch is gone', () => {
    const expected = expectationOf(deployment('progressing-new-rs'));
    expect(verdictFor({ deployment: undefined, replicaSets: [], pods: [] }, expected, new Map(), at(1000)).state).toBe(
      'gone',
    );
  });

  it('times out at the deadline with the last known findings', () => {
    const observation = rollout('progressing-new-rs', [pod('unschedulable-pending')]);
    const verdict = verdictFor(observation, expectationOf(observation.deployment), new Map(), at(300_000));
    expect(verdict.state).toBe('timed-out');
    expect(verdict.findings.map((finding) => finding.reason)).toEqual(['Unschedulable']);
  });
});

describe('rolloutWait', () => {
  it('words the wait the way kubectl rollout status does', () => {
    const waiting = deployment('complete');
    waiting.status = { ...waiting.status, availableReplicas: 0 };
    expect(rolloutWait(waiting)).toBe('0 of 3 updated replicas are available');
    expect(rolloutWait(waiting, 2)).toBe('0 of 3 updated replicas are available');
    expect(rolloutWait(deployment('complete'))).toBeUndefined();
  });

  it('does not contradict the ready count when the new pods are ready but not yet counted available', () => {
    const waiting = deployment('complete');
    waiting.status = { ...waiting.status, availableReplicas: 0 };
    const readyNew = replicaSet('complete-new').status?.readyReplicas;
    expect(readyNew).toBe(3);
    expect(rolloutWait(waiting, readyNew)).toBe(
      '0 of 3 updated replicas counted available so far: waiting for the deployment controller to count the ready pods',
    );
    waiting.spec = { ...waiting.spec, minReadySeconds: 10 };
    expect(rolloutWait(waiting, readyNew)).toBe(
      '0 of 3 updated replicas are available: ready pods count as available after minReadySeconds (10s)',
    );
  });

  it('says a paused Deployment is paused instead of waiting silently', () => {
    const paused = deployment('progressing-new-rs');
    paused.spec = { ...paused.spec, paused: true };
    expect(rolloutWait(paused)).toBe('the Deployment is paused: kubectl rollout resume deployment/web');
  });
});

describe('canonicalTemplate', () => {
  it('treats null, {} and [] as unset, as the controller does, so an undone template still matches', async () => {
    const { canonicalTemplate } = await import('../../src/kinds/workloads/template.js');
    const stored = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
    };
    const fromUndo = {
      metadata: { creationTimestamp: null, labels: { app: 'web', 'pod-template-hash': 'abc' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.25', resources: {} }], volumes: [] },
    };
    expect(canonicalTemplate(fromUndo as never)).toBe(canonicalTemplate(stored));
    expect(canonicalTemplate({ ...stored, spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } })).not.toBe(
      canonicalTemplate(stored),
    );
  });
});
