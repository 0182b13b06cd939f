// What a run stopped by a second signal says on its way out: the first signal started a restore,
// the second ends kguard at once, so the objects not yet put back are named. Pure: the CLI entry
// prints the text and exits.

export function secondSignalMessage(signal: string, notRestored: readonly string[], exitCode: number, runId?: string): string {
  const what =
    notRestored.length > 0
      ? `the restore was NOT finished; these objects may still be as the apply left them:\n${notRestored.map((name) => `  ${name}`).join('\n')}`
      : 'the restore was NOT finished.';
  const finish = runId && notRestored.length > 0 ? `\nFinish it with: kguard rollback ${runId}` : '';
  return `${signal} again: exiting at once (exit ${exitCode}); ${what}${finish}`;
}
