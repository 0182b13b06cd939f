// The machine-readable report of --output json: built from the run's result, printed once on stdout.
import type { Finding } from '../classify/pod.js';
import { exitCodeFor, outcomeOf, type RunResult, type WorkloadResult } from '../run/result.js';

export const REPORT_VERSION = 1;

export interface JsonReport {
  reportVersion: number;
  outcome: ReturnType<typeof outcomeOf>;
  exitCode: number;
  applied: Array<{ resource: string; name: string; action: string }>;
  workloads: JsonWorkload[];
  rollbackMode: RunResult['rollbackMode'];
  timings: { applyMs: number; totalMs: number };
  kubectlProcesses: number;
  /** Every line kguard logged, in order, without symbols or colour. */
  messages: string[];
}

export interface JsonWorkload {
  kind: string;
  name: string;
  namespace: string;
  changed: boolean;
  change: string;
  recordedRevision: number | null;
  newRevision: number | null;
  verdict: 'unchanged' | 'healthy' | 'failed' | 'timed-out' | 'conflict' | 'gone' | 'interrupted';
  reason: string | null;
  category: string | null;
  summary: string | null;
  nextStep: string | null;
  evidence: string[];
  pods: Array<{ pod: string; container: string | null; reason: string; message: string; restartCount: number }>;
  rollback: { status: string; toRevision: number | null; reason: string | null; commands: string[] } | null;
  timings: { verdictAfterMs: number | null; rollbackMs: number | null };
}

export function buildReport(result: RunResult, messages: readonly string[]): JsonReport {
  return {
    reportVersion: REPORT_VERSION,
    outcome: outcomeOf(result),
    exitCode: exitCodeFor(result),
    applied: result.applied.map(({ resource, name, action }) => ({ resource, name, action })),
    workloads: result.workloads.map(workloadReport),
    rollbackMode: result.rollbackMode,
    timings: { applyMs: Math.round(result.applyMs), totalMs: Math.round(result.totalMs) },
    kubectlProcesses: result.kubectlProcesses,
    messages: [...messages],
  };
}

function workloadReport(result: WorkloadResult): JsonWorkload {
  const { workload, verdict, diagnosis, rollback } = result;
  const cause = verdict?.state === 'failed' ? verdict.cause : undefined;
  return {
    kind: workload.kind,
    name: workload.name,
    namespace: workload.namespace,
    changed: result.change.changed,
    change: result.change.detail,
    recordedRevision: result.before.revision ?? null,
    newRevision: verdict?.progress.revision ?? null,
    verdict: verdict === undefined ? 'unchanged' : verdict.state === 'progressing' ? 'interrupted' : verdict.state,
    reason: cause ? (cause.source === 'pod' ? cause.finding.reason : cause.reason) : null,
    category: cause ? (cause.source === 'pod' ? cause.finding.rule.category : cause.rule.category) : null,
    summary: diagnosis?.summary ?? (verdict && 'detail' in verdict ? verdict.detail : null),
    nextStep: diagnosis?.nextStep ?? null,
    evidence: diagnosis?.evidence ?? [],
    pods: (verdict?.findings ?? []).map(podReport),
    rollback: rollback
      ? {
          status: rollback.status,
          toRevision: 'toRevision' in rollback ? rollback.toRevision : null,
          reason: 'reason' in rollback ? rollback.reason : null,
          commands: 'commands' in rollback ? rollback.commands : [],
        }
      : null,
    timings: {
      verdictAfterMs: result.verdictAfterMs === undefined ? null : Math.round(result.verdictAfterMs),
      rollbackMs: rollback?.status === 'rolled-back' ? Math.round(rollback.durationMs) : null,
    },
  };
}

function podReport(finding: Finding): JsonWorkload['pods'][number] {
  return {
    pod: finding.pod,
    container: finding.container ?? null,
    reason: finding.reason,
    message: finding.message,
    restartCount: finding.restartCount,
  };
}
