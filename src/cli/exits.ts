import { CommanderError } from 'commander';
import { ExitCode, InterruptedError, KguardError } from '../errors.js';
import { stopRunningProcesses } from '../kubectl/process/exec.js';
import { failureReport, reportFailure, type Failure, type FailureOutputs } from '../report/format/failure.js';
import { sanitizeText } from '../report/safety/sanitize.js';
import { secondSignalMessage, signalMeaning } from './interrupt.js';
import { workspace, writeDotenv, writeJunit } from './ci-files.js';
import { diffPreviewExitCode } from './options.js';
import type { Session } from './session.js';

/** Turns anything that stopped the run into its exit code, reported on every output. */
export async function fail(session: Session, error: unknown): Promise<number> {
  const found = failureOf(error);
  // --diff speaks kubectl diff's codes: 1 means differences, so an input or usage error is 2.
  const failure = session.diffPreview ? { ...found, exitCode: diffPreviewExitCode(found.exitCode) } : found;
  if (failure.exitCode === ExitCode.Success) return ExitCode.Success;
  const sanitized = {
    ...failure,
    message: sanitizeText(failure.message, session.redactor),
    messages: session.recorder?.messages,
  };
  await reportFailure(sanitized, failureOutputs(session));
  session.events?.error(failure.exitCode, sanitized.message);
  await Promise.all([
    writeJunit(session, failureReport(sanitized)),
    writeDotenv(session, failure.outcome, failure.exitCode),
  ]);
  return failure.exitCode;
}

export function failureOutputs(session: Session): FailureOutputs {
  const summaryPath = process.env.GITHUB_STEP_SUMMARY || undefined;
  // Loaded only for a failure in GitHub Actions: the YAML parser is not needed otherwise.
  const locateYamlErrors = async (message: string) =>
    (await import('../manifests/yaml-errors.js')).yamlErrorLocations(message, workspace());
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    json: session.json,
    githubActions: session.githubActions,
    summaryPath,
    locateYamlErrors,
  };
}

export function failureOf(error: unknown): Failure {
  if (error instanceof CommanderError) {
    // Commander printed the usage error itself (or the help or version text, exit 0).
    if (error.exitCode === 0) return { outcome: 'error', exitCode: ExitCode.Success, message: '' };
    const message =
      error.message === '(outputHelp)'
        ? 'no command given: use kguard apply -f FILE'
        : error.message.replace(/^error: /, '');
    return { outcome: 'error', exitCode: ExitCode.InputError, message, printed: true };
  }
  if (error instanceof InterruptedError)
    return { outcome: 'interrupted', exitCode: error.exitCode, message: error.message };
  if (error instanceof KguardError) return { outcome: 'error', exitCode: error.exitCode, message: error.message };
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    outcome: 'error',
    exitCode: ExitCode.InternalError,
    message: `internal error: ${detail}. This is a bug in kguard; please report it with the command you ran.`,
  };
}

/**
 * A cancelled CI job (SIGINT, then SIGTERM, then SIGKILL a few seconds later), Ctrl-C, or a closed
 * terminal or dropped SSH session (SIGHUP, handled as SIGTERM), in any
 * state, from the first line of main on: the first signal stops the watch and restores what the
 * apply changed (before the apply: stops the reads, nothing is applied); the SIGTERM GitHub
 * Actions sends 7.5 s after its SIGINT is the same cancellation (interrupt.ts); any other second
 * signal stops every kubectl still running and exits at once, saying what was left, on every output.
 */
export function handleInterrupts(session: Session): void {
  const seen: NodeJS.Signals[] = [];
  const onSignal = (signal: NodeJS.Signals) => {
    if (session.finished) return;
    const meaning = signalMeaning(seen, signal);
    seen.push(signal);
    // A closed terminal or a dropped SSH session (SIGHUP): what is written to it now may fail
    // (EIO); the restore goes on all the same and the exit code tells.
    if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    if (meaning === 'cancel') {
      const again = signal === 'SIGINT' ? 'SIGINT again exits at once' : 'a second signal exits at once';
      const what = session.recorder?.applyBegun
        ? 'restoring what this apply changed'
        : 'nothing was applied; stopping before the apply';
      process.stderr.write(`kguard: ${signal}: stopping; ${what} (${again})\n`);
      session.cancel.abort(`interrupted by ${signal}`);
      return;
    }
    if (meaning === 'same-cancellation') {
      process.stderr.write(
        `kguard: ${signal} after ${seen[0]}: the same cancellation${signal === 'SIGHUP' ? ' (the terminal closed)' : ' (as GitHub Actions sends it)'}; the restore goes on (SIGINT again exits at once)\n`,
      );
      return;
    }
    stopRunningProcesses();
    session.recorder?.close();
    const message = sanitizeText(
      secondSignalMessage(signal, session.recorder?.notRestored() ?? [], ExitCode.Interrupted, session.recorder?.runId),
      session.redactor,
    );
    process.stderr.write(`kguard: ${message}\n`);
    const failure: Failure = {
      outcome: 'interrupted',
      exitCode: ExitCode.Interrupted,
      message,
      messages: session.recorder?.messages,
      printed: true,
    };
    session.events?.error(ExitCode.Interrupted, message);
    void (async () => {
      await reportFailure(failure, failureOutputs(session)).catch(() => undefined);
      await writeJunit(session, failureReport(failure)).catch(() => undefined);
      await writeDotenv(session, failure.outcome, ExitCode.Interrupted).catch(() => undefined);
      process.exit(ExitCode.Interrupted);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // SIGHUP (the terminal closed, the SSH session dropped) is a SIGTERM: restore, exit 130.
  process.on('SIGHUP', onSignal);
}
