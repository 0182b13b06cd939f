// What kguard checks once every changed workload is healthy: commands (--verify), Jobs run in the
// cluster (--verify-job), and the bake that keeps watching afterwards (--bake). A failed check
// fails the apply as a unit: everything it changed is restored. Types only.
import type { ObjectRef } from '../objects/model.js';
import type { AnalysisOutcome } from './analysis.js';
import type { ContainerLog } from './findings.js';

/** One check, as the person asked for it. */
export type VerifyCheck =
  /** --verify CMD: run by the shell, in kguard's working directory. */
  | { type: 'command'; command: string }
  /** --verify-job FILE: the Job is created after the rollout; `job` once it exists. */
  | { type: 'job'; file: string; job?: ObjectRef };

/** When a check ran: right after the rollout, or again during the bake (--verify-interval). */
export type CheckedDuring = 'verify' | 'bake';

/** How one run of a check ended. */
export interface VerifyOutcome {
  check: VerifyCheck;
  during: CheckedDuring;
  passed: boolean;
  /** One clause: "exited with code 7", "killed after --verify-timeout 2s", "its Job completed". */
  summary: string;
  /** A command's exit code; undefined when it did not exit by itself (killed, never started). */
  exitCode?: number;
  /** The signal that ended a command, when one did. */
  signal?: string;
  /** It ran past --verify-timeout (a command was killed; a Job was deleted). */
  timedOut: boolean;
  /** The run was cancelled while it ran: not the check's verdict. */
  cancelled?: boolean;
  elapsedMs: number;
  /** What a command printed last (stdout and stderr as they came), oldest first; at most JSON_LOG_LINES. */
  lines: string[];
  /** A Job's evidence (its pods' states) and its failing containers' last lines. */
  evidence: string[];
  logs: ContainerLog[];
  /** What a person does next, when it failed. */
  nextStep?: string;
  /** A Job's fate after the check: deleted by uid, kept (--keep-verify), or left with the command that deletes it. */
  cleanup?: { action: 'deleted' | 'kept' | 'failed'; commands: string[]; detail?: string };
}

/**
 * The bake (--bake): after the rollout and the checks, the changed workloads are watched on for a
 * while. A restart, a pod that leaves Ready, an eviction, a fatal reason, or a check repeated every
 * --verify-interval that fails ends it early and fails the apply.
 */
export interface BakeOutcome {
  durationMs: number;
  /** How long it watched: durationMs when it passed. */
  elapsedMs: number;
  passed: boolean;
  /** Why it ended early: a workload broke, a repeated check failed, someone else changed an object, a signal. */
  stoppedBy?: 'workload' | 'check' | 'conflict' | 'cancelled' | 'unobserved' | 'analysis';
  /** The workload that broke (or that someone else changed). */
  workload?: ObjectRef;
  summary?: string;
  evidence: string[];
  logs: ContainerLog[];
  nextStep?: string;
  /** How many times the checks ran again during the bake. */
  checksRun: number;
}

export interface Verification {
  /** Every check run, in order (those repeated during the bake included). */
  checks: VerifyOutcome[];
  bake?: BakeOutcome;
  /** The metric analysis (--analysis), during the bake or once after the rollout. */
  analysis?: AnalysisOutcome;
}
