// `kguard undo [RUN]`: puts back the state from before a successful run, from its history record
// (journal/history.ts), with the restore every apply uses and its rule: an object someone changed
// since the run (a person, a controller, a later run) in a field the run changed is not
// overwritten; kguard names it and prints the commands (exit 4). The restored workloads are
// tracked until healthy, as after any restore (exit 4 when one is not). `--dry-run` says what it
// would do to each object, with the differences `kubectl diff` style, and changes nothing.
import { stringify } from 'yaml';
import type { Clock } from '../../clock.js';
import { REVISION_ANNOTATION } from '../../kube.js';
import { ExitCode, InputError } from '../../errors.js';
import { joinParts, listHistory, type ListedRecord } from '../../journal/history-store.js';
import { asJournal } from '../../journal/history.js';
import { changesNow } from '../../journal/journalled.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { Reporter } from '../../model/events.js';
import type { RestoreResult } from '../../model/result.js';
import { isChangeKind } from '../../objects/compare.js';
import { unifiedDiff } from '../../objects/diff.js';
import { kubectlName, objectKey, type KubeObject } from '../../objects/model.js';
import { changeSinceApply, fieldsOfApply } from '../../objects/owners.js';
import { restoreObjects, trackWrittenBack } from '../../restore/entry.js';
import { writtenBack } from '../../restore/written-back.js';
import type { RestoreDeps } from '../../restore/context.js';
import type { RestoreStep } from '../../restore/steps.js';
import { trackOptions, type TrackSettings } from '../../track/options.js';

// yaml: this module is loaded with `kguard undo` (a part of the CLI bundle of its own), not at start-up.

export interface UndoOptions {
  runId?: string;
  namespace?: string;
  dryRun: boolean;
  deadlineMs: number;
  pollIntervalMs: number;
  watch: boolean;
  logLines: number;
  healthRules?: TrackSettings['healthRules'];
  statusGraceMs?: number;
}

export interface UndoDeps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  keepCopy: RestoreDeps['keepCopy'];
  signal?: AbortSignal;
}

export interface UndoResult {
  runId: string;
  exitCode: number;
  restored: number;
  untouched: number;
  needsPerson: number;
  results: Map<string, RestoreResult>;
}

export async function runUndo(options: UndoOptions, deps: UndoDeps): Promise<UndoResult> {
  const listed = await listHistory(deps.kubectl, options.namespace);
  const picked = pickRecord(joinParts(listed), options.runId, options.namespace);
  // A run that changed several namespaces keeps a part in each: with -n, the others are read too.
  const everywhere = options.namespace ? await listHistory(deps.kubectl, undefined).catch(() => listed) : listed;
  const { record } = joinParts(everywhere.filter((entry) => entry.record.runId === picked.record.runId))[0] ?? picked;
  const journal = asJournal(record);
  const { live, changes } = await changesNow(journal, deps);
  const untouched = changes.filter(({ change }) => !isChangeKind(change.change)).length;
  const { steps, results } = await restoreObjects(
    changes,
    { mode: 'all', keepCreated: false, wholeRun: true, deadlineMs: options.deadlineMs, dryRun: options.dryRun },
    deps,
  );
  if (options.dryRun) return preview(record.runId, steps, live, untouched, deps);
  // A signal stops the watch (trackWorkloads), and what it did not see healthy needs a person.
  const ended = await trackWrittenBack(
    steps.map(({ ref }) => ({ ref, result: results.get(objectKey(ref)) })),
    { track: trackOptions(options, 'rollback', options.deadlineMs) },
    deps,
  );
  const unhealthy = [...ended.values()].filter((end) => end.said === 'rollback-unhealthy').length;
  const restored = [...results.values()].filter(writtenBack).length;
  const needsPerson = results.size - restored + unhealthy;
  const exitCode = needsPerson > 0 ? ExitCode.RollbackFailed : ExitCode.Success;
  deps.reporter.emit({
    kind: 'undo-finished',
    runId: record.runId,
    restored,
    untouched,
    needsPerson,
    exitCode,
    dryRun: false,
  });
  return { runId: record.runId, exitCode, restored, untouched, needsPerson, results };
}

/** The run named, or the newest kept (in the namespace given, or anywhere). */
function pickRecord(
  listed: readonly ListedRecord[],
  runId: string | undefined,
  namespace: string | undefined,
): ListedRecord {
  const where = namespace ? ` in namespace ${namespace}` : '';
  if (runId) {
    const found = listed.find((entry) => entry.record.runId === runId);
    if (!found)
      throw new InputError(
        `no history record of run ${runId}${where} (kguard history lists them; the last --history runs of each namespace are kept).`,
      );
    return found;
  }
  const newest = listed[0];
  if (!newest)
    throw new InputError(
      `no run is kept in kguard's history${where}: there is nothing to undo (successful runs are kept unless --history 0 or --no-journal).`,
    );
  return newest;
}

/** What undoing would do to each object, and the differences of each write; nothing changes. */
function preview(
  runId: string,
  steps: readonly RestoreStep[],
  live: ReadonlyMap<string, KubeObject | undefined>,
  untouched: number,
  deps: UndoDeps,
): UndoResult {
  let writes = 0;
  let left = 0;
  for (const step of steps) {
    const { action, detail, lines } = previewOf(step, live.get(objectKey(step.ref)), runId);
    if (action === 'keep') left += 1;
    else if (action !== 'none') writes += 1;
    deps.reporter.emit({ kind: 'undo-preview', runId, object: step.ref, action, detail, lines });
  }
  const exitCode = left > 0 ? ExitCode.RollbackFailed : ExitCode.Success;
  deps.reporter.emit({
    kind: 'undo-finished',
    runId,
    restored: writes,
    untouched,
    needsPerson: left,
    exitCode,
    dryRun: true,
  });
  return { runId, exitCode, restored: writes, untouched, needsPerson: left, results: new Map() };
}

/** One object's preview: the restore's own check (someone else's change wins), then the differences. Pure. */
export function previewOf(
  step: RestoreStep,
  live: KubeObject | undefined,
  runId: string,
): { action: 'put-back' | 'replace' | 'delete' | 'recreate' | 'keep' | 'none'; detail: string; lines: string[] } {
  const labels = { from: `live ${kubectlName(step.ref)}`, to: `before run ${runId}` };
  switch (step.action) {
    case 'put-back': {
      const changed = changeSinceApply(step.applied, live, fieldsOfApply(step.before, step.applied));
      if (changed)
        return { action: 'keep', detail: `would NOT be put back: ${changed.detail}, and their change wins`, lines: [] };
      return {
        action: 'put-back',
        detail: `would be put back as it was before run ${runId}:`,
        lines: unifiedDiff(shown(live), shown(step.before), labels),
      };
    }
    case 'replace': {
      // The API server will not take the copy over it (kinds/refusals.ts): deleted, then created from the copy.
      const changed = changeSinceApply(step.applied, live, fieldsOfApply(step.before, step.applied));
      if (changed)
        return { action: 'keep', detail: `would NOT be put back: ${changed.detail}, and their change wins`, lines: [] };
      if (!step.copy) return { action: 'keep', detail: `would NOT be put back: ${step.why}`, lines: [] };
      return {
        action: 'replace',
        detail: `would be deleted and created again as it was before run ${runId} (${step.why}):`,
        lines: unifiedDiff(shown(live), shown(step.copy), labels),
      };
    }
    case 'delete': {
      const changed = changeSinceApply(step.applied, live);
      if (changed?.state === 'gone')
        return { action: 'none', detail: `already gone (run ${runId} created it)`, lines: [] };
      return {
        action: 'delete',
        detail: `would be deleted (run ${runId} created it)`,
        lines: unifiedDiff(shown(live), '', labels),
      };
    }
    case 'recreate':
      if (live)
        return {
          action: 'keep',
          detail: `would NOT be created again: an object of that name exists now (run ${runId} deleted the one before)`,
          lines: [],
        };
      return {
        action: 'recreate',
        detail: `would be created again (run ${runId} deleted it):`,
        lines: unifiedDiff('', shown(step.copy), labels),
      };
    case 'keep':
      return {
        action: 'keep',
        detail: `would NOT be restored (${step.reason}${step.detail ? `: ${step.detail}` : ''})`,
        lines: [],
      };
  }
}

/**
 * An object as `kubectl diff` compares it, without what the API server and the controllers own:
 * status, versions, managedFields, and the Deployment's revision number (the deployment
 * controller renumbers a restored revision itself).
 */
function shown(object: KubeObject | undefined): string {
  if (!object) return '';
  const { status: _status, ...rest } = object as KubeObject & { status?: unknown };
  const {
    resourceVersion: _rv,
    generation: _generation,
    managedFields: _fields,
    uid: _uid,
    creationTimestamp: _created,
    ...metadata
  } = object.metadata;
  const { [REVISION_ANNOTATION]: _revision, ...annotations } = metadata.annotations ?? {};
  const kept =
    Object.keys(annotations).length > 0 ? { ...metadata, annotations } : { ...metadata, annotations: undefined };
  return stringify({ ...rest, metadata: kept }, { sortMapEntries: true });
}
