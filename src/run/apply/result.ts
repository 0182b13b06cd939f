// What a run found, as plain data, and the one function that maps it to an exit code.
import { isChange } from '../../objects/compare.js';
import { ExitCode } from '../../errors.js';
import type { Outcome, RunResult } from '../../model/result.js';
import type { Verification } from '../../model/verify.js';
import { writtenBack } from '../../restore/written-back.js';

/**
 * A check failed (--verify, --verify-job), the bake found a workload broken (--bake), or a metric
 * failed the analysis (--analysis): the apply failed as a unit. Not when a signal stopped them,
 * nor when someone else's change did, nor when the analysis could not judge (analysisInconclusive).
 */
export function verificationFailed(verification: Verification | undefined): boolean {
  if (!verification) return false;
  const bake = verification.bake;
  return (
    verification.checks.some((check) => !check.passed && !check.cancelled) ||
    verification.analysis?.verdict === 'failed' ||
    (bake !== undefined &&
      !bake.passed &&
      bake.stoppedBy !== 'conflict' &&
      bake.stoppedBy !== 'cancelled' &&
      bake.stoppedBy !== 'analysis')
  );
}

/** The analysis could not judge a metric (Prometheus unreachable, an error, no data): a person decides, nothing is restored. */
export function analysisInconclusive(verification: Verification | undefined): boolean {
  return verification?.analysis?.verdict === 'inconclusive' && !verificationFailed(verification);
}

/** The loudest thing that happened decides: a person must act (4) > failed (3) > timed out (5) > ok. */
export function outcomeOf(
  result: Pick<RunResult, 'objects' | 'mode' | 'applyError' | 'cancelled' | 'verification'>,
): Outcome {
  if (result.mode === 'preview') return 'previewed';
  const states = result.objects.map((object) => object.verdict?.state);
  const restores = result.objects.map((object) => object.restore);
  const needsPerson =
    states.some((state) => state === 'conflict' || state === 'gone') ||
    restores.some(
      (restore) =>
        restore?.status === 'failed' ||
        (restore?.status === 'kept' && restore.reason !== 'no-rollback' && restore.reason !== 'not-failed'),
    ) ||
    result.objects.some(
      (object) =>
        object.afterRestore !== undefined &&
        object.afterRestore.state !== 'healthy' &&
        object.afterRestore.failingBefore === undefined,
    );
  if (needsPerson || analysisInconclusive(result.verification)) return 'needs-attention';
  if (result.cancelled !== undefined) return 'interrupted';
  // Failed restores were said above: what is left, written back or kept.
  const restored = restores.some(writtenBack);
  if (states.includes('failed') || result.applyError !== undefined || verificationFailed(result.verification))
    return restored ? 'rolled-back' : 'failed';
  if (states.includes('timed-out')) return 'timed-out';
  if (!result.objects.some(isChange)) return 'unchanged';
  return 'succeeded';
}

const EXIT_CODES: Record<Outcome, ExitCode> = {
  interrupted: ExitCode.Interrupted,
  succeeded: ExitCode.Success,
  unchanged: ExitCode.Success,
  previewed: ExitCode.Success,
  'rolled-back': ExitCode.RolledBack,
  failed: ExitCode.RolledBack,
  'timed-out': ExitCode.TimedOut,
  'needs-attention': ExitCode.RollbackFailed,
};

/** Whether anything was written back (put back, deleted or created again) by the restore. */
export function anythingRestored(result: Pick<RunResult, 'objects'>): boolean {
  return result.objects.some((object) => writtenBack(object.restore));
}

export function exitCodeFor(
  result: Pick<RunResult, 'objects' | 'mode' | 'applyError' | 'cancelled' | 'verification'>,
): ExitCode {
  return EXIT_CODES[outcomeOf(result)];
}

/**
 * The exit code of a finished run: its outcome's, except that a --diff preview in which something
 * would change exits 1, as `kubectl diff` does (0: no differences, 1: differences).
 */
export function exitCodeOfRun(result: Pick<RunResult, 'outcome' | 'diff' | 'objects'>): ExitCode {
  if (result.outcome === 'previewed' && result.diff && result.objects.some(isChange)) return DIFFERENCES_FOUND;
  return EXIT_CODES[result.outcome];
}

/** `kubectl diff`'s exit code when there are differences; the same number as a usage error, as in kubectl. */
const DIFFERENCES_FOUND: ExitCode = 1;

/** The run's result with its outcome, decided once. */
export function withOutcome(result: Omit<RunResult, 'outcome'>): RunResult {
  return { ...result, outcome: outcomeOf(result) };
}
