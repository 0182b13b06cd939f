// kguard.dev/failures-allowed: a new pod's crash loop (crash-loop-backoff.json: CrashLoopBackOff,
// restartCount 4) is tolerated until that many restarts, however long it lasts; other problems
// keep their own policies.
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/kinds/engine.js';
import { overridesOf } from '../../src/kinds/overrides.js';
import { judgingRow } from '../../src/kinds/table.js';
import type { Deployment, Pod } from '../../src/kube.js';
import type { KubeObject } from '../../src/objects/model.js';
import { expectationOf, snapshotFrom } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

function look(annotations: Record<string, string>, pods: Pod[], now: number) {
  const applied = deployment('progressing-new-rs');
  const annotated = { ...applied, metadata: { ...applied.metadata, annotations: { ...applied.metadata.annotations, ...annotations } } } as Deployment;
  const overrides = overridesOf(annotated as unknown as KubeObject);
  const rules = judgingRow(annotated as unknown as KubeObject, overrides).rules(overrides)!;
  const snapshot = snapshotFrom({ deployments: [annotated], replicaSets: [replicaSet('progressing-old'), replicaSet('progressing-new')], pods });
  const seen = new Map<string, number>();
  // First seen at 0: every grace has run out by `now`.
  for (const finding of judge(rules, { object: annotated as unknown as KubeObject, snapshot }, expectationOf(annotated), new Map(), { now: 0, startedAt: 0, timeoutMs: 900_000 }).findings) {
    seen.set(`${finding.pod}/${finding.container ?? ''}`, 0);
  }
  return { verdict: judge(rules, { object: annotated as unknown as KubeObject, snapshot }, expectationOf(annotated), seen, { now, startedAt: 0, timeoutMs: 900_000 }), overrides };
}

describe('kguard.dev/failures-allowed', () => {
  it('without it, a crash loop with 4 restarts fails the rollout', () => {
    expect(look({}, [pod('crash-loop-backoff')], 1000).verdict.state).toBe('failed');
  });

  it('"10": the same crash loop is tolerated, even 10 minutes on', () => {
    expect(look({ 'kguard.dev/failures-allowed': '10' }, [pod('crash-loop-backoff')], 600_000).verdict.state).toBe('progressing');
  });

  it('"3": fatal once the container restarted more often than allowed', () => {
    const verdict = look({ 'kguard.dev/failures-allowed': '3' }, [pod('crash-loop-backoff')], 1000).verdict;
    expect(verdict.state === 'failed' && verdict.cause.source === 'pod' && verdict.cause.finding.reason).toBe('CrashLoopBackOff');
  });

  it('does not tolerate what is not a crash (an image that does not exist)', () => {
    expect(look({ 'kguard.dev/failures-allowed': '10' }, [pod('err-image-pull-not-found')], 600_000).verdict.state).toBe('failed');
  });

  it('a value that is not a number is said and ignored', () => {
    expect(overridesOf({ metadata: { name: 'x', annotations: { 'kguard.dev/failures-allowed': 'many' } } }).problems).toEqual([
      'kguard.dev/failures-allowed: "many" is not a number of restarts (use "3"); ignored',
    ]);
  });
});
