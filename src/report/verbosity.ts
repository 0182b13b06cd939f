// -q and -v: which events reach the terminal. A table over every event kind (a new kind does not
// compile until it says when it is shown): `quiet` ones are the verdicts and what a person must
// do; `normal` ones the run's story; `verbose` ones every kubectl process as well. Only the
// terminal is filtered: the job summary, annotations, the JSON report and --events see everything.
import type { Reporter, RunEvent, RunEventKind } from '../model/events.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';

const SHOWN_FROM: Record<RunEventKind, Verbosity> = {
  target: 'normal',
  understood: 'normal',
  'dry-run-waived': 'normal',
  'phase-deferred': 'normal',
  phase: 'normal',
  'phase-skipped': 'quiet',
  'kubectl-warnings': 'normal',
  'restore-limit': 'normal',
  'image-exists': 'verbose',
  'image-not-checked': 'normal',
  'image-missing': 'quiet',
  applied: 'normal',
  'nothing-to-change': 'normal',
  'apply-failed': 'quiet',
  changes: 'normal',
  preview: 'quiet',
  diff: 'quiet',
  tracking: 'normal',
  'not-watched': 'normal',
  progress: 'normal',
  'pod-problem': 'normal',
  note: 'normal',
  'poll-error': 'normal',
  'poll-recovered': 'normal',
  'watch-fallback': 'normal',
  healthy: 'quiet',
  failed: 'quiet',
  'timed-out': 'quiet',
  interrupted: 'quiet',
  conflict: 'quiet',
  gone: 'quiet',
  restoring: 'normal',
  restored: 'normal',
  'restore-kept': 'quiet',
  'restore-failed': 'quiet',
  'rolled-back': 'quiet',
  'rollback-unhealthy': 'quiet',
  'restored-failing-before': 'quiet',
  journal: 'normal',
  'journal-kept': 'quiet',
  'journal-warning': 'normal',
  'fleet-cluster': 'quiet',
  'recovering-run': 'quiet',
  'recovered-run': 'quiet',
  'rollback-wait': 'normal',
  'rollback-claimed': 'normal',
  'rollback-finished': 'quiet',
  'stop-requested': 'quiet',
  'stopping-run': 'normal',
  'lock-wait': 'normal',
  'internal-error': 'quiet',
  'undo-preview': 'quiet',
  'undo-finished': 'quiet',
  'history-kept': 'normal',
  'verify-started': 'normal',
  'verify-passed': 'quiet',
  'verify-failed': 'quiet',
  'verify-skipped': 'normal',
  'verify-job-cleanup': 'normal',
  'bake-started': 'normal',
  baked: 'quiet',
  'bake-failed': 'quiet',
  analysis: 'normal',
  'analysis-verdict': 'quiet',
  finished: 'quiet',
  kubectl: 'verbose',
};

/** Every kind of event there is (the table above is exhaustive): the events schema's test reads it. */
export const EVENT_KINDS = Object.keys(SHOWN_FROM) as RunEventKind[];

const RANK: Record<Verbosity, number> = { quiet: 0, normal: 1, verbose: 2 };

export function shownAt(kind: RunEventKind, verbosity: Verbosity): boolean {
  return RANK[SHOWN_FROM[kind]] <= RANK[verbosity];
}

export class VerbosityFilter implements Reporter {
  constructor(
    private readonly inner: Reporter,
    private readonly verbosity: Verbosity,
  ) {}

  emit(event: RunEvent): void {
    if (shownAt(event.kind, this.verbosity)) this.inner.emit(event);
  }

  close(): void {
    this.inner.close();
  }
}
