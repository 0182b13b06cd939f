import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { exitCodeFor, type RollbackResult, type WorkloadResult } from '../../src/run/result.js';
import type { Verdict } from '../../src/track/verdict.js';

const progress = { desired: 1, updated: 0, ready: 0, available: 0 };
function workload(verdict: Verdict | undefined, rollback?: RollbackResult): WorkloadResult {
  return {
    workload: { kind: 'Deployment', name: 'web', namespace: 'shop' },
    before: { exists: true, revision: 6, images: [] },
    change: verdict ? { changed: true, how: 'updated', detail: '' } : { changed: false, detail: '' },
    verdict,
    rollback,
  };
}
const failedVerdict = { state: 'failed', progress, findings: [], cause: { source: 'deployment', reason: 'ProgressDeadlineExceeded', message: '', rule: { category: 'progress-deadline', policy: { when: 'now' }, cannot: '', nextStep: '' } } } satisfies Verdict;
const timedOut = { state: 'timed-out', progress, findings: [], waitingFor: '' } satisfies Verdict;
const rolledBack: RollbackResult = { status: 'rolled-back', toRevision: 6, durationMs: 1 };

describe('exitCodeFor', () => {
  it('is 0 when nothing changed or everything is healthy', () => {
    expect(exitCodeFor({ workloads: [workload(undefined), workload({ state: 'healthy', progress, findings: [] })] })).toBe(ExitCode.Success);
  });
  it('is 3 for a failed rollout that was rolled back', () => {
    expect(exitCodeFor({ workloads: [workload(failedVerdict, rolledBack)] })).toBe(3);
  });
  it('is 3 for a failed rollout left in place by --no-rollback', () => {
    expect(exitCodeFor({ workloads: [workload(failedVerdict, { status: 'skipped', reason: 'no-rollback', commands: [] })] })).toBe(3);
  });
  it('is 5 for a timeout', () => {
    expect(exitCodeFor({ workloads: [workload(timedOut, rolledBack)] })).toBe(5);
  });
  it('is 4 when a rollback failed, whatever else happened', () => {
    const failedRollback: RollbackResult = { status: 'failed', toRevision: 6, reason: 'x', commands: [] };
    expect(exitCodeFor({ workloads: [workload(timedOut, failedRollback), workload(failedVerdict, rolledBack)] })).toBe(4);
  });
  it('is 4 when a created Deployment failed and could not be rolled back', () => {
    expect(exitCodeFor({ workloads: [workload(failedVerdict, { status: 'skipped', reason: 'created-by-apply', commands: [] })] })).toBe(4);
  });
  it('is 4 when someone else changed a workload during the watch', () => {
    expect(exitCodeFor({ workloads: [workload({ state: 'conflict', progress, findings: [], detail: '' })] })).toBe(4);
  });
});
