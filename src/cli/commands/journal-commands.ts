// `kguard status`, `rollback`, `unlock` and `forget`: the runs the cluster's journals and Leases
// show, and finishing one that could not finish itself.
import { ExitCode } from '../../errors.js';
import type { RunRecorder } from '../../report/recorder.js';
import { commandConnection, type commandKubectl } from '../connection.js';
import { parseOutputMode, runLabelOf } from '../options.js';
import type { CommandContext } from '../session.js';
import type { FleetRunCommandOptions } from './fleet-run-commands.js';
import { lastWordWriter, recordedKubectl, rollbackDeadlineMs } from './run-command.js';

export type RunCommandName = 'status' | 'rollback' | 'unlock' | 'forget';

/** Beside a fleet's options (`contexts`: status and rollback across a fleet's contexts). */
export interface JournalCommandOptions extends FleetRunCommandOptions {
  /** rollback: the run started with this --run-label. */
  runLabel?: string;
  verbose?: boolean;
  quiet?: boolean;
}

export async function journalCommand(
  command: RunCommandName,
  runId: string | undefined,
  raw: JournalCommandOptions,
  context: CommandContext,
): Promise<number> {
  const { session } = context;
  if (raw.contexts !== undefined && (command === 'status' || command === 'rollback')) {
    const { fleetRunCommand } = await import('./fleet-run-commands.js');
    return fleetRunCommand(command, runId, raw, context);
  }
  let closeKubectl = () => undefined as void;
  try {
    session.json = parseOutputMode(raw.output ?? 'text') === 'json';
    const deadlineMs = rollbackDeadlineMs(raw);
    const connectionArgs = commandConnection(raw, session);
    const parts = await loadParts();
    const { recorder, kubectl } = await recordedKubectl(connectionArgs, context, { watches: false });
    closeKubectl = () => kubectl.close();
    const write = lastWordWriter(session);
    const run: JournalRun = { parts, session, raw, kubectl, recorder, deadlineMs, write };
    if (command === 'rollback') return await rollbackRun(runId, run);
    const listed = await parts.runs.listRuns(kubectl, raw.namespace, Date.now(), parts.probeHolder);
    if (command === 'status') return status(listed, run);
    return await unlockOrForget(command, parts.runs.pickRun(listed, runId, command, raw.force ?? false), run);
  } catch (error) {
    session.recorder?.close();
    return context.fail(session, error);
  } finally {
    closeKubectl();
  }
}

/** What the run commands use, loaded when one runs. */
async function loadParts() {
  const [
    { systemClock },
    { probeHolder },
    runs,
    { runRollback },
    { privateCopies, removeCopiesOf },
    { releaseLeftLeases },
    { removeJournal },
  ] = await Promise.all([
    import('../../clock.js'),
    import('../../journal/holder.js'),
    import('../../journal/runs.js'),
    import('../../run/rollback/rollback.js'),
    import('../../restore/private-copies.js'),
    import('../../journal/held-leases.js'),
    import('../../journal/store.js'),
  ]);
  return {
    systemClock,
    probeHolder,
    runs,
    runRollback,
    privateCopies,
    removeCopiesOf,
    releaseLeftLeases,
    removeJournal,
  };
}

type Parts = Awaited<ReturnType<typeof loadParts>>;

/** One run command's means: its kubectl, its recorder, the --rollback-timeout and the writer of its last word. */
interface JournalRun {
  parts: Parts;
  session: CommandContext['session'];
  raw: JournalCommandOptions;
  kubectl: Awaited<ReturnType<typeof commandKubectl>>;
  recorder: RunRecorder;
  deadlineMs: number;
  /** The text, or with --output json the report. */
  write(text: string, report: unknown): void;
}

type ListedRun = Awaited<ReturnType<Parts['runs']['listRuns']>>[number];

/** kguard rollback: the run restored from its journal (a live one asked to stop first). */
async function rollbackRun(
  runId: string | undefined,
  { parts, session, raw, kubectl, recorder, deadlineMs, write }: JournalRun,
): Promise<number> {
  const copies = parts.privateCopies();
  const result = await parts.runRollback(
    { runId, runLabel: runLabelOf(raw.runLabel), namespace: raw.namespace, deadlineMs, force: raw.force },
    { kubectl, clock: parts.systemClock, reporter: recorder, keepCopy: copies, probe: parts.probeHolder },
  );
  if (result.needsPerson === 0) await Promise.all([copies.remove(), parts.removeCopiesOf(result.runId)]);
  session.finished = true;
  const exitCode = result.needsPerson > 0 ? ExitCode.RollbackFailed : ExitCode.Success;
  if (result.nothing !== undefined) {
    // Nothing left: no run of the label, a live run that restored everything itself, or another
    // kguard (a retry of the run's apply) that restored it while this one waited for its claim.
    const text = result.stopped
      ? `kguard rollback ${result.runId}: the run stopped and restored what it changed itself; its journal is gone (exit 0)`
      : `kguard rollback: ${result.nothing} (exit 0)`;
    recorder.close();
    write(text, {
      runId: result.runId || null,
      exitCode,
      stopped: result.stopped ?? null,
      finishedBy: result.finishedBy ?? null,
      restored: 0,
      untouched: 0,
      needsPerson: 0,
      objects: [],
      messages: recorder.messages,
    });
    return exitCode;
  }
  recorder.emit({
    kind: 'rollback-finished',
    runId: result.runId,
    restored: result.restored,
    untouched: result.untouched,
    needsPerson: result.needsPerson,
    exitCode,
  });
  recorder.close();
  if (session.json) {
    const objects = [...result.results].map(([key, restore]) => ({ object: key, ...restore, restored: undefined }));
    write('', {
      runId: result.runId,
      exitCode,
      stopped: result.stopped ?? null,
      restored: result.restored,
      untouched: result.untouched,
      needsPerson: result.needsPerson,
      objects,
      messages: recorder.messages,
    });
  }
  return exitCode;
}

/** kguard status: every run the journals and Leases show. */
function status(listed: readonly ListedRun[], { parts, session, recorder, write }: JournalRun): number {
  session.finished = true;
  recorder.close();
  const report = listed.map((run) => ({
    runId: run.runId,
    namespace: run.journal?.namespace,
    journalSecrets: run.secrets,
    missing: run.missing,
    state: run.journal?.state,
    liveness: run.liveness.state,
    why: run.liveness.why,
    startedAt: run.journal?.startedAt,
    expired: run.expired,
    objects: run.journal?.objects.map(({ ref }) => ref) ?? [],
    leases: run.leases.map((lease) => ({ name: lease.metadata.name, namespace: lease.metadata.namespace })),
    command: run.journal?.command,
    runLabel: run.journal?.runLabel,
    stop: parts.runs.stopOf(run),
  }));
  write(parts.runs.statusLines([...listed], new Date()).join('\n'), { runs: report });
  return ExitCode.Success;
}

/** unlock: the run's Leases go. forget: its journal goes too; its objects stay as they are. */
async function unlockOrForget(
  command: 'unlock' | 'forget',
  run: ListedRun,
  { parts, session, kubectl, recorder, deadlineMs, write }: JournalRun,
): Promise<number> {
  const namespaces = run.leases.map((lease) => lease.metadata.namespace ?? '');
  await parts.releaseLeftLeases(kubectl, run.runId, namespaces, deadlineMs, recorder);
  if (command === 'forget' && run.journal)
    await Promise.all([parts.removeJournal(kubectl, run.secrets, deadlineMs), parts.removeCopiesOf(run.runId)]);
  session.finished = true;
  recorder.close();
  const objects =
    run.journal?.objects.map(
      ({ ref }) => `${ref.kind.toLowerCase()}/${ref.name}${ref.namespace ? ` (namespace ${ref.namespace})` : ''}`,
    ) ?? [];
  const text =
    command === 'unlock'
      ? `kguard unlock ${run.runId}: released ${run.leases.length} Lease(s); other runs may now change its objects (exit 0)`
      : `kguard forget ${run.runId}: removed its journal and ${run.leases.length} Lease(s); its objects stay as they are now${objects.length > 0 ? `: ${objects.join(', ')}` : ''} (exit 0)`;
  write(text, {
    runId: run.runId,
    command,
    released: run.leases.length,
    journalRemoved: command === 'forget' && Boolean(run.journal),
    objects: run.journal?.objects.map(({ ref }) => ref) ?? [],
  });
  return ExitCode.Success;
}
