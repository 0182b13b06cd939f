// Issue 9: findings by family, conditions of this rollout only, evictions counted by pod.
import { describe, expect, it } from 'vitest';
import type { Deployment, Pod } from '../../src/kube.js';
import type { KubeObject } from '../../src/objects/model.js';
import { belongsToRollout } from '../../src/kinds/workloads/deployment.js';
import { expectationOf, rememberFindings, verdictFor } from './judge-deployment.js';
import type { Moment } from '../../src/model/verdict.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

const at = (now: number): Moment => ({ now, startedAt: 0, timeoutMs: 600_000 });
const rollout = (name: string, pods: Pod[] = []) => ({
  deployment: deployment(name),
  replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
  pods,
});

/** The applied copy as kguard reads it after the apply: managedFields carry the apply's server time. */
function appliedAt(applied: Deployment, time: string): KubeObject {
  const copy = structuredClone(applied) as unknown as KubeObject;
  copy.metadata.managedFields = [
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2026-12-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
      subresource: 'status',
    },
  ];
  return copy;
}

describe('deployment conditions belong to this rollout or do not count', () => {
  const deadline = (message: string, time: string) => ({
    type: 'Progressing',
    status: 'False' as const,
    reason: 'ProgressDeadlineExceeded',
    message,
    lastUpdateTime: time,
    lastTransitionTime: time,
  });

  it('counts a condition whose message names the new ReplicaSet', () => {
    const expected = {
      ...expectationOf(deployment('progress-deadline-exceeded')),
      applied: appliedAt(deployment('progress-deadline-exceeded'), '2026-11-30T11:00:00Z'),
    };
    expect(
      belongsToRollout(
        deadline('ReplicaSet "web-7d9c6b8f4d" has timed out progressing.', '2026-11-30T10:25:03Z'),
        expected,
        'web-7d9c6b8f4d',
        'web',
      ),
    ).toBe(true);
  });

  it('ignores a ProgressDeadlineExceeded about an earlier ReplicaSet, whenever it was written', () => {
    const expected = expectationOf(deployment('progress-deadline-exceeded'));
    expect(
      belongsToRollout(
        deadline('ReplicaSet "web-5f8b9c7d6e" has timed out progressing.', '2026-12-01T00:00:00Z'),
        expected,
        'web-7d9c6b8f4d',
        'web',
      ),
    ).toBe(false);
  });

  it('ignores a ReplicaFailure copied from an old ReplicaSet (its message names an old pod)', () => {
    const expected = expectationOf(deployment('replica-failure'));
    const condition = {
      type: 'ReplicaFailure',
      status: 'True' as const,
      reason: 'FailedCreate',
      message:
        'pods "web-5f8b9c7d6e-x8x2k" is forbidden: exceeded quota: compute-resources, requested: requests.cpu=250m, used: requests.cpu=1750m, limited: requests.cpu=2',
      lastUpdateTime: '2026-12-01T00:00:00Z',
    };
    expect(belongsToRollout(condition, expected, 'web-7d9c6b8f4d', 'web')).toBe(false);
  });

  it('judges a message naming nothing by time: older than the apply does not count', () => {
    const applied = deployment('replica-failure');
    const expected = { ...expectationOf(applied), applied: appliedAt(applied, '2026-11-30T10:15:00Z') };
    const webhook = (time: string) => ({
      type: 'ReplicaFailure',
      status: 'True' as const,
      reason: 'FailedCreate',
      message: 'admission webhook "validate.kyverno.svc-fail" denied the request: resource Pod/shop/ was blocked',
      lastUpdateTime: time,
    });
    expect(belongsToRollout(webhook('2026-11-30T10:14:00Z'), expected, 'web-7d9c6b8f4d', 'web')).toBe(false);
    expect(belongsToRollout(webhook('2026-11-30T10:15:03Z'), expected, 'web-7d9c6b8f4d', 'web')).toBe(true);
  });

  it('fails a ReplicaSetCreateError of this rollout after its grace', () => {
    const refused = deployment('progressing-new-rs');
    refused.status!.conditions = [
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ReplicaSetCreateError',
        message:
          'Failed to create new replica set "web-7d9c6b8f4d": replicasets.apps "web-7d9c6b8f4d" is forbidden: exceeded quota: objects, requested: count/replicasets.apps=1, used: count/replicasets.apps=10, limited: count/replicasets.apps=10',
        lastUpdateTime: '2026-11-30T10:15:02Z',
        lastTransitionTime: '2026-11-30T10:15:02Z',
      },
    ];
    const observation = {
      deployment: refused,
      replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
      pods: [],
    };
    const expected = expectationOf(refused);
    const first = verdictFor(observation, expected, new Map(), at(0));
    expect(first.state).toBe('progressing');
    const seen = rememberFindings(new Map(), first, 0, refused, [], observation.replicaSets);
    const later = verdictFor(observation, expected, seen, at(30_000));
    expect(later.state).toBe('failed');
    if (later.state === 'failed' && later.cause.source === 'condition')
      expect(later.cause.reason).toBe('ReplicaSetCreateError');
  });

  it('does not fail a rollout on a stale deadline from the rollout before it', () => {
    const stale = deployment('progress-deadline-exceeded');
    const progressing = stale.status!.conditions!.find((condition) => condition.type === 'Progressing')!;
    progressing.message = 'ReplicaSet "web-5f8b9c7d6e" has timed out progressing.';
    const observation = {
      deployment: stale,
      replicaSets: [replicaSet('deadline-old'), replicaSet('deadline-new')],
      pods: [],
    };
    expect(verdictFor(observation, expectationOf(stale), new Map(), at(1000)).state).toBe('progressing');
  });
});

describe('families and grace periods', () => {
  it('keeps a crash loop first failure while the container flaps between running and back-off', () => {
    const crashing = pod('crash-loop-backoff');
    crashing.status!.containerStatuses![0]!.restartCount = 1;
    const observation = rollout('progressing-new-rs', [crashing]);
    const expected = expectationOf(observation.deployment);
    const first = verdictFor(observation, expected, new Map(), at(0));
    expect(first.state).toBe('progressing');
    let seen = rememberFindings(new Map(), first, 0, observation.deployment, observation.pods);
    // Between two back-offs the container runs (not ready yet): no finding, but the pod is still failing.
    const running = structuredClone(crashing);
    running.status!.containerStatuses![0]!.state = { running: { startedAt: '2026-11-30T10:16:00Z' } };
    const between = rollout('progressing-new-rs', [running]);
    seen = rememberFindings(
      seen,
      verdictFor(between, expected, seen, at(30_000)),
      30_000,
      between.deployment,
      between.pods,
    );
    expect(seen.get(`${crashing.metadata.name}/app/crash`)).toBe(0);
    expect(verdictFor(observation, expected, seen, at(61_000)).state).toBe('failed');
  });

  it('forgets a family once the container is ready', () => {
    const crashing = pod('crash-loop-backoff');
    crashing.status!.containerStatuses![0]!.restartCount = 1;
    const observation = rollout('progressing-new-rs', [crashing]);
    const seen = rememberFindings(
      new Map(),
      verdictFor(observation, expectationOf(observation.deployment), new Map(), at(0)),
      0,
      observation.deployment,
      observation.pods,
    );
    const healthy = pod('running-ready');
    healthy.metadata.name = crashing.metadata.name;
    const later = rollout('progressing-new-rs', [healthy]);
    expect(
      rememberFindings(
        seen,
        verdictFor(later, expectationOf(later.deployment), seen, at(5000)),
        5000,
        later.deployment,
        later.pods,
      ).size,
    ).toBe(0);
  });

  it('fails on the second evicted pod of the new revision, not the first', () => {
    const one = rollout('progressing-new-rs', [pod('evicted-ephemeral-storage')]);
    expect(verdictFor(one, expectationOf(one.deployment), new Map(), at(1000)).state).toBe('progressing');
    const two = rollout('progressing-new-rs', [pod('evicted-ephemeral-storage'), pod('evicted-ephemeral-storage-2')]);
    const verdict = verdictFor(two, expectationOf(two.deployment), new Map(), at(1000));
    expect(verdict.state).toBe('failed');
    if (verdict.state === 'failed' && verdict.cause.source === 'pod')
      expect(verdict.cause.finding.reason).toBe('Evicted');
  });

  it('fails an impossible node selector after its grace, and never a lack of room', () => {
    const selector = rollout('progressing-new-rs', [pod('unschedulable-node-selector')]);
    const expected = expectationOf(selector.deployment);
    const seen = rememberFindings(
      new Map(),
      verdictFor(selector, expected, new Map(), at(0)),
      0,
      selector.deployment,
      selector.pods,
    );
    expect(verdictFor(selector, expected, seen, at(29_000)).state).toBe('progressing');
    expect(verdictFor(selector, expected, seen, at(30_000)).state).toBe('failed');
    const room = rollout('progressing-new-rs', [pod('unschedulable-pending')]);
    const roomSeen = rememberFindings(
      new Map(),
      verdictFor(room, expected, new Map(), at(0)),
      0,
      room.deployment,
      room.pods,
    );
    expect(verdictFor(room, expected, roomSeen, at(590_000)).state).toBe('progressing');
  });
});
