// What a run found, as plain data, and the one function that maps it to an exit code.
import type { Cause, Progress } from '../track/verdict.js';
import type { Diagnosis } from '../classify/diagnosis.js';
import type { Finding } from '../classify/pod.js';
import { ExitCode } from '../errors.js';
import type { AppliedObject } from '../kubectl/apply-output.js';
import type { ObjectChange } from '../objects/compare.js';
import type { ObjectRef } from '../objects/model.js';
import type { RollbackMode } from '../rollback/plan.js';
import type { RestoreResult } from '../rollback/restore.js';

/**
 * Where one object ended. Tracked workloads end healthy, failed, timed-out (or progressing when
 * the watch stopped because another object failed); someone else's change ends in conflict or
 * gone; "unverified" is a changed workload kguard cannot judge; "applied" an object with no
 * status to judge (a ConfigMap, a Service).
 */
export interface ObjectVerdict {
  state: 'healthy' | 'failed' | 'timed-out' | 'conflict' | 'gone' | 'progressing' | 'unverified' | 'applied';
  detail?: string;
  progress?: Progress;
  findings?: Finding[];
  cause?: Cause;
  waitingFor?: string;
}

export interface ObjectResult {
  ref: ObjectRef;
  /** What the apply did to it. */
  changeKind: ObjectChange['change'];
  /** The fields the apply changed (for "configured"). */
  changedFields: string[];
  /** Whether kguard watched it to a verdict. */
  tracked?: boolean;
  verdict?: ObjectVerdict;
  diagnosis?: Diagnosis;
  /** From the end of the apply to the verdict. */
  verdictAfterMs?: number;
  restore?: RestoreResult;
  /** A restored workload, tracked until healthy again. */
  afterRestore?: { state: ObjectVerdict['state']; summary?: string; elapsedMs: number };
}

export interface RunResult {
  /** "preview" for --dry-run: nothing was changed. */
  mode: 'apply' | 'preview';
  objects: ObjectResult[];
  applied: AppliedObject[];
  /** Set when kubectl apply failed part-way (what it had changed was restored). */
  applyError?: string;
  /** Set when a signal cancelled the run after the apply ("interrupted by SIGTERM"). */
  cancelled?: string;
  rollbackMode: RollbackMode;
  applyMs: number;
  totalMs: number;
  kubectlProcesses: number;
}

export type Outcome = 'interrupted' | 'succeeded' | 'unchanged' | 'unverified' | 'previewed' | 'rolled-back' | 'failed' | 'timed-out' | 'needs-attention';

/** The loudest thing that happened decides: a person must act (4) > failed (3) > timed out (5) > ok. */
export function outcomeOf(result: Pick<RunResult, 'objects' | 'mode' | 'applyError' | 'cancelled'>): Outcome {
  if (result.mode === 'preview') return 'previewed';
  const states = result.objects.map((object) => object.verdict?.state);
  const restores = result.objects.map((object) => object.restore);
  const needsPerson =
    states.some((state) => state === 'conflict' || state === 'gone') ||
    restores.some(
      (restore) =>
        restore?.status === 'failed' || (restore?.status === 'kept' && restore.reason !== 'no-rollback' && restore.reason !== 'not-failed'),
    ) ||
    result.objects.some((object) => object.afterRestore !== undefined && object.afterRestore.state !== 'healthy');
  if (needsPerson) return 'needs-attention';
  if (result.cancelled !== undefined) return 'interrupted';
  const restored = restores.some((restore) => restore !== undefined && restore.status !== 'kept');
  if (states.includes('failed') || result.applyError !== undefined) return restored ? 'rolled-back' : 'failed';
  if (states.includes('timed-out')) return 'timed-out';
  if (states.includes('unverified')) return 'unverified';
  if (!result.objects.some((object) => object.changeKind !== 'unchanged' && object.changeKind !== 'absent')) return 'unchanged';
  return 'succeeded';
}

const EXIT_CODES: Record<Outcome, ExitCode> = {
  interrupted: ExitCode.Interrupted,
  succeeded: ExitCode.Success,
  unchanged: ExitCode.Success,
  unverified: ExitCode.Success,
  previewed: ExitCode.Success,
  'rolled-back': ExitCode.RolledBack,
  failed: ExitCode.RolledBack,
  'timed-out': ExitCode.TimedOut,
  'needs-attention': ExitCode.RollbackFailed,
};

/** Whether anything was written back (put back, deleted or created again) by the restore. */
export function anythingRestored(result: Pick<RunResult, 'objects'>): boolean {
  return result.objects.some((object) => object.restore !== undefined && object.restore.status !== 'kept' && object.restore.status !== 'failed');
}

export function exitCodeFor(result: Pick<RunResult, 'objects' | 'mode' | 'applyError' | 'cancelled'>): ExitCode {
  return EXIT_CODES[outcomeOf(result)];
}
