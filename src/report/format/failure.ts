// How a run that could not finish ends on the terminal: a bad command line, an input or kubectl
// error, an internal error, an interrupt. The same three outputs on every such path: the message
// on stderr, an `::error` annotation in GitHub Actions, and with --output json one report on
// stdout, so a script reading it never gets nothing.
import { REPORT_VERSION } from '../json.js';

/** Where text goes: process.stdout or stderr, typed by what is used so the published types need no @types/node. */
export interface TextSink {
  write(text: string): unknown;
}

export interface FailureOutputs {
  stdout: TextSink;
  stderr: TextSink;
  json: boolean;
  githubActions: boolean;
  /** $GITHUB_STEP_SUMMARY in GitHub Actions: the job summary gets the verdict and the log so far. */
  summaryPath?: string;
  /** The manifest files and lines a kubectl YAML error names (manifests/yaml-errors.ts), for annotations on them. */
  locateYamlErrors?: (message: string) => Promise<Array<{ file: string; line: number; message: string }>>;
}

export interface Failure {
  outcome: 'error' | 'interrupted';
  exitCode: number;
  /** Already sanitised: it may quote kubectl. */
  message: string;
  /** What the run logged before it stopped, for the JSON report. */
  messages?: readonly string[];
  /** Commander printed the message itself (usage errors): do not print it twice. */
  printed?: boolean;
}

export interface FailureReport {
  reportVersion: number;
  outcome: Failure['outcome'];
  exitCode: number;
  error: string;
  messages: string[];
}

export function failureReport(failure: Failure): FailureReport {
  return {
    reportVersion: REPORT_VERSION,
    outcome: failure.outcome,
    exitCode: failure.exitCode,
    error: failure.message,
    messages: [...(failure.messages ?? [])],
  };
}

export async function reportFailure(failure: Failure, outputs: FailureOutputs): Promise<void> {
  if (!failure.printed) outputs.stderr.write(`kguard: ${failure.message} (exit ${failure.exitCode})\n`);
  if (outputs.githubActions) {
    // Loaded only where it is used: an input error outside GitHub Actions needs none of it.
    const { appendSummary, escapeData, escapeProperty, failureSummary } = await import('../ci/github.js');
    // A YAML error is annotated on its manifest line, where the pull request shows it.
    const located = (await outputs.locateYamlErrors?.(failure.message)) ?? [];
    for (const { file, line, message } of located) {
      outputs.stderr.write(
        `::error file=${escapeProperty(file)},line=${line},title=kguard%3A YAML error::${escapeData(`${file} line ${line}: ${message}. kubectl cannot read it; nothing was applied (exit ${failure.exitCode})`)}\n`,
      );
    }
    if (located.length === 0)
      outputs.stderr.write(`::error title=kguard::${escapeData(`${failure.message} (exit ${failure.exitCode})`)}\n`);
    if (outputs.summaryPath)
      appendSummary(
        outputs.summaryPath,
        (budget) => failureSummary(failure.message, failure.exitCode, failure.messages ?? [], budget),
        outputs.stderr,
      );
  }
  if (outputs.json) outputs.stdout.write(`${JSON.stringify(failureReport(failure), null, 2)}\n`);
}
