// What the commands that read runs from the cluster share (status, rollback, unlock, forget,
// history, undo, and status and rollback across a fleet): their common options, the
// --rollback-timeout, the recorder and kubectl they open, and the writer of their last word.
import { formatDuration, parseDuration } from '../../duration.js';
import { DEFAULTS } from '../../model/options.js';
import type { RunRecorder } from '../../report/recorder.js';
import { sanitizeDeep, sanitizeText } from '../../report/safety/sanitize.js';
import { commandKubectl } from '../connection.js';
import type { CommandContext, Session } from '../session.js';

/** The options every such command reads. */
export interface RunCommandOptions {
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  rollbackTimeout?: string;
  output?: string;
}

/** --rollback-timeout in ms (its default: the apply's --timeout default). */
export function rollbackDeadlineMs({ rollbackTimeout }: Pick<RunCommandOptions, 'rollbackTimeout'>): number {
  return parseDuration(rollbackTimeout ?? formatDuration(DEFAULTS.timeoutMs), '--rollback-timeout');
}

/** The command's last word on stdout: its text, or with --output json its report; sanitised and redacted either way. */
export function lastWordWriter(session: Pick<Session, 'json' | 'redactor'>): (text: string, report: unknown) => void {
  return (text, report) =>
    process.stdout.write(
      session.json
        ? `${JSON.stringify(sanitizeDeep(report, session.redactor), null, 2)}\n`
        : `${sanitizeText(text, session.redactor)}\n`,
    );
}

/** The command's recorder (the session's, for the exits) and its kubectl, recorded with -v. */
export async function recordedKubectl(
  connectionArgs: readonly string[],
  context: CommandContext,
  options: { watches: boolean },
): Promise<{ recorder: RunRecorder; kubectl: Awaited<ReturnType<typeof commandKubectl>> }> {
  const { session } = context;
  const { RunRecorder } = await import('../../report/recorder.js');
  const recorder = new RunRecorder(await context.makeReporter(session), session.redactor);
  session.recorder = recorder;
  return { recorder, kubectl: await commandKubectl(connectionArgs, session, recorder, options) };
}
