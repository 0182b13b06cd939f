// The verdict of one check (--verify, --verify-job), from how it ended: exit 0 passes, anything
// else fails; a Job passes at Complete and fails at Failed, at an unstartable pod, or at
// --verify-timeout. Pure: the process and the Job's tracking happen elsewhere (command.ts, job.ts).
import { splitLines } from '../classify/text.js';
import { formatDuration } from '../duration.js';
import type { CommandResult } from '../kubectl/process/exec.js';
import type { VerifyCheck, VerifyOutcome, CheckedDuring } from '../model/verify.js';
import { describeObject } from '../objects/model.js';
import { JSON_LOG_LINES } from '../track/tracker.js';
import type { TrackedOutcome } from '../track/workloads.js';

export interface CheckContext {
  during: CheckedDuring;
  elapsedMs: number;
  timeoutMs: number;
}

/** Characters of a command's output kept while it runs: enough for JSON_LOG_LINES long lines. */
export const OUTPUT_TAIL_CHARS = 64 * 1024;

/** The shell's own exit codes (POSIX, "Command Search and Execution"): not found, found but not executable. */
const SHELL_CODES: Record<number, string> = {
  127: 'the shell did not find the command',
  126: 'the shell found the command but could not run it',
};

export function commandOutcome(command: string, result: CommandResult, context: CheckContext): VerifyOutcome {
  const check: VerifyCheck = { type: 'command', command };
  const lines = outputLines(result);
  const base = {
    check,
    during: context.during,
    elapsedMs: context.elapsedMs,
    timedOut: result.timedOut,
    lines,
    evidence: [],
    logs: [],
  };
  const timeout = formatDuration(context.timeoutMs);
  if (result.timedOut) {
    return {
      ...base,
      passed: false,
      signal: result.signal,
      summary: `did not finish within --verify-timeout ${timeout} and was stopped: SIGTERM to its process group, SIGKILL a second later`,
      nextStep: `raise --verify-timeout if the check is only slow, or make it give up by itself (e.g. curl --max-time); it runs with sh -c`,
    };
  }
  if (result.cancelled)
    return {
      ...base,
      passed: false,
      cancelled: true,
      signal: result.signal,
      summary: 'stopped: the run was cancelled',
    };
  if (result.spawnError !== undefined) {
    return {
      ...base,
      passed: false,
      summary: `could not be started (${result.spawnError})`,
      nextStep: 'kguard runs --verify commands with the system shell (sh -c); check that it exists',
    };
  }
  if (result.exitCode === 0) return { ...base, passed: true, exitCode: 0, summary: 'exited 0' };
  if (result.exitCode === undefined) {
    return {
      ...base,
      passed: false,
      signal: result.signal,
      summary: `was ended by ${result.signal ?? 'a signal'}`,
      nextStep: 'find out what stopped it; its last lines are above',
    };
  }
  const shell = SHELL_CODES[result.exitCode];
  return {
    ...base,
    passed: false,
    exitCode: result.exitCode,
    summary: `exited with code ${result.exitCode}${shell ? ` (${shell})` : ''}`,
    nextStep: shell
      ? 'check the command: kguard runs it with sh -c, in its own working directory, with its PATH'
      : 'the check says the new version does not work: its last lines are above. Fix the app (or the check) and apply again',
  };
}

/** The end of what a command printed, as lines: a line cut by the tail is dropped, not shown half. */
export function outputLines(result: Pick<CommandResult, 'output' | 'truncated'>): string[] {
  const lines = splitLines(result.output);
  if (result.truncated && lines.length > 1) lines.shift();
  return lines.slice(-JSON_LOG_LINES);
}

/**
 * A verify Job's verdict from its tracking: the shared engine judged it as it judges any Job.
 * Its next step never sends a person to a pod that is deleted with the Job (unless --keep-verify).
 */
export function jobOutcome(
  check: Extract<VerifyCheck, { type: 'job' }>,
  tracked: TrackedOutcome | undefined,
  context: CheckContext & { keep: boolean },
): VerifyOutcome {
  const base = {
    check,
    during: context.during,
    elapsedMs: context.elapsedMs,
    timedOut: false,
    lines: [],
    evidence: [],
    logs: [],
  };
  const job = check.job ? describeObject(check.job) : 'the Job';
  const verdict = tracked?.verdict;
  const diagnosis = tracked?.diagnosis;
  const evidence = { evidence: diagnosis?.evidence ?? [], logs: diagnosis?.logs ?? [] };
  switch (verdict?.state) {
    case 'healthy':
      return {
        ...base,
        passed: true,
        summary: `completed${verdict.progress.summary ? ` (${verdict.progress.summary})` : ''}`,
      };
    case 'failed': {
      const cause =
        verdict.cause.source === 'condition'
          ? `cannot ${verdict.cause.rule.cannot}: ${verdict.cause.reason}`
          : (diagnosis?.summary ?? 'failed');
      const nextStep = context.keep
        ? (diagnosis?.nextStep ?? "read its pods' logs and events")
        : "the check says the new version does not work: its pod's last lines are above (the Job is deleted after its check; --keep-verify keeps it). Fix the app (or the check) and apply again";
      return { ...base, ...evidence, passed: false, summary: `${job} failed: ${cause}`, nextStep };
    }
    case 'timed-out':
      return {
        ...base,
        ...evidence,
        passed: false,
        timedOut: true,
        summary: `${job} did not complete within --verify-timeout ${formatDuration(context.timeoutMs)} (${verdict.waitingFor})`,
        nextStep: 'raise --verify-timeout if the check is only slow; otherwise its pods above say what it waited for',
      };
    case 'gone':
      return {
        ...base,
        passed: false,
        summary: `${job} was deleted by someone else before it finished`,
        nextStep: 'do not delete the verify Job (nor give it ttlSecondsAfterFinished: 0) while kguard watches it',
      };
    case 'conflict':
      return { ...base, passed: false, summary: `someone else changed ${job} while it ran: ${verdict.detail}` };
    case 'applied':
      return {
        ...base,
        passed: false,
        summary: `${job} has nothing to run: ${verdict.detail ?? 'it is not watched'}`,
        nextStep: 'remove spec.suspend and kguard.dev/track: "false" from the verify Job',
      };
    case 'progressing':
    case undefined:
      return { ...base, passed: false, cancelled: true, summary: 'stopped: the run was cancelled' };
  }
}
