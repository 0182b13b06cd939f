// GitLab CI (GITLAB_CI=true): each phase of the run is a collapsible section of the job log
// (GitLab's section_start/section_end markers), folded by default; the final line stays outside.
// A failure inside a folded section is printed again after it, so the reason is visible without
// unfolding anything. Wraps the plain reporter and writes to the same stream.
import type { Reporter, RunEvent, RunEventKind } from '../../model/events.js';
import { formatEvent } from '../format/format.js';

type Section = 'read' | 'apply' | 'preview' | 'watch' | 'verify' | 'restore';

const HEADERS: Record<Section, string> = {
  read: 'kguard: read the manifests as kubectl does, dry run, snapshot',
  apply: 'kguard: kubectl apply and what it changed',
  preview: 'kguard: dry run: what the apply would do',
  watch: 'kguard: watch the changed workloads',
  verify: 'kguard: verify (--verify, --verify-job) and bake (--bake)',
  restore: 'kguard: restore what the apply changed',
};

/** The section each event belongs to; undefined: the section in progress (or none). */
const SECTION_OF: Record<RunEventKind, Section | 'phase' | undefined> = {
  understood: 'read',
  'dry-run-waived': 'read',
  'phase-deferred': 'read',
  phase: 'apply',
  'phase-skipped': 'apply',
  'lock-wait': 'read',
  journal: 'read',
  applied: 'apply',
  'nothing-to-change': 'apply',
  'apply-failed': 'apply',
  changes: 'apply',
  preview: 'preview',
  diff: 'preview',
  tracking: 'watch',
  'not-watched': 'watch',
  'internal-error': 'watch',
  target: 'read',
  'kubectl-warnings': 'read',
  'restore-limit': 'read',
  'image-exists': 'read',
  'image-not-checked': 'read',
  'image-missing': 'read',
  // Progress and pod problems belong to the watch or to the restore, by their phase.
  progress: 'phase',
  'pod-problem': 'phase',
  note: 'phase',
  'poll-error': undefined,
  'poll-recovered': undefined,
  'watch-fallback': undefined,
  healthy: 'watch',
  failed: 'watch',
  'timed-out': 'watch',
  interrupted: 'watch',
  conflict: 'watch',
  gone: 'watch',
  restoring: 'restore',
  restored: 'restore',
  'restore-kept': 'restore',
  'restore-failed': 'restore',
  'rolled-back': 'restore',
  'rollback-unhealthy': 'restore',
  'restored-failing-before': 'restore',
  'journal-kept': undefined,
  'history-kept': undefined,
  'undo-preview': 'preview',
  'undo-finished': undefined,
  'journal-warning': undefined,
  'fleet-cluster': undefined,
  'recovering-run': 'restore',
  'recovered-run': 'restore',
  'rollback-wait': 'restore',
  'rollback-claimed': 'restore',
  'rollback-finished': 'restore',
  'stop-requested': 'restore',
  'stopping-run': 'restore',
  'verify-started': 'verify',
  'verify-passed': 'verify',
  'verify-failed': 'verify',
  'verify-skipped': 'verify',
  'verify-job-cleanup': 'verify',
  'bake-started': 'verify',
  baked: 'verify',
  'bake-failed': 'verify',
  analysis: 'verify',
  'analysis-verdict': 'verify',
  finished: undefined,
  kubectl: undefined,
};

export class GitlabCiReporter implements Reporter {
  private open: Section | undefined;
  /** Failures seen in the open section, printed again once it is folded. */
  private failures: RunEvent[] = [];

  constructor(
    private readonly inner: Reporter,
    private readonly stream: NodeJS.WritableStream,
    private readonly now: () => number = Date.now,
  ) {}

  emit(event: RunEvent): void {
    const section = sectionOf(event);
    if (event.kind === 'finished') this.end();
    else if (section !== undefined && section !== this.open) {
      this.end();
      this.start(section);
    }
    this.inner.emit(event);
    const tone = formatEvent(event).tone;
    if (this.open && (tone === 'fail' || tone === 'alarm')) this.failures.push(event);
  }

  close(): void {
    this.end();
    this.inner.close();
  }

  private start(section: Section): void {
    this.open = section;
    this.stream.write(
      `\u001b[0Ksection_start:${this.seconds()}:kguard_${section}[collapsed=true]\r\u001b[0K${HEADERS[section]}\n`,
    );
  }

  private end(): void {
    if (!this.open) return;
    this.stream.write(`\u001b[0Ksection_end:${this.seconds()}:kguard_${this.open}\r\u001b[0K\n`);
    this.open = undefined;
    const failures = this.failures;
    this.failures = [];
    for (const failure of failures) this.inner.emit(failure);
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }
}

function sectionOf(event: RunEvent): Section | undefined {
  const section = SECTION_OF[event.kind];
  if (section !== 'phase') return section;
  if (!('phase' in event)) return 'watch';
  return event.phase === 'rollback' ? 'restore' : event.phase === 'verify' ? 'verify' : 'watch';
}
