import { describe, expect, it } from 'vitest';
import type { WorkloadRef } from '../../src/manifests/parse.js';
import { manualCommands, planRollback, type RolloutOutcome } from '../../src/rollback/plan.js';
import type { Before } from '../../src/track/change.js';
import type { Verdict } from '../../src/track/verdict.js';

const progress = { desired: 2, updated: 0, ready: 0, available: 0 };
const ref = (name: string): WorkloadRef => ({ kind: 'Deployment', name, namespace: 'shop' });
const existed = (revision: number): Before => ({ exists: true, revision, generation: 4, images: [] });
const healthy: Verdict = { state: 'healthy', progress, findings: [] };
const failed = { state: 'timed-out', progress, findings: [], waitingFor: 'x' } satisfies Verdict;
const outcome = (name: string, before: Before, verdict: Verdict): RolloutOutcome => ({ workload: ref(name), before, verdict });

describe('planRollback', () => {
  it('plans nothing when every changed Deployment is healthy', () => {
    expect(planRollback([outcome('web', existed(6), healthy)], 'all')).toEqual([]);
  });

  it('rolls back to the recorded revision, not the previous one', () => {
    expect(planRollback([outcome('web', existed(6), failed)], 'all')).toEqual([
      { workload: ref('web'), action: 'undo', toRevision: 6 },
    ]);
  });

  it('undoes every changed Deployment by default, healthy ones too', () => {
    const steps = planRollback([outcome('web', existed(6), failed), outcome('api', existed(3), healthy)], 'all');
    expect(steps.map((step) => [step.workload.name, step.action])).toEqual([
      ['web', 'undo'],
      ['api', 'undo'],
    ]);
  });

  it('undoes only the failing ones with --rollback failed', () => {
    const steps = planRollback([outcome('web', existed(6), failed), outcome('api', existed(3), healthy)], 'failed');
    expect(steps.map((step) => step.workload.name)).toEqual(['web']);
  });

  it('undoes nothing with --no-rollback, but says how to', () => {
    const steps = planRollback([outcome('web', existed(6), failed)], 'none');
    expect(steps).toEqual([{ workload: ref('web'), action: 'skip', reason: 'no-rollback', toRevision: 6 }]);
  });

  it('never deletes a Deployment the apply created', () => {
    const steps = planRollback([outcome('new', { exists: false, images: [] }, failed)], 'all');
    expect(steps).toEqual([{ workload: ref('new'), action: 'skip', reason: 'created-by-apply' }]);
    expect(manualCommands(steps[0]!, (args) => ['kubectl', ...args].join(' '))).toEqual(['kubectl delete deployment/new -n shop']);
  });

  it('does not undo a Deployment someone else changed', () => {
    const conflict: Verdict = { state: 'conflict', progress, findings: [], detail: 'someone else' };
    const steps = planRollback([outcome('web', existed(6), failed), outcome('api', existed(3), conflict)], 'all');
    expect(steps).toContainEqual({ workload: ref('api'), action: 'skip', reason: 'conflict', toRevision: 3 });
    expect(steps).toContainEqual({ workload: ref('web'), action: 'undo', toRevision: 6 });
  });

  it('gives the exact undo command for a manual rollback', () => {
    const [step] = planRollback([outcome('web', existed(6), failed)], 'all');
    expect(manualCommands(step!, (args) => ['kubectl', ...args].join(' '))).toEqual([
      'kubectl rollout undo deployment/web -n shop --to-revision=6',
    ]);
  });
});
