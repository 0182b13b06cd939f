// What a run stopped by a second signal says on its way out: the first signal started a restore,
// the second ends kguard at once, so the objects not yet put back are named. Pure: the CLI entry
// prints the text and exits.

export function secondSignalMessage(
  signal: string,
  notRestored: readonly string[],
  exitCode: number,
  runId?: string,
): string {
  const what =
    notRestored.length > 0
      ? `the restore was NOT finished; these objects may still be as the apply left them:\n${notRestored.map((name) => `  ${name}`).join('\n')}`
      : 'the restore was NOT finished.';
  const finish = runId && notRestored.length > 0 ? `\nFinish it with: kguard rollback ${runId}` : '';
  return `${signal} again: exiting at once (exit ${exitCode}); ${what}${finish}`;
}

/**
 * What a signal means, given the ones before it in this run. The first one cancels: restore what
 * the apply changed. A second one exits at once, except a SIGTERM right after the first SIGINT:
 * GitHub Actions cancels a step with SIGINT, then SIGTERM 7.5 s later if it still runs, then kills
 * the process tree 2.5 s after that (docs.github.com, "Workflow cancellation"), so that SIGTERM is
 * the same cancellation arriving again, not a person insisting, and a restore in flight finishes.
 * So is a SIGHUP (the terminal closed, the SSH session dropped) after any first signal.
 */
export function signalMeaning(
  before: readonly NodeJS.Signals[],
  signal: NodeJS.Signals,
): 'cancel' | 'same-cancellation' | 'exit-now' {
  if (before.length === 0) return 'cancel';
  if (before.length === 1 && before[0] === 'SIGINT' && signal === 'SIGTERM') return 'same-cancellation';
  // The terminal closing after a Ctrl-C is no person insisting: the restore goes on.
  if (signal === 'SIGHUP') return 'same-cancellation';
  return 'exit-now';
}
