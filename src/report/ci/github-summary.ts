// The job summary's Markdown, kept under GitHub's limit. The runner uploads a step's
// $GITHUB_STEP_SUMMARY only when the whole file is at most 1 MiB; over it, the step's summary is
// dropped entirely, with the error "$GITHUB_STEP_SUMMARY upload aborted, supports content up to a
// size of 1024k" (actions/runner, src/Runner.Worker/FileCommandManager.cs, CreateStepSummaryCommand:
// AttachmentSizeLimit = 1024 * 1024; docs.github.com, "Workflow commands for GitHub Actions",
// "Adding a job summary"). The file is the step's, so what was written to it before kguard counts
// too. Over its budget, the summary keeps the verdict, the checks, the objects that need a person
// first, then as many others as fit, and the start and the end of the log, and says what it left
// out. Pure.
import { statSync } from 'node:fs';

/** GitHub's limit for one step's summary file, in bytes. */
export const STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** Left for whatever the same step writes after kguard (a script's own lines after `kguard apply`). */
export const SUMMARY_MARGIN_BYTES = 64 * 1024;

export interface SummaryRow {
  /** The table row, Markdown. */
  markdown: string;
  /** Failed, alarming or kept for a person: shown before the others when not every row fits. */
  urgent: boolean;
}

export interface SummaryParts {
  heading: string;
  rows: readonly SummaryRow[];
  /** The checks and the bake, one Markdown list item each. */
  checks: readonly string[];
  /** The log as shown, one line each (details on lines of their own); none: no log section. */
  log?: readonly string[];
}

const TABLE_HEAD = ['| object | change | verdict | restore |', '|---|---|---|---|'];

/** The bytes kguard may append to the summary file at `path`: the limit, less what is in it and the margin. */
export function summaryBudget(path: string, sizeOf: (path: string) => number = fileSize): number {
  return STEP_SUMMARY_LIMIT_BYTES - sizeOf(path) - SUMMARY_MARGIN_BYTES;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The log as shown: all of it, or its first and last lines with how many were left out between them. */
interface ShownLog {
  head: readonly string[];
  tail: readonly string[];
  leftOut: number;
}

/** The summary, whole when it fits `budgetBytes`, else cut as it says; undefined when not even the verdict fits. */
export function composeSummary(parts: SummaryParts, budgetBytes: number): string | undefined {
  const all = parts.log ?? [];
  const whole = render(parts, parts.rows, { head: all, tail: [], leftOut: 0 });
  if (bytes(whole) <= budgetBytes) return whole;
  const bare = render(parts, [], { head: [], tail: [], leftOut: all.length });
  const room = budgetBytes - bytes(bare);
  if (room < 0) return undefined;
  // The log gets up to half of the room; the rows take what it leaves, then it takes what they leave.
  const logBytes = all.reduce((total, line) => total + bytes(escapeHtml(line)) + 1, 0);
  const rows = pickRows(parts.rows, room - Math.min(logBytes, Math.floor(room / 2)));
  const rowBytes = rows.reduce((total, row) => total + bytes(row.markdown) + 1, 0);
  const summary = render(parts, rows, cutLog(all, room - rowBytes));
  return bytes(summary) <= budgetBytes ? summary : undefined;
}

function render(parts: SummaryParts, rows: readonly SummaryRow[], log: ShownLog): string {
  const rowsLeftOut = parts.rows.length - rows.length;
  const table =
    parts.rows.length === 0
      ? []
      : [
          ...TABLE_HEAD,
          ...rows.map((row) => row.markdown),
          '',
          ...(rowsLeftOut > 0 ? [`… ${rowsLeftOut} more objects; see the --output json report`, ''] : []),
        ];
  const checks = parts.checks.length === 0 ? [] : ['**Checks**', '', ...parts.checks, ''];
  // The count is of the lines shown, as a reader counts them in the block below.
  const shown = log.head.length + log.tail.length;
  const count = log.leftOut > 0 ? `${shown} of ${shown + log.leftOut} lines` : `${shown} lines`;
  const lines = log.leftOut > 0 ? [...log.head, logMarker(log.leftOut), ...log.tail] : log.head;
  const logSection = parts.log
    ? [
        `<details><summary>kguard log (${count})</summary>`,
        '',
        `<pre>${escapeHtml(lines.join('\n'))}</pre>`,
        '</details>',
        '',
      ]
    : [];
  return [parts.heading, '', ...table, ...checks, ...logSection].join('\n');
}

function logMarker(leftOut: number): string {
  return `… ${leftOut} more lines; see the job's log`;
}

/** The rows that fit, urgent ones first, in the table's own order. */
function pickRows(rows: readonly SummaryRow[], budgetBytes: number): SummaryRow[] {
  const kept = new Set<SummaryRow>();
  let used = 0;
  for (const row of [...rows.filter((row) => row.urgent), ...rows.filter((row) => !row.urgent)]) {
    const size = bytes(row.markdown) + 1;
    if (used + size > budgetBytes) break;
    kept.add(row);
    used += size;
  }
  return rows.filter((row) => kept.has(row));
}

/** The first and the last lines of the log that fit: how the run started and how it ended. */
function cutLog(log: readonly string[], budgetBytes: number): ShownLog {
  let room = budgetBytes - bytes(logMarker(log.length)) - 1;
  const head: string[] = [];
  const tail: string[] = [];
  for (let start = 0, end = log.length - 1; start <= end; ) {
    const fromHead = head.length <= tail.length;
    const line = fromHead ? log[start]! : log[end]!;
    const size = bytes(escapeHtml(line)) + 1;
    if (size > room) break;
    room -= size;
    if (fromHead) {
      head.push(line);
      start += 1;
    } else {
      tail.unshift(line);
      end -= 1;
    }
  }
  return { head, tail, leftOut: log.length - head.length - tail.length };
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
