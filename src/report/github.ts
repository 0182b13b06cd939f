// GitHub Actions: failures become workflow annotations (they show on the run page and the pull
// request), and the run ends with a Markdown job summary. Wraps the plain reporter.
import { appendFileSync } from 'node:fs';
import type { Reporter, RunEvent } from './events.js';
import { formatEvent, type Line } from './format.js';
import { SYMBOLS } from './plain.js';

export class GithubActionsReporter implements Reporter {
  private readonly summary: Line[] = [];

  constructor(
    private readonly inner: Reporter,
    private readonly stream: NodeJS.WritableStream,
    /** $GITHUB_STEP_SUMMARY, when set. */
    private readonly summaryPath: string | undefined,
    private readonly append: (path: string, text: string) => void = appendFileSync,
  ) {}

  emit(event: RunEvent): void {
    this.inner.emit(event);
    const line = formatEvent(event);
    if (event.kind !== 'progress' && event.kind !== 'pod-problem') this.summary.push(line);
    if (line.tone === 'fail' || line.tone === 'alarm') {
      const body = [line.text, ...(line.details ?? [])].join('\n');
      this.stream.write(`::error title=kguard::${escapeData(body)}\n`);
    }
  }

  close(): void {
    this.inner.close();
    if (!this.summaryPath || this.summary.length === 0) return;
    const rows = this.summary.map((line) => {
      const details = (line.details ?? []).map((detail) => `<br>\`${escapeCell(detail)}\``).join('');
      return `| ${SYMBOLS[line.tone]} | ${escapeCell(line.text)}${details} |`;
    });
    try {
      this.append(this.summaryPath, ['### kguard apply', '', '| | |', '|---|---|', ...rows, ''].join('\n'));
    } catch (error) {
      // The summary is a courtesy: the run's result and exit code stand without it.
      const why = error instanceof Error ? error.message : String(error);
      this.stream.write(`::warning title=kguard::${escapeData(`could not write the job summary to $GITHUB_STEP_SUMMARY (${why})`)}\n`);
    }
  }
}

// Workflow command data escaping, as @actions/core does it.
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A Markdown table cell that shows the text as it is: no HTML from the cluster is rendered. */
function escapeCell(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
