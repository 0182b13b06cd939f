// What a run found, as plain data, and the one function that maps it to an exit code.
import type { Diagnosis } from '../classify/diagnosis.js';
import { ExitCode } from '../errors.js';
import type { AppliedObject } from '../kubectl/apply-output.js';
import type { WorkloadRef } from '../manifests/parse.js';
import type { RollbackMode, SkipReason } from '../rollback/plan.js';
import type { Before, Change } from '../track/change.js';
import type { Verdict } from '../track/verdict.js';

export type RollbackResult =
  | { status: 'rolled-back'; toRevision: number; durationMs: number }
  | { status: 'failed'; toRevision: number; reason: string; commands: string[] }
  | { status: 'skipped'; reason: SkipReason; commands: string[] };

export interface WorkloadResult {
  workload: WorkloadRef;
  before: Before;
  change: Change;
  /** The rollout's final verdict; absent when the apply did not change the workload. */
  verdict?: Verdict;
  diagnosis?: Diagnosis;
  rollback?: RollbackResult;
  /** From the end of the apply to the verdict. */
  verdictAfterMs?: number;
}

export interface RunResult {
  applied: AppliedObject[];
  workloads: WorkloadResult[];
  rollbackMode: RollbackMode;
  applyMs: number;
  totalMs: number;
  kubectlProcesses: number;
}

export type Outcome = 'succeeded' | 'rolled-back' | 'failed' | 'timed-out' | 'needs-attention';

/** The loudest thing that happened decides: a person must act (4) > failed (3) > timed out (5) > ok. */
export function outcomeOf(result: Pick<RunResult, 'workloads'>): Outcome {
  const states = result.workloads.map((workload) => workload.verdict?.state);
  const rollbacks = result.workloads.map((workload) => workload.rollback);
  const needsPerson =
    states.some((state) => state === 'conflict' || state === 'gone') ||
    rollbacks.some((rollback) => rollback?.status === 'failed' || (rollback?.status === 'skipped' && rollback.reason !== 'no-rollback'));
  if (needsPerson) return 'needs-attention';
  const rolledBack = rollbacks.some((rollback) => rollback?.status === 'rolled-back');
  if (states.includes('failed')) return rolledBack ? 'rolled-back' : 'failed';
  if (states.includes('timed-out')) return 'timed-out';
  return 'succeeded';
}

const EXIT_CODES: Record<Outcome, ExitCode> = {
  succeeded: ExitCode.Success,
  'rolled-back': ExitCode.RolledBack,
  failed: ExitCode.RolledBack,
  'timed-out': ExitCode.TimedOut,
  'needs-attention': ExitCode.RollbackFailed,
};

export function exitCodeFor(result: Pick<RunResult, 'workloads'>): ExitCode {
  return EXIT_CODES[outcomeOf(result)];
}
