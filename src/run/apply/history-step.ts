// A successful run's record in the history (journal/history.ts), written where its journal is,
// as the journal goes: the pre-apply and applied copies of what it changed, who, where, when,
// and its inputs' digest; the oldest records of the namespace beyond --history go. Said before
// the verdict line, written after it with kguard's other cleanup; a record that cannot be kept is
// a warning, never a different exit code.
import { keepHistory } from '../../journal/history-store.js';
import type { HistoryRecord } from '../../journal/history.js';
import type { RunJournal } from '../../journal/store.js';
import type { ApplyOptions } from '../../model/options.js';
import type { RunResult, Target } from '../../model/result.js';
import { isChange } from '../../objects/compare.js';
import { beforeOf, type PendingObject } from './changes.js';
import type { Deps } from './deps.js';

export interface HistoryContext {
  startedAt: string;
  target?: Target;
  digest: string;
}

/** Whether the run is kept: it succeeded, changed something, and was journalled with --history above 0. */
export function keptInHistory(
  result: RunResult,
  journal: RunJournal | undefined,
  options: ApplyOptions,
): journal is RunJournal {
  return journal !== undefined && options.history > 0 && result.outcome === 'succeeded';
}

/**
 * The run's record, one per namespace it changed: like the journal, the copies of a namespace's
 * objects (its Secrets among them) stay in that namespace, with that namespace's Secret protection.
 * Cluster-scoped objects go with the run's home namespace. `kguard history` and `undo` join the parts.
 */
export function historyRecordsOf(
  result: RunResult,
  objects: readonly PendingObject[],
  journal: RunJournal,
  context: HistoryContext,
  options: ApplyOptions,
): HistoryRecord[] {
  const whole = historyRecordOf(result, objects, journal, context, options);
  const byNamespace = new Map<string, HistoryRecord['objects']>();
  for (const entry of whole.objects) {
    const namespace = entry.ref.namespace || journal.namespace;
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), entry]);
  }
  return [...byNamespace].map(([namespace, entries]) => ({ ...whole, namespace, objects: entries }));
}

function historyRecordOf(
  result: RunResult,
  objects: readonly PendingObject[],
  journal: RunJournal,
  context: HistoryContext,
  options: ApplyOptions,
): HistoryRecord {
  return {
    runId: journal.runId,
    namespace: journal.namespace,
    startedAt: context.startedAt,
    finishedAt: new Date().toISOString(),
    user: context.target?.user ?? '',
    context: context.target?.context ?? '',
    command: options.commandLine ?? 'kguard apply',
    inputsDigest: context.digest,
    outcome: result.outcome,
    objects: objects.filter(isChange).map((object) => ({
      ref: object.ref,
      change: object.changeKind,
      before: beforeOf(object.change) ?? null,
      applied: 'after' in object.change ? object.change.after : null,
    })),
  };
}

/** Writes each record; a failed write is a warning. Returns the records written: only they are said kept. */
export async function writeHistory(
  records: readonly HistoryRecord[],
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
): Promise<HistoryRecord[]> {
  const written = await Promise.all(
    records.map((record) =>
      keepHistory(deps.kubectl, record, options.history, Math.min(60_000, options.timeoutMs)).then(
        () => record,
        (error: unknown) => {
          deps.reporter.emit({
            kind: 'journal-warning',
            message: error instanceof Error ? error.message : String(error),
          });
          return undefined;
        },
      ),
    ),
  );
  return written.filter((record): record is HistoryRecord => record !== undefined);
}
