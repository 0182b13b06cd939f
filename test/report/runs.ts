// Run results shaped like the pipeline's, for the report builders' tests.
import type { Finding } from '../../src/model/findings.js';
import { WAITING_REASONS } from '../../src/classify/table.js';
import type { RunEvent } from '../../src/model/events.js';
import type { RunResult } from '../../src/model/result.js';
import type { VerifyCheck } from '../../src/model/verify.js';
import { withOutcome } from '../../src/run/apply/result.js';

const pullFailure: Finding = {
  pod: 'web-7d9c6b8f4d-x2kqp',
  namespace: 'shop',
  container: 'web',
  initContainer: false,
  image: 'xxxxxnginx:1.17',
  reason: 'ImagePullBackOff',
  message: 'Back-off pulling image "xxxxxnginx:1.17"',
  restartCount: 0,
  ran: false,
  running: false,
  family: 'image-pull',
  rule: WAITING_REASONS.ImagePullBackOff!,
  policy: WAITING_REASONS.ImagePullBackOff!.policy,
};

const progress = { desired: 3, updated: 1, ready: 0, available: 0, revision: 7 } as never;

/** A run that touches every part of the report: a failed Deployment restored, a created ConfigMap kept, a cluster-scoped Namespace. */
export const restoredRun: RunResult = withOutcome({
  mode: 'apply',
  applied: [{ resource: 'deployment.apps', name: 'web', action: 'configured' }],
  rollbackMode: 'all',
  applyMs: 412.4,
  totalMs: 7160.2,
  kubectlProcesses: 14,
  objects: [
    {
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
      changeKind: 'configured',
      changedFields: ['spec.template.spec.containers[0].image'],
      tracked: true,
      verdict: { state: 'failed', findings: [pullFailure], cause: { source: 'pod', finding: pullFailure }, progress },
      diagnosis: {
        summary: 'new pods cannot pull their image "xxxxxnginx:1.17": ImagePullBackOff',
        evidence: ['pod web-7d9c6b8f4d-x2kqp ...'],
        nextStep: 'check the image',
      },
      verdictAfterMs: 4213.7,
      restore: { status: 'restored', differences: [] },
      afterRestore: { state: 'healthy', elapsedMs: 2087.1 },
    },
    {
      ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
      changeKind: 'created',
      changedFields: [],
      restore: {
        status: 'kept',
        reason: 'keep-created',
        commands: ['kubectl delete configmap/settings -n shop'],
        copyFile: undefined,
      },
    },
    {
      ref: { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop' },
      changeKind: 'unchanged',
      changedFields: [],
    },
  ],
});

const webRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };

/** A healthy rollout whose checks passed, one of them a Job, and whose bake found a crash: restored. */
export const bakedRun: RunResult = withOutcome({
  mode: 'apply',
  applied: [{ resource: 'deployment.apps', name: 'web', action: 'configured' }],
  rollbackMode: 'all',
  applyMs: 300,
  totalMs: 9000,
  kubectlProcesses: 30,
  objects: [
    {
      ref: webRef,
      changeKind: 'configured',
      changedFields: ['spec.template.spec.containers[0].image'],
      tracked: true,
      verdict: { state: 'healthy', findings: [], progress },
      verdictAfterMs: 1000,
      restore: { status: 'restored', differences: [] },
      afterRestore: { state: 'healthy', elapsedMs: 500 },
    },
  ],
  verification: {
    checks: [
      {
        check: { type: 'command', command: 'curl -fsS web/healthz' },
        during: 'verify',
        passed: true,
        exitCode: 0,
        summary: 'exited 0',
        timedOut: false,
        elapsedMs: 40.4,
        lines: ['ok'],
        evidence: [],
        logs: [],
      },
      {
        check: {
          type: 'job',
          file: 'smoke.yaml',
          job: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'shop', name: 'smoke-x2k4q' },
        },
        during: 'verify',
        passed: true,
        summary: 'completed (1/1 completions succeeded)',
        timedOut: false,
        elapsedMs: 3100,
        lines: [],
        evidence: [],
        logs: [],
        cleanup: { action: 'deleted', commands: [] },
      },
      {
        check: { type: 'command', command: 'curl -fsS web/healthz' },
        during: 'bake',
        passed: true,
        exitCode: 0,
        summary: 'exited 0',
        timedOut: false,
        elapsedMs: 35,
        lines: ['ok'],
        evidence: [],
        logs: [],
      },
    ],
    bake: {
      durationMs: 30_000,
      elapsedMs: 5200,
      passed: false,
      stoppedBy: 'workload',
      workload: webRef,
      summary: 'container web of pod web-7d9c6b8f4d-x2kqp restarted (exit code 1, Error) <now>',
      evidence: [],
      logs: [{ pod: 'web-7d9c6b8f4d-x2kqp', container: 'web', previous: true, lines: ['panic: nil map'], shown: 5 }],
      nextStep: 'fix the app',
      checksRun: 1,
    },
  },
});

/** A run cancelled by SIGINT while its Deployment rolled out: the watch stopped, the apply restored. */
export const cancelledRun: RunResult = withOutcome({
  mode: 'apply',
  applied: [{ resource: 'deployment.apps', name: 'web', action: 'configured' }],
  rollbackMode: 'all',
  cancelled: 'interrupted by SIGINT',
  applyMs: 300,
  totalMs: 2000,
  kubectlProcesses: 9,
  objects: [
    {
      ref: webRef,
      changeKind: 'configured',
      changedFields: ['spec.template.spec.containers[0].image'],
      tracked: true,
      verdict: { state: 'progressing', findings: [], progress, waitingFor: 'waiting for 3 more new pods' },
      verdictAfterMs: 1500,
      restore: { status: 'restored', differences: [] },
    },
  ],
});

/** A check of the verify phase that failed (5 lines shown): what it said, how long it took, its last lines. */
export function verifyFailed(
  check: VerifyCheck,
  outcome: { summary: string; elapsedMs: number; lines: string[]; exitCode?: number; nextStep?: string },
): Extract<RunEvent, { kind: 'verify-failed' }> {
  return {
    kind: 'verify-failed',
    shown: 5,
    outcome: { check, during: 'verify', passed: false, timedOut: false, evidence: [], logs: [], ...outcome },
  };
}
