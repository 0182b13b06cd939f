// The report's account of the checks (--verify, --verify-job) and of the bake (--bake): part of
// the --output json report (json.ts), described by schema/report.schema.json. Pure.
import type { ContainerLog } from '../model/findings.js';
import type { BakeOutcome, Verification, VerifyOutcome } from '../model/verify.js';

export interface JsonLog {
  pod: string;
  container: string;
  previous: boolean;
  lines: string[];
  error: string | null;
}

export interface JsonCheck {
  type: 'command' | 'job';
  /** --verify: the command as typed. */
  command: string | null;
  /** --verify-job: the file, and the Job made from it. */
  file: string | null;
  job: { namespace: string; name: string } | null;
  /** Right after the rollout, or again during the bake (--verify-interval). */
  during: 'verify' | 'bake';
  passed: boolean;
  /** A signal stopped it: not the check's verdict. */
  cancelled: boolean;
  summary: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** A command's last lines (stdout and stderr as they came), up to 50, sanitised. */
  lines: string[];
  /** A Job's pods' states and its failing containers' last lines. */
  evidence: string[];
  logs: JsonLog[];
  nextStep: string | null;
  /** A Job after its check: deleted, kept (--keep-verify), or failed (with the command that deletes it). */
  cleanup: { action: 'deleted' | 'kept' | 'failed'; detail: string | null; commands: string[] } | null;
}

export interface JsonBake {
  durationMs: number;
  elapsedMs: number;
  passed: boolean;
  stoppedBy: NonNullable<BakeOutcome['stoppedBy']> | null;
  workload: { apiVersion: string; kind: string; namespace: string | null; name: string } | null;
  summary: string | null;
  evidence: string[];
  logs: JsonLog[];
  nextStep: string | null;
  /** How many times the --verify commands ran again during the bake. */
  checksRun: number;
}

export function checksReport(verification: Verification | undefined): JsonCheck[] {
  return (verification?.checks ?? []).map(checkReport);
}

export function bakeReport(verification: Verification | undefined): JsonBake | null {
  const bake = verification?.bake;
  if (!bake) return null;
  return {
    durationMs: Math.round(bake.durationMs),
    elapsedMs: Math.round(bake.elapsedMs),
    passed: bake.passed,
    stoppedBy: bake.stoppedBy ?? null,
    workload: bake.workload
      ? {
          apiVersion: bake.workload.apiVersion,
          kind: bake.workload.kind,
          namespace: bake.workload.namespace || null,
          name: bake.workload.name,
        }
      : null,
    summary: bake.summary ?? null,
    evidence: [...bake.evidence],
    logs: bake.logs.map(logReport),
    nextStep: bake.nextStep ?? null,
    checksRun: bake.checksRun,
  };
}

function checkReport(outcome: VerifyOutcome): JsonCheck {
  const { check } = outcome;
  return {
    type: check.type,
    command: check.type === 'command' ? check.command : null,
    file: check.type === 'job' ? check.file : null,
    job: check.type === 'job' && check.job ? { namespace: check.job.namespace, name: check.job.name } : null,
    during: outcome.during,
    passed: outcome.passed,
    cancelled: outcome.cancelled ?? false,
    summary: outcome.summary,
    exitCode: outcome.exitCode ?? null,
    signal: outcome.signal ?? null,
    timedOut: outcome.timedOut,
    durationMs: Math.round(outcome.elapsedMs),
    lines: [...outcome.lines],
    evidence: [...outcome.evidence],
    logs: outcome.logs.map(logReport),
    nextStep: outcome.nextStep ?? null,
    cleanup: outcome.cleanup
      ? {
          action: outcome.cleanup.action,
          detail: outcome.cleanup.detail ?? null,
          commands: [...outcome.cleanup.commands],
        }
      : null,
  };
}

export function logReport({ pod, container, previous, lines, error }: ContainerLog): JsonLog {
  return { pod, container, previous, lines: [...lines], error: error ?? null };
}
