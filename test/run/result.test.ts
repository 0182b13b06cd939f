import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { RestoreResult } from '../../src/model/result.js';
import { exitCodeFor, outcomeOf } from '../../src/run/apply/result.js';
import type { ObjectResult } from '../../src/model/result.js';
import type { Verdict } from '../../src/model/verdict.js';
import { NO_PROGRESS } from '../../src/kinds/engine.js';

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
function object(
  verdict: Verdict | undefined,
  restore?: RestoreResult,
  afterRestore?: ObjectResult['afterRestore'],
): ObjectResult {
  return {
    ref,
    changeKind: verdict ? 'configured' : 'unchanged',
    changedFields: [],
    tracked: true,
    verdict,
    restore,
    afterRestore,
  };
}
const failed: Verdict = {
  state: 'failed',
  progress: NO_PROGRESS,
  findings: [],
  cause: { source: 'apply', message: 'kubectl could not apply' },
};
const timedOut: Verdict = {
  state: 'timed-out',
  progress: NO_PROGRESS,
  findings: [],
  waitingFor: '0 of 1 updated replicas are available',
};
const restored: RestoreResult = { status: 'restored', differences: [] };
const run = (...objects: ObjectResult[]) => ({ mode: 'apply' as const, objects });

describe('exitCodeFor', () => {
  it('is 0 when nothing changed or everything is healthy', () => {
    expect(exitCodeFor(run(object(undefined), object({ state: 'healthy', progress: NO_PROGRESS, findings: [] })))).toBe(
      ExitCode.Success,
    );
  });
  it('is 0 for a preview, whatever it shows', () => {
    expect(outcomeOf({ mode: 'preview', objects: [object(failed)] })).toBe('previewed');
  });
  it('is 3 for a failed rollout whose apply was restored', () => {
    expect(exitCodeFor(run(object(failed, restored, { state: 'healthy', elapsedMs: 1 })))).toBe(3);
  });
  it('is 3 for a failed rollout left in place by --rollback none', () => {
    expect(exitCodeFor(run(object(failed, { status: 'kept', reason: 'no-rollback', commands: [] })))).toBe(3);
  });
  it('is 3 when kubectl apply failed part-way and what it changed was restored', () => {
    expect(exitCodeFor({ ...run(object(failed, restored)), applyError: 'kubectl could not apply' })).toBe(3);
  });
  it('is 3 when a check failed after a healthy rollout, restored or left in place', () => {
    const healthy: Verdict = { state: 'healthy', progress: NO_PROGRESS, findings: [] };
    const check = {
      check: { type: 'command' as const, command: 'false' },
      during: 'verify' as const,
      passed: false,
      summary: 'exited with code 1',
      exitCode: 1,
      timedOut: false,
      elapsedMs: 5,
      lines: [],
      evidence: [],
      logs: [],
    };
    expect(outcomeOf({ ...run(object(healthy, restored)), verification: { checks: [check] } })).toBe('rolled-back');
    expect(
      outcomeOf({
        ...run(object(healthy, { status: 'kept', reason: 'no-rollback', commands: [] })),
        verification: { checks: [check] },
      }),
    ).toBe('failed');
    // A check stopped by a signal is no verdict; the signal decides.
    expect(
      outcomeOf({
        ...run(object(healthy, restored)),
        cancelled: 'interrupted by SIGTERM',
        verification: { checks: [{ ...check, cancelled: true }] },
      }),
    ).toBe('interrupted');
  });
  it("is 3 when the bake found a workload broken; someone else's change during the bake is 4", () => {
    const healthy: Verdict = { state: 'healthy', progress: NO_PROGRESS, findings: [] };
    const bake = {
      durationMs: 30_000,
      elapsedMs: 5_000,
      passed: false,
      stoppedBy: 'workload' as const,
      workload: ref,
      evidence: [],
      logs: [],
      checksRun: 0,
    };
    expect(exitCodeFor({ ...run(object(healthy, restored)), verification: { checks: [], bake } })).toBe(3);
    const conflict: Verdict = {
      state: 'conflict',
      progress: NO_PROGRESS,
      findings: [],
      detail: 'someone else changed spec.template',
    };
    expect(
      exitCodeFor({
        ...run(object(conflict, { status: 'kept', reason: 'conflict', commands: [] })),
        verification: { checks: [], bake: { ...bake, stoppedBy: 'conflict' } },
      }),
    ).toBe(4);
  });
  it('is 5 for a timeout', () => {
    expect(exitCodeFor(run(object(timedOut, restored)))).toBe(5);
  });
  it('is 4 when a restore failed, whatever else happened', () => {
    const failedRestore: RestoreResult = { status: 'failed', reason: 'x', commands: [] };
    expect(exitCodeFor(run(object(timedOut, failedRestore), object(failed, restored)))).toBe(4);
  });
  it('is 4 when a restored workload did not become healthy again', () => {
    expect(exitCodeFor(run(object(failed, restored, { state: 'timed-out', elapsedMs: 1 })))).toBe(4);
  });
  it('is 4 when a created object was kept (--keep-created, or a Namespace)', () => {
    expect(exitCodeFor(run(object(failed, { status: 'kept', reason: 'keep-created', commands: [] })))).toBe(4);
  });
  it('is 4 when someone else changed an object during the watch', () => {
    expect(
      exitCodeFor(
        run(
          object({
            state: 'conflict',
            progress: NO_PROGRESS,
            findings: [],
            detail: 'spec.replicas changed by kubectl-scale',
          }),
        ),
      ),
    ).toBe(4);
  });
});
