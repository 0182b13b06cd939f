// How the events of the checks (--verify, --verify-job) and of the bake (--bake) read: the
// verify rows of the one exhaustive table of formatters (format.ts).
import { formatDuration } from '../../duration.js';
import type { RunEvent, RunEventKind } from '../../model/events.js';
import type { VerifyCheck, VerifyOutcome, CheckedDuring } from '../../model/verify.js';
import { describeObject } from '../../objects/model.js';
import { containerLogLines, plural, seconds, type Line } from './line.js';

type VerifyKind = Extract<RunEventKind, `verify-${string}` | `bake-${string}` | 'baked'>;
type VerifyFormatters = { [K in VerifyKind]: (event: Extract<RunEvent, { kind: K }>) => Line };

export const VERIFY_FORMATTERS: VerifyFormatters = {
  'verify-started': (event) => ({
    tone: 'info',
    text:
      event.during === 'bake'
        ? `bake: running ${checkName(event.check)} again (--verify-interval, at most ${formatDuration(event.timeoutMs)})`
        : `verifying: ${event.check.type === 'command' ? 'running ' : ''}${checkName(event.check)} (${flagOf(event.check)}, at most ${formatDuration(event.timeoutMs)})`,
  }),
  'verify-passed': (event) => ({
    tone: 'ok',
    text: `${prefix(event.outcome.during, 'verified')}: ${checkName(event.outcome.check)} ${event.outcome.summary} in ${seconds(event.outcome.elapsedMs)}`,
  }),
  'verify-failed': (event) =>
    event.outcome.cancelled
      ? {
          tone: 'info',
          text: `${prefix(event.outcome.during, 'verifying')}: ${checkName(event.outcome.check)} stopped: the run was cancelled (after ${seconds(event.outcome.elapsedMs)})`,
        }
      : {
          tone: 'fail',
          text: `${prefix(event.outcome.during, 'verification failed')}: ${failureText(event.outcome)} (after ${seconds(event.outcome.elapsedMs)})`,
          details: outcomeDetails(event.outcome, event.shown),
        },
  'verify-skipped': (event) => ({
    tone: 'info',
    text: `not verifying: ${event.reason}`,
  }),
  'verify-job-cleanup': (event) => ({
    tone: event.action === 'failed' ? 'alarm' : 'info',
    text: `${describeObject(event.job)}: ${CLEANUP_TEXT[event.action]}${event.detail ? ` (${event.detail})` : ''}${event.commands.length > 0 ? (event.action === 'kept' ? '. To remove it:' : '. Delete it:') : ''}`,
    details: event.commands,
  }),
  'bake-started': (event) => ({
    tone: 'info',
    text:
      `baking for ${formatDuration(event.durationMs)}: watching ${event.workloads.length} workload${plural(event.workloads.length)} for restarts, pods leaving Ready and evictions` +
      (event.verifyIntervalMs > 0
        ? `; the --verify commands run again every ${formatDuration(event.verifyIntervalMs)}`
        : ''),
  }),
  baked: (event) => ({
    tone: 'ok',
    text:
      `baked for ${formatDuration(event.outcome.durationMs)}: no restart, no pod left Ready, no eviction in ${event.workloads} workload${plural(event.workloads)}` +
      (event.outcome.checksRun > 0
        ? `; the checks passed ${event.outcome.checksRun} more time${plural(event.outcome.checksRun)}`
        : ''),
  }),
  'bake-failed': (event) => ({
    tone: 'fail',
    text: `${event.workload ? `${describeObject(event.workload)}: ` : 'the bake stopped: '}${event.outcome.summary ?? 'it did not stay healthy'} (after ${seconds(event.outcome.elapsedMs)} of the ${formatDuration(event.outcome.durationMs)} bake)`,
    details: [
      ...event.outcome.evidence,
      ...containerLogLines(event.outcome.logs.map((log) => ({ ...log, shown: event.shown }))),
      ...(event.outcome.nextStep ? [`next: ${event.outcome.nextStep}`] : []),
    ],
  }),
};

const CLEANUP_TEXT: Record<Extract<RunEvent, { kind: 'verify-job-cleanup' }>['action'], string> = {
  deleted: 'deleted (the verify Job of this run)',
  kept: 'the verify Job is kept (--keep-verify)',
  failed: 'the verify Job was NOT deleted',
};

/** `curl -fsS …` as typed, or the Job with its file. */
export function checkName(check: VerifyCheck): string {
  if (check.type === 'command') return `\`${check.command}\``;
  return `${check.job ? describeObject(check.job) : 'the Job'} from ${check.file}`;
}

function flagOf(check: VerifyCheck): string {
  return check.type === 'command' ? '--verify' : '--verify-job';
}

function prefix(during: CheckedDuring, word: 'verified' | 'verification failed' | 'verifying'): string {
  if (during !== 'bake') return word;
  return `bake: ${word === 'verified' ? 'checked again' : word === 'verifying' ? 'checking again' : 'check failed'}`;
}

function failureText(outcome: VerifyOutcome): string {
  // A Job's summary names it already.
  return outcome.check.type === 'command'
    ? `${checkName(outcome.check)} ${outcome.summary}`
    : `${outcome.summary} (${outcome.check.file})`;
}

/** A command's last lines (or that it printed nothing), a Job's evidence and logs, then the next step. */
function outcomeDetails(outcome: VerifyOutcome, shown: number): string[] {
  const lines =
    outcome.check.type === 'command'
      ? outcome.lines.length > 0 && shown > 0
        ? ['last lines of its output:', ...outcome.lines.slice(-shown).map((line) => `  | ${line}`)]
        : shown > 0
          ? ['it printed nothing']
          : []
      : [...outcome.evidence, ...containerLogLines(outcome.logs.map((log) => ({ ...log, shown })))];
  return [...lines, ...(outcome.nextStep ? [`next: ${outcome.nextStep}`] : [])];
}
