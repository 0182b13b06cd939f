// GitHub Actions: failures become workflow annotations (they show on the run page and the pull
// request), pointing at the manifest file and line of the object when it is written in one, and a
// run that finishes ends with a Markdown job summary a person reads in ten seconds: the verdict
// first, then one row per object, then the log folded. Wraps the plain reporter.
import { appendFileSync } from 'node:fs';
import type { ManifestLocation } from '../../manifests/locate.js';
import { summarizePaths } from '../../objects/compare.js';
import { describeObject, objectKey, type ObjectRef } from '../../objects/model.js';
import type { ChangedObject, Reporter, RunEvent } from '../../model/events.js';
import { formatEvent, type Line } from '../format/format.js';
import { SYMBOLS } from '../plain.js';
import {
  composeSummary,
  escapeHtml,
  SUMMARY_MARGIN_BYTES,
  STEP_SUMMARY_LIMIT_BYTES,
  summaryBudget,
  type SummaryParts,
  type SummaryRow,
} from './github-summary.js';

/** Finds where an object is written, for annotations (manifests/locate.ts). */
export type Locate = (ref: ObjectRef) => ManifestLocation | undefined;

/** One row of the summary's table. */
interface ObjectRow {
  ref: ObjectRef;
  change: string;
  verdict?: Line;
  restore: Line[];
}

const CHANGE_WORDS: Record<ChangedObject['change'], string> = {
  created: 'created',
  configured: 'changed',
  unchanged: 'unchanged',
  recreated: 'deleted and created again',
  deleted: 'pruned',
  absent: 'absent',
};

export class GithubActionsReporter implements Reporter {
  private readonly log: Line[] = [];
  private readonly rows = new Map<string, ObjectRow>();
  private verdict: Line | undefined;
  private preview = false;
  /** The checks (--verify, --verify-job) and the bake (--bake), one line each. */
  private readonly checks: Line[] = [];

  constructor(
    private readonly inner: Reporter,
    private readonly stream: NodeJS.WritableStream,
    /** $GITHUB_STEP_SUMMARY, when set. */
    private readonly summaryPath: string | undefined,
    private readonly append: (path: string, text: string) => void = appendFileSync,
    private readonly locate: Locate = () => undefined,
  ) {}

  emit(event: RunEvent): void {
    this.inner.emit(event);
    const line = formatEvent(event);
    // The folded log is the run's story; kubectl's processes (--verbose) are for the live log only.
    if (event.kind !== 'progress' && event.kind !== 'kubectl') this.log.push(line);
    this.remember(event, line);
    if (line.tone === 'fail' || line.tone === 'alarm') {
      const body = [line.text, ...(line.details ?? [])].join('\n');
      this.stream.write(`::error ${this.properties(subjectOf(event))}::${escapeData(body)}\n`);
    }
  }

  /** The summary is written only for a run that finished; one that stopped early is summarised by report/format/failure.ts. */
  close(): void {
    this.inner.close();
    if (!this.summaryPath || !this.verdict) return;
    appendSummary(this.summaryPath, (budget) => composeSummary(this.summary(), budget), this.stream, this.append);
  }

  private remember(event: RunEvent, line: Line): void {
    if (event.kind === 'finished') this.verdict = line;
    if (CHECK_KINDS.has(event.kind)) {
      this.checks.push(line);
      return;
    }
    if (event.kind === 'changes' || event.kind === 'preview') {
      this.preview = event.kind === 'preview';
      for (const object of event.objects) {
        const fields = object.changedFields.length > 0 ? `: ${summarizePaths(object.changedFields)}` : '';
        this.rows.set(objectKey(object.ref), {
          ref: object.ref,
          change: `${CHANGE_WORDS[object.change]}${fields}`,
          restore: [],
        });
      }
      return;
    }
    const subject = subjectOf(event);
    const row = subject && this.rows.get(objectKey(subject));
    if (
      !row ||
      event.kind === 'pod-problem' ||
      event.kind === 'note' ||
      event.kind === 'progress' ||
      event.kind === 'lock-wait' ||
      event.kind === 'diff'
    )
      return;
    const own = { ...line, text: withoutSubject(line.text, row.ref) };
    if (RESTORE_KINDS.has(event.kind)) row.restore.push(own);
    else row.verdict = own;
  }

  private summary(): SummaryParts {
    const verdict = this.verdict!;
    const rows = [...this.rows.values()].map((row): SummaryRow => {
      const verdictCell = row.verdict
        ? cell(row.verdict)
        : row.change.startsWith('unchanged')
          ? 'unchanged, not watched'
          : this.preview
            ? ''
            : 'applied';
      const restoreCell = row.restore.map(cell).join('<br>');
      return {
        markdown: `| ${escapeCell(describeObject(row.ref))} | ${escapeCell(row.change)} | ${verdictCell} | ${restoreCell} |`,
        urgent: [row.verdict, ...row.restore].some((line) => line !== undefined && URGENT_TONES.has(line.tone)),
      };
    });
    return {
      heading: `### ${SYMBOLS[verdict.tone]} ${escapeHtml(verdict.text)}`,
      rows,
      checks: this.checks.map((check) => `- ${cell(check)}`),
      log: this.log.flatMap(logLines),
    };
  }

  private properties(subject: ObjectRef | undefined): string {
    const location = subject ? this.locate(subject) : undefined;
    if (!location) return 'title=kguard';
    return `file=${escapeProperty(location.file)},line=${location.line},title=${escapeProperty(`kguard: ${describeObject(subject!)}`)}`;
  }
}

/** A row with one of these needs a person's eyes first: it stays when the summary is cut. */
const URGENT_TONES = new Set<Line['tone']>(['fail', 'alarm', 'warn']);

/** One log entry as the summary shows it: its text and each detail indented, one line each. */
function logLines(line: Line): string[] {
  return [`${SYMBOLS[line.tone]} ${line.text}`, ...(line.details ?? []).map((detail) => `    ${detail}`)].flatMap(
    (text) => text.split('\n'),
  );
}

/** The checks and the bake: a list of their own under the table. */
const CHECK_KINDS = new Set<RunEvent['kind']>([
  'verify-passed',
  'verify-failed',
  'verify-job-cleanup',
  'baked',
  'bake-failed',
  'analysis-verdict',
]);

/** Events about restoring what the apply changed: the summary's restore column. */
const RESTORE_KINDS = new Set<RunEvent['kind']>([
  'restored',
  'restore-kept',
  'restore-failed',
  'rolled-back',
  'rollback-unhealthy',
  'restored-failing-before',
]);

/** The object an event is about, if it is about one. */
function subjectOf(event: RunEvent): ObjectRef | undefined {
  if ('workload' in event) return event.workload;
  if ('object' in event) return event.object;
  return undefined;
}

function withoutSubject(text: string, ref: ObjectRef): string {
  const prefix = `${describeObject(ref)}: `;
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/** A cell of the table: the line, with its commands; evidence stays in the log, only the next step is kept. */
function cell(line: Line): string {
  const details = (line.details ?? [])
    .filter(
      (detail) => line.tone === 'undo' || line.tone === 'alarm' || line.tone === 'warn' || detail.startsWith('next: '),
    )
    .map((detail) => `<br><code>${escapeCell(detail)}</code>`)
    .join('');
  return `${SYMBOLS[line.tone]} ${escapeCell(line.text)}${details}`;
}

/** The summary of a run that could not do its job: the verdict and the log so far, within `budgetBytes`. */
export function failureSummary(
  message: string,
  exitCode: number,
  messages: readonly string[],
  budgetBytes: number,
): string | undefined {
  const heading = `### ${SYMBOLS.fail} kguard: ${escapeHtml(message)} (exit ${exitCode})`;
  const log = messages.length > 0 ? messages.flatMap((text) => text.split('\n')) : undefined;
  return composeSummary({ heading, rows: [], checks: [], log }, budgetBytes);
}

/**
 * The summary is a courtesy: the run's result and exit code stand without it. `compose` gets the
 * bytes the file has room for (github-summary.ts); when not even the verdict fits, nothing is written.
 */
export function appendSummary(
  summaryPath: string,
  compose: (budgetBytes: number) => string | undefined,
  stream: { write(text: string): unknown },
  append: (path: string, text: string) => void = appendFileSync,
): void {
  const warn = (why: string) =>
    stream.write(
      `::warning title=kguard::${escapeData(`could not write the job summary to $GITHUB_STEP_SUMMARY (${why})`)}\n`,
    );
  const budget = summaryBudget(summaryPath);
  const markdown = compose(budget);
  if (markdown === undefined) {
    warn(
      `it already holds ${Math.round((STEP_SUMMARY_LIMIT_BYTES - SUMMARY_MARGIN_BYTES - budget) / 1024)} KiB; GitHub drops a step summary over 1 MiB`,
    );
    return;
  }
  try {
    append(summaryPath, markdown);
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error));
  }
}

// Workflow command data escaping, as @actions/core does it.
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow command property values (file=, title=), as @actions/core escapes them. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** A Markdown table cell that shows the text as it is: no HTML from the cluster is rendered. */
function escapeCell(text: string): string {
  return escapeHtml(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
