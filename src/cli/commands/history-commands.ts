// `kguard history` and `kguard undo`: the successful runs kept in the cluster (--history), and
// putting back the state from before one of them.
import { ExitCode } from '../../errors.js';
import type { ListedRecord } from '../../journal/history-store.js';
import { DEFAULTS } from '../../model/options.js';
import { describeObject } from '../../objects/model.js';
import { secretValuesOfObjects } from '../../report/safety/redact.js';
import { commandConnection } from '../connection.js';
import { parseOutputMode } from '../options.js';
import type { CommandContext } from '../session.js';
import { lastWordWriter, recordedKubectl, rollbackDeadlineMs, type RunCommandOptions } from './run-command.js';

export interface HistoryCommandOptions extends RunCommandOptions {
  dryRun?: boolean;
  verbose?: boolean;
  quiet?: boolean;
}

export async function historyCommand(
  command: 'history' | 'undo',
  runId: string | undefined,
  raw: HistoryCommandOptions,
  context: CommandContext,
): Promise<number> {
  const { session } = context;
  let closeKubectl = () => undefined as void;
  try {
    session.json = parseOutputMode(raw.output ?? 'text') === 'json';
    const deadlineMs = rollbackDeadlineMs(raw);
    const connectionArgs = commandConnection(raw, session);
    const [{ systemClock }, { joinParts, listHistory }, { runUndo }, { privateCopies }] = await Promise.all([
      import('../../clock.js'),
      import('../../journal/history-store.js'),
      import('../../run/undo/undo.js'),
      import('../../restore/private-copies.js'),
    ]);
    const { recorder, kubectl } = await recordedKubectl(connectionArgs, context, { watches: true });
    closeKubectl = () => kubectl.close();
    const write = lastWordWriter(session);

    if (command === 'history') {
      const listed = joinParts(await listHistory(kubectl, raw.namespace));
      // The records' copies may hold Secrets: their values are redacted from anything printed.
      for (const { record } of listed)
        for (const value of secretValuesOfObjects(record.objects.flatMap(({ before, applied }) => [before, applied])))
          session.redactor.addValue(value);
      session.finished = true;
      recorder.close();
      write(historyLines(listed).join('\n'), { runs: listed.map(historyReport) });
      return ExitCode.Success;
    }
    const copies = privateCopies();
    const result = await runUndo(
      {
        runId,
        namespace: raw.namespace,
        dryRun: raw.dryRun ?? false,
        deadlineMs,
        pollIntervalMs: DEFAULTS.pollIntervalMs,
        watch: true,
        logLines: DEFAULTS.logLines,
      },
      { kubectl, clock: systemClock, reporter: recorder, keepCopy: copies, signal: session.cancel.signal },
    );
    if (result.needsPerson === 0) await copies.remove();
    session.finished = true;
    recorder.close();
    if (session.json) {
      const objects = [...result.results].map(([key, restore]) => ({ object: key, ...restore, restored: undefined }));
      write('', {
        runId: result.runId,
        dryRun: raw.dryRun ?? false,
        exitCode: result.exitCode,
        restored: result.restored,
        untouched: result.untouched,
        needsPerson: result.needsPerson,
        objects,
        messages: recorder.messages,
      });
    }
    return result.exitCode;
  } catch (error) {
    session.recorder?.close();
    return context.fail(session, error);
  } finally {
    closeKubectl();
  }
}

function historyReport({ record, bytes }: ListedRecord) {
  return {
    runId: record.runId,
    namespace: record.namespace,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    user: record.user,
    context: record.context,
    command: record.command,
    inputsDigest: record.inputsDigest,
    outcome: record.outcome,
    objects: record.objects.map(({ ref, change }) => ({ ...ref, change })),
    bytes,
  };
}

/** One paragraph per run, newest first: when, who, what it changed, and the undo command. */
export function historyLines(listed: readonly ListedRecord[]): string[] {
  if (listed.length === 0)
    return ['no run is kept in kguard history here (successful runs are kept unless --history 0 or --no-journal)'];
  return listed.flatMap(({ record, bytes }) => [
    `${record.runId}  ${record.finishedAt}  ${record.outcome}  by ${record.user || '(unknown user)'}${record.context ? ` (context ${record.context})` : ''}  namespace ${record.namespace}  ${Math.ceil(bytes / 1024)} KiB`,
    ...record.objects.map(({ ref, change }) => `    ${describeObject(ref)}: ${change}`),
    `    inputs ${record.inputsDigest}; undo: kguard undo ${record.runId}`,
  ]);
}
