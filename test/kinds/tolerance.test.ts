// kguard.dev/failures-allowed: a new pod's crash loop (crash-loop-backoff.json: CrashLoopBackOff,
// restartCount 4) is tolerated until that many restarts, however long it lasts; other problems
// keep their own policies.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/classify/diagnosis.js';
import { judge, rememberSeen } from '../../src/kinds/engine.js';
import { overridesOf } from '../../src/kinds/overrides.js';
import { judgingRow } from '../../src/kinds/table.js';
import type { Deployment, KubeEvent, Pod } from '../../src/kube.js';
import type { KubeObject } from '../../src/objects/model.js';
import { expectationOf, snapshotFrom } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

function look(annotations: Record<string, string>, pods: Pod[], now: number) {
  const applied = deployment('progressing-new-rs');
  const annotated = {
    ...applied,
    metadata: { ...applied.metadata, annotations: { ...applied.metadata.annotations, ...annotations } },
  } as Deployment;
  const overrides = overridesOf(annotated as unknown as KubeObject);
  const rules = judgingRow(annotated as unknown as KubeObject, overrides).rules(overrides)!;
  const snapshot = snapshotFrom({
    deployments: [annotated],
    replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
    pods,
  });
  const seen = new Map<string, number>();
  // First seen at 0: every grace has run out by `now`.
  for (const finding of judge(
    rules,
    { object: annotated as unknown as KubeObject, snapshot },
    expectationOf(annotated),
    new Map(),
    { now: 0, startedAt: 0, timeoutMs: 900_000 },
  ).findings) {
    seen.set(`${finding.pod}/${finding.container ?? ''}`, 0);
  }
  return {
    verdict: judge(rules, { object: annotated as unknown as KubeObject, snapshot }, expectationOf(annotated), seen, {
      now,
      startedAt: 0,
      timeoutMs: 900_000,
    }),
    overrides,
  };
}

describe('kguard.dev/failures-allowed', () => {
  it('without it, a crash loop with 4 restarts fails the rollout', () => {
    expect(look({}, [pod('crash-loop-backoff')], 1000).verdict.state).toBe('failed');
  });

  it('"10": the same crash loop is tolerated, even 10 minutes on', () => {
    expect(look({ 'kguard.dev/failures-allowed': '10' }, [pod('crash-loop-backoff')], 600_000).verdict.state).toBe(
      'progressing',
    );
  });

  it('"3": fatal once the container restarted more often than allowed', () => {
    const verdict = look({ 'kguard.dev/failures-allowed': '3' }, [pod('crash-loop-backoff')], 1000).verdict;
    expect(verdict.state === 'failed' && verdict.cause.source === 'pod' && verdict.cause.finding.reason).toBe(
      'CrashLoopBackOff',
    );
  });

  it('does not tolerate what is not a crash (an image that does not exist)', () => {
    expect(
      look({ 'kguard.dev/failures-allowed': '10' }, [pod('err-image-pull-not-found')], 600_000).verdict.state,
    ).toBe('failed');
  });

  it('a value that is not a number is said and ignored', () => {
    expect(
      overridesOf({ metadata: { name: 'x', annotations: { 'kguard.dev/failures-allowed': 'many' } } }).problems,
    ).toEqual(['kguard.dev/failures-allowed: "many" is not a number of restarts (use "3"); ignored']);
  });
});

describe('--readiness-grace', () => {
  function judgeNotReady(readinessGraceMs: number | undefined, now: number) {
    const applied = deployment('progressing-new-rs');
    const overrides = overridesOf(applied as unknown as KubeObject);
    const rules = judgingRow(applied as unknown as KubeObject, overrides, undefined, [], { readinessGraceMs }).rules(
      overrides,
    )!;
    const snapshot = snapshotFrom({
      deployments: [applied],
      replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')],
      pods: [pod('running-not-ready-readiness')],
    });
    const observation = { object: applied as unknown as KubeObject, snapshot };
    const first = judge(rules, observation, expectationOf(applied), new Map(), {
      now: 0,
      startedAt: 0,
      timeoutMs: 900_000,
    });
    const seen = rememberSeen(rules, new Map(), first, 0, observation, expectationOf(applied));
    return judge(rules, observation, expectationOf(applied), seen, { now, startedAt: 0, timeoutMs: 900_000 });
  }

  it('without a grace, a pod that runs but is never Ready is waited for until the deadline', () => {
    expect(judgeNotReady(undefined, 600_000).state).toBe('progressing');
  });

  it('with a grace of 5m: still waited for at 4m59s, failed at 5m with ContainersNotReady', () => {
    expect(judgeNotReady(300_000, 299_000).state).toBe('progressing');
    const verdict = judgeNotReady(300_000, 300_000);
    expect(verdict.state === 'failed' && verdict.cause.source === 'pod' && verdict.cause.finding.reason).toBe(
      'ContainersNotReady',
    );
  });

  it('the diagnosis says the readiness probe last failure, from the kubelet Unhealthy event', () => {
    const verdict = judgeNotReady(300_000, 300_000);
    const failing = verdict.state === 'failed' && verdict.cause.source === 'pod' ? verdict.cause.finding : undefined;
    const event = (message: string, time: string): KubeEvent => ({
      metadata: { name: `${failing!.pod}.17f3a5c1b2d4e6f8`, namespace: 'shop', creationTimestamp: time },
      involvedObject: {
        kind: 'Pod',
        name: failing!.pod,
        namespace: 'shop',
        fieldPath: `spec.containers{${failing!.container ?? 'web'}}`,
      },
      reason: 'Unhealthy',
      message,
      type: 'Warning',
      lastTimestamp: time,
      count: 3,
    });
    const events = [
      event(
        'Readiness probe failed: Get "http://10.244.1.23:8080/healthz": dial tcp 10.244.1.23:8080: connect: connection refused',
        '2026-11-30T10:15:10Z',
      ),
      event('Readiness probe failed: HTTP probe failed with statuscode: 503', '2026-11-30T10:19:55Z'),
    ];
    const diagnosis = diagnose(verdict, events, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
    });
    expect(JSON.stringify(diagnosis)).toContain('Readiness probe failed: HTTP probe failed with statuscode: 503');
  });
});
