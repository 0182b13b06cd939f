// One --verify command: said, run (kubectl/process/exec.ts execCommand: sh -c, its own process group,
// --verify-timeout), judged (verdict.ts) and said again with its last lines when it failed.
import type { Clock } from '../clock.js';
import type { CommandExec } from '../kubectl/process/exec.js';
import type { Reporter } from '../model/events.js';
import type { VerifyOutcome, CheckedDuring } from '../model/verify.js';
import { commandOutcome, OUTPUT_TAIL_CHARS } from './verdict.js';

export interface CommandDeps {
  runCommand: CommandExec;
  clock: Clock;
  reporter: Reporter;
  /** Aborted when the run is cancelled: the command's process group is stopped at once. */
  signal?: AbortSignal;
}

export interface CommandRun {
  during: CheckedDuring;
  timeoutMs: number;
  /** What the command learns of the run (KGUARD_RUN_ID, KGUARD_REPORT...; run/apply/verify-step.ts). */
  env: Readonly<Record<string, string>>;
  /** How many of its last lines the text output shows (--log-lines); the report keeps up to 50. */
  logLines: number;
}

export async function runVerifyCommand(command: string, run: CommandRun, deps: CommandDeps): Promise<VerifyOutcome> {
  deps.reporter.emit({
    kind: 'verify-started',
    check: { type: 'command', command },
    during: run.during,
    timeoutMs: run.timeoutMs,
  });
  const startedAt = deps.clock.now();
  const result = await deps.runCommand(command, {
    env: run.env,
    timeoutMs: run.timeoutMs,
    cancelSignal: deps.signal,
    tailChars: OUTPUT_TAIL_CHARS,
  });
  const outcome = commandOutcome(command, result, {
    during: run.during,
    elapsedMs: deps.clock.now() - startedAt,
    timeoutMs: run.timeoutMs,
  });
  deps.reporter.emit(
    outcome.passed ? { kind: 'verify-passed', outcome } : { kind: 'verify-failed', outcome, shown: run.logLines },
  );
  return outcome;
}
