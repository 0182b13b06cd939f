// What an interrupted run says on its way out. A cancelled CI job or Ctrl-C leaves whatever the
// apply changed in place: kguard does not roll back while it is being stopped, but it says how
// far it got and exactly what is in flight. Pure: the CLI entry prints the text and exits.
import type { InFlight } from '../report/recorder.js';
import type { RunEventKind } from '../report/events.js';

export interface RunProgress {
  /** Event kinds seen so far (RunRecorder.seen). */
  seen: ReadonlySet<RunEventKind>;
  /** Whether kguard had started the real (not dry-run) kubectl apply. */
  applyStarted: boolean;
  inFlight: readonly InFlight[];
  /** The exact command line a person would type, with this run's connection flags. */
  commandLine(args: readonly string[]): string;
}

export function interruptMessage(signal: string, progress: RunProgress | undefined): string {
  const head = `interrupted by ${signal}`;
  if (!progress || (!progress.applyStarted && !progress.seen.has('changes'))) return `${head} before the apply; nothing was applied.`;
  if (progress.seen.has('restoring')) {
    return `${head} while restoring: some objects may not be back as they were before the apply. Run the same kguard apply again to see where they stand, or compare with kubectl diff.`;
  }
  if (!progress.seen.has('changes')) {
    return `${head} while kubectl apply ran; it was stopped, and some objects may have changed. Nothing was checked or restored: compare with kubectl diff -f <the same manifests>.`;
  }
  const lines = progress.inFlight.map(({ workload, fromRevision }) =>
    fromRevision === undefined
      ? `  ${progress.commandLine(['delete', `deployment.apps/${workload.name}`, '-n', workload.namespace])}    # created by this apply`
      : `  ${progress.commandLine(['rollout', 'undo', `deployment.apps/${workload.name}`, '-n', workload.namespace, `--to-revision=${fromRevision}`])}`,
  );
  if (lines.length === 0) return `${head} after the apply; what it changed is in place and was not restored.`;
  return `${head}; the rollouts it was watching were NOT checked or rolled back. To undo them by hand:\n${lines.join('\n')}`;
}
