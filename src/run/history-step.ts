// A successful run's record in the history (journal/history.ts), written where its journal is,
// as the journal goes: the pre-apply and applied copies of what it changed, who, where, when,
// and its inputs' digest; the oldest records of the namespace beyond --history go. Said before
// the verdict line, written after it with kguard's other cleanup; a record that cannot be kept is
// a warning, never a different exit code.
import { keepHistory } from '../journal/history-store.js';
import type { HistoryRecord } from '../journal/history.js';
import type { RunJournal } from '../journal/store.js';
import type { ApplyOptions } from '../model/options.js';
import type { RunResult, Target } from '../model/result.js';
import { isChange } from '../objects/compare.js';
import { beforeOf, type PendingObject } from './changes.js';
import type { Deps } from './deps.js';

export interface HistoryContext {
  startedAt: string;
  target?: Target;
  digest: string;
}

/** Whether the run is kept: it succeeded, changed something, and was journalled with --history above 0. */
export function keptInHistory(result: RunResult, journal: RunJournal | undefined, options: ApplyOptions): journal is RunJournal {
  return journal !== undefined && options.history > 0 && result.outcome === 'succeeded';
}

export function historyRecordOf(result: RunResult, objects: readonly PendingObject[], journal: RunJournal, context: HistoryContext, options: ApplyOptions): HistoryRecord {
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

export async function writeHistory(record: HistoryRecord, options: ApplyOptions, deps: Pick<Deps, 'kubectl' | 'reporter'>): Promise<void> {
  await keepHistory(deps.kubectl, record, options.history, Math.min(60_000, options.timeoutMs)).catch((error: unknown) =>
    deps.reporter.emit({ kind: 'journal-warning', message: error instanceof Error ? error.message : String(error) }),
  );
}
