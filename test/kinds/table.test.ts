import { snapshotFrom, expectationOf } from '../fakes.js';
// The kind adapters' verdicts on real-shaped fixtures (test/fixtures/README.md): what counts as
// done is what each kind's `kubectl rollout status` viewer (or kubectl wait, or kstatus) says.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import { type KubeObject, refOf } from '../../src/objects/model.js';
import { judgedByKstatus, rowFor } from '../../src/kinds/table.js';
import { NO_OVERRIDES, overridesOf, type Overrides } from '../../src/kinds/overrides.js';
import type { RolloutVerdict as Verdict } from '../../src/model/verdict.js';
import { judge } from '../../src/kinds/engine.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import { fixture } from '../fixtures/load.js';

const at = (now: number) => ({ now, startedAt: 0, timeoutMs: 300_000 });

/** One poll of `object` (as applied and as observed), with the pods read beside it. */
function poll(
  object: KubeObject,
  pods: string[] = [],
  options: { overrides?: Overrides; now?: number; seen?: Map<string, number> } = {},
): Verdict {
  const snapshot = snapshotFrom({ pods: pods.map((name) => fixture<Pod>(name)), others: [object] });
  return judgeRow(object, object, snapshot, options.overrides ?? NO_OVERRIDES, options);
}

/** The shared engine judging `observed` by the rules of its kind's row, as applied `applied`. */
function judgeRow(
  applied: KubeObject,
  observed: KubeObject | undefined,
  snapshot: WorkloadSnapshot,
  overrides: Overrides,
  options: { now?: number; seen?: Map<string, number> } = {},
): Verdict {
  const rules = rowFor(applied).rules(overrides);
  if (!rules) throw new Error(`${applied.kind} has no rules: it is never watched`);
  return judge(
    rules,
    { object: observed, snapshot },
    expectationOf(applied),
    options.seen ?? new Map(),
    at(options.now ?? 1000),
  );
}

describe('StatefulSet (kubectl StatefulSetStatusViewer)', () => {
  it('fails on the new revision pod that cannot pull, not on the old ready ones', () => {
    const verdict = poll(fixture('statefulsets/rolling-stuck'), [
      'statefulsets/pods/db-0-old-ready',
      'statefulsets/pods/db-1-old-ready',
      'statefulsets/pods/db-2-new-image-pull-backoff',
    ]);
    expect(verdict.state).toBe('failed');
    if (verdict.state !== 'failed' || verdict.cause.source !== 'pod') throw new Error('expected a pod cause');
    expect(verdict.cause.finding).toMatchObject({ pod: 'db-2', reason: 'ImagePullBackOff', image: 'postgres:17.99' });
    expect(verdict.findings.map((finding) => finding.pod)).toEqual(['db-2']);
    expect(verdict.progress).toMatchObject({
      revision: 'db-7d4b9c8f6',
      desired: 3,
      updated: 1,
      ready: 2,
      summary: '1/3 pods updated, 2/3 ready',
    });
  });

  it('waits for pods to be ready as the viewer does', () => {
    const verdict = poll(fixture('statefulsets/rolling-stuck'), [
      'statefulsets/pods/db-0-old-ready',
      'statefulsets/pods/db-1-old-ready',
    ]);
    expect(verdict).toMatchObject({ state: 'progressing', waitingFor: 'waiting for 1 pods to be ready' });
  });

  it('is done when every pod is ready and updated', () => {
    expect(poll(fixture('statefulsets/complete')).state).toBe('healthy');
  });

  it('waits for the controller to observe the new generation', () => {
    expect(poll(fixture('statefulsets/not-observed'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the statefulset controller to observe generation 4',
    });
  });

  it('is done when the ordinals at or above the partition are updated, the rest still old', () => {
    expect(poll(fixture('statefulsets/partitioned-done')).state).toBe('healthy');
    expect(poll(fixture('statefulsets/partitioned-waiting'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for partitioned roll out to finish: 0 out of 1 new pods have been updated',
    });
  });

  it('OnDelete: applied, nothing rolls', () => {
    const planned = rowFor(fixture('statefulsets/on-delete')).unwatched(
      fixture('statefulsets/on-delete'),
      NO_OVERRIDES,
    );
    expect(planned).toEqual({
      state: 'applied',
      detail: expect.stringContaining('updateStrategy OnDelete: nothing rolls out until its pods are deleted'),
    });
    expect(
      rowFor(fixture('statefulsets/complete')).unwatched(fixture('statefulsets/complete'), NO_OVERRIDES),
    ).toBeUndefined();
  });
});

describe('DaemonSet (kubectl DaemonSetStatusViewer)', () => {
  it('judges only the pods of the current template generation', () => {
    const verdict = poll(fixture('daemonsets/rolling'), [
      'daemonsets/pods/old-ready',
      'daemonsets/pods/new-crash-loop',
    ]);
    expect(verdict.findings.map((finding) => finding.pod)).toEqual(['node-agent-7xkq2']);
    // CrashLoopBackOff with 4 restarts is past the classifier's 3-restart policy.
    expect(verdict.state).toBe('failed');
  });

  it('waits for updated pods, then for available ones, and is done when all are', () => {
    expect(poll(fixture('daemonsets/rolling'), ['daemonsets/pods/old-ready'])).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for daemon set rollout to finish: 1 out of 3 new pods have been updated',
    });
    expect(poll(fixture('daemonsets/complete')).state).toBe('healthy');
  });

  it('OnDelete: applied, nothing rolls', () => {
    expect(
      rowFor(fixture('daemonsets/on-delete')).unwatched(fixture('daemonsets/on-delete'), NO_OVERRIDES)?.state,
    ).toBe('applied');
  });
});

describe('Job (Complete condition; Failed from the job controller)', () => {
  it('waits while it runs and is done at Complete', () => {
    expect(poll(fixture('jobs/running'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the job to complete',
      progress: { summary: '0/1 completions succeeded, 1 running' },
    });
    const done = poll(fixture('jobs/complete'));
    expect(done).toMatchObject({ state: 'healthy', progress: { summary: '1/1 completions succeeded' } });
  });

  it('fails at the FailureTarget the 1.32 controller writes before Failed, with its reason, and shows why the pods failed', () => {
    for (const name of ['jobs/failure-target', 'jobs/failed-backoff-limit']) {
      const verdict = poll(fixture(name), ['jobs/pods/failed-exit-1']);
      if (verdict.state !== 'failed' || verdict.cause.source !== 'condition')
        throw new Error(`${name}: expected a condition cause, got ${verdict.state}`);
      expect(verdict.cause).toMatchObject({
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
      });
      expect(verdict.findings).toEqual([
        expect.objectContaining({
          pod: 'migrate-x2k9p',
          container: 'migrate',
          reason: 'Error',
          message: 'exited with code 1',
        }),
      ]);
    }
    const deadline = poll(fixture('jobs/deadline-exceeded'));
    expect(deadline.state === 'failed' && deadline.cause.source === 'condition' && deadline.cause.reason).toBe(
      'DeadlineExceeded',
    );
  });

  it('fails at once when its pods cannot pull their image, but leaves crashes to backoffLimit', () => {
    const pull = poll(fixture('jobs/running'), ['jobs/pods/image-pull-backoff']);
    expect(pull.state === 'failed' && pull.cause.source === 'pod' && pull.cause.finding.reason).toBe(
      'ImagePullBackOff',
    );
    // Seen for 200 s with 4 restarts: past the classifier's crash-loop policy, yet not the Job's verdict.
    const seen = new Map([['migrate-r8n2c/migrate/CrashLoopBackOff', 0]]);
    const crash = poll(fixture('jobs/running'), ['jobs/pods/on-failure-crash-loop'], { now: 200_000, seen });
    expect(crash.state).toBe('progressing');
    expect(crash.findings.map((finding) => finding.reason)).toEqual(['CrashLoopBackOff']);
  });

  it('with kguard.dev/must-succeed "false" is done once a pod runs', () => {
    const running = fixture('jobs/running');
    const overrides = overridesOf({
      metadata: { name: 'migrate', annotations: { 'kguard.dev/must-succeed': 'false' } },
    });
    const runningPod = fixture<Pod>('statefulsets/pods/db-0-old-ready');
    runningPod.metadata.ownerReferences = [
      { apiVersion: 'batch/v1', kind: 'Job', name: 'migrate', uid: running.metadata.uid!, controller: true },
    ];
    const snapshot = snapshotFrom({ deployments: [], replicaSets: [], pods: [runningPod], others: [running] });
    const verdict = judgeRow(running, running, snapshot, overrides);
    expect(verdict.state).toBe('healthy');
    expect(poll(running, [], { overrides }).state).toBe('progressing');
  });

  it('a suspended Job runs nothing: applied', () => {
    expect(rowFor(fixture('jobs/suspended')).unwatched(fixture('jobs/suspended'), NO_OVERRIDES)?.state).toBe('applied');
  });
});

describe('Pod, PersistentVolumeClaim', () => {
  it('a bare pod is done when Ready and fails on its own fatal reason', () => {
    const ready = fixture('pods/running-ready');
    expect(poll(ready).state).toBe('healthy');
    const pulling = fixture('pods/image-pull-backoff');
    expect(poll(pulling).state).toBe('failed');
    const failed = fixture('jobs/pods/failed-exit-1');
    const verdict = poll(failed);
    expect(verdict.state === 'failed' && verdict.cause.source === 'condition' && verdict.cause.reason).toBe('Failed');
  });

  it('a claim is done when Bound, waits while Pending, fails when Lost', () => {
    expect(poll(fixture('claims/bound')).state).toBe('healthy');
    expect(poll(fixture('claims/pending'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the claim to be bound (phase Pending)',
    });
    expect(poll(fixture('claims/lost')).state).toBe('failed');
  });
});

describe('custom resources (kstatus conventions)', () => {
  it('waits for observedGeneration, then Reconciling, and fails on Stalled', () => {
    expect(poll(fixture('custom/kustomization-generation-behind'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the Kustomization controller to observe generation 5',
    });
    expect(poll(fixture('custom/kustomization-reconciling'))).toMatchObject({
      state: 'progressing',
      waitingFor: 'reconciling: Progressing: Reconciliation in progress',
    });
    const stalled = poll(fixture('custom/kustomization-stalled'));
    if (stalled.state !== 'failed' || stalled.cause.source !== 'condition')
      throw new Error('expected Stalled to fail it');
    expect(stalled.cause).toMatchObject({
      reason: 'BuildFailed',
      message: expect.stringContaining('kustomize build failed'),
    });
    expect(stalled.cause.rule.nextStep).toBe(
      'read its conditions and events: kubectl describe kustomization NAME -n NAMESPACE',
    );
    expect(poll(fixture('custom/kustomization-ready')).state).toBe('healthy');
  });

  it('waits while Ready is False (many controllers report False while they work) and times out at the deadline', () => {
    const issuing = fixture('custom/certificate-issuing');
    expect(poll(issuing)).toMatchObject({
      state: 'progressing',
      waitingFor:
        'waiting for Ready to be True (it is False: DoesNotExist: Issuing certificate as Secret does not exist)',
    });
    expect(poll(issuing, [], { now: 300_000 }).state).toBe('timed-out');
    expect(poll(fixture('custom/certificate-ready')).state).toBe('healthy');
  });

  it('waits when Ready speaks for an older generation (metav1.Condition observedGeneration, as cert-manager writes it)', () => {
    const ready = fixture('custom/certificate-ready');
    const changed = { ...ready, metadata: { ...ready.metadata, generation: 3 } } as KubeObject;
    const conditions = (changed['status'] as { conditions: Array<Record<string, unknown>> }).conditions.map(
      (condition) => ({ ...condition, observedGeneration: 2 }),
    );
    const stale = { ...changed, status: { ...(changed['status'] as object), conditions } } as KubeObject;
    expect(poll(stale)).toMatchObject({
      state: 'progressing',
      waitingFor: expect.stringContaining('for generation 3 (it is for 2)'),
    });
  });
});

describe('custom resources whose kind serves a status subresource (--status-grace)', () => {
  const created = fixture('custom/prometheus-just-created');
  const judgeAt = (object: KubeObject, now: number, graceMs?: number): Verdict => {
    const rules = rowFor(created, graceMs).rules(NO_OVERRIDES)!;
    return judge(rules, { object, snapshot: snapshotFrom({ others: [object] }) }, expectationOf(created), new Map(), {
      now,
      startedAt: 0,
      timeoutMs: 300_000,
    });
  };

  it('waits for the first status within the grace, then judges by kstatus and says so', () => {
    expect(judgeAt(created, 29_000, 30_000)).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the Prometheus controller to write its first status',
    });
    expect(judgeAt(created, 30_000, 30_000)).toMatchObject({
      state: 'healthy',
      detail: 'the Prometheus controller wrote no status in 30s: judged by kstatus without one',
    });
  });

  it('judges the first status as soon as it is written: a Stalled one fails, whenever kguard looked first', () => {
    const stalled = {
      ...created,
      status: {
        observedGeneration: 1,
        conditions: [{ type: 'Stalled', status: 'True', reason: 'ReconcileFailed', message: 'invalid spec' }],
      },
    } as KubeObject;
    expect(judgeAt(stalled, 1_000, 30_000)).toMatchObject({ state: 'failed', cause: { reason: 'ReconcileFailed' } });
    const available = {
      ...created,
      status: {
        observedGeneration: 1,
        conditions: [{ type: 'Available', status: 'True', reason: 'AllReplicasReady' }],
      },
    } as KubeObject;
    expect(judgeAt(available, 1_000, 30_000)).toMatchObject({ state: 'healthy' });
    expect(judgeAt(available, 1_000, 30_000)).not.toHaveProperty('detail');
  });

  it('a deadline before the grace is a timeout waiting for that status; without a status subresource kstatus calls it done at once', () => {
    const late = judge(
      rowFor(created, 30_000).rules(NO_OVERRIDES)!,
      { object: created, snapshot: snapshotFrom({ others: [created] }) },
      expectationOf(created),
      new Map(),
      { now: 10_000, startedAt: 0, timeoutMs: 10_000 },
    );
    expect(late).toMatchObject({
      state: 'timed-out',
      waitingFor: 'waiting for the Prometheus controller to write its first status',
    });
    expect(judgeAt(created, 0)).toMatchObject({ state: 'healthy' });
    expect(judgeAt(created, 0)).not.toHaveProperty('detail');
  });

  it('matters only for kinds kstatus judges: not for kinds with a row or a health rule', () => {
    expect(judgedByKstatus(created)).toBe(true);
    expect(judgedByKstatus({ apiVersion: 'apps/v1', kind: 'Deployment' })).toBe(false);
    expect(judgedByKstatus({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' })).toBe(false);
    expect(judgedByKstatus({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate' })).toBe(false);
    expect(judgedByKstatus({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate' }, [])).toBe(true);
  });

  it('a status the API server defaulted counts as written (Flux CRDs default status.observedGeneration to -1: not yet observed)', () => {
    const defaulted = {
      ...created,
      metadata: { ...created.metadata },
      status: { observedGeneration: -1 },
    } as KubeObject;
    expect(judgeAt(defaulted, 1_000, 30_000)).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the Prometheus controller to observe generation 1',
    });
    const emptyConditions = { ...created, status: { conditions: [] } } as KubeObject;
    expect(judgeAt(emptyConditions, 1_000, 30_000)).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the Prometheus controller to write its first status',
    });
  });
});

describe('kinds with nothing to watch', () => {
  it('are applied: no status (ConfigMap, RBAC) or only a schedule (CronJob)', () => {
    const object = (apiVersion: string, kind: string): KubeObject => ({
      apiVersion,
      kind,
      metadata: { name: 'x', namespace: 'shop' },
    });
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
      ['networking.k8s.io/v1', 'NetworkPolicy'],
    ] as const) {
      expect(rowFor(object(apiVersion, kind)).unwatched(object(apiVersion, kind), NO_OVERRIDES)).toEqual({
        state: 'applied',
        detail: undefined,
      });
    }
    expect(
      rowFor(object('batch/v1', 'CronJob')).unwatched(object('batch/v1', 'CronJob'), NO_OVERRIDES)?.detail,
    ).toContain('only schedules Jobs');
  });

  it('someone else changing or deleting the object wins, for every kind', () => {
    const applied = fixture('statefulsets/complete');
    const theirs = { ...applied, spec: { ...(applied['spec'] as object), replicas: 5 } } as KubeObject;
    const snapshot = snapshotFrom({ deployments: [], replicaSets: [], pods: [], others: [theirs] });
    expect(judgeRow(applied, theirs, snapshot, NO_OVERRIDES)).toMatchObject({
      state: 'conflict',
      detail: 'someone else changed spec.replicas after kguard applied it',
    });
    expect(judgeRow(applied, undefined, snapshot, NO_OVERRIDES).state).toBe('gone');
  });
});

it('reads every kind through refOf-shaped references', () => {
  expect(refOf(fixture('statefulsets/complete'))).toEqual({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    namespace: 'shop',
    name: 'db',
  });
});
