// A run that could not finish itself (killed, or it needed a person), restored from its journal in
// the cluster: what `kguard rollback` does once it has picked the run, and what an apply does to a
// dead run before it reads its own "before" (dead-runs.ts). The same restore as an apply's, with the
// same rule: someone else's change wins.
import type { ObjectChange } from '../../model/result.js';
import { InputError } from '../../errors.js';
import { isChangeKind } from '../../objects/compare.js';
import type { Clock } from '../../clock.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { Journal } from '../../journal/journal.js';
import { changesNow } from '../../journal/journalled.js';
import { leaseNamespace } from '../../journal/lease.js';
import { releaseLeftLeases } from '../../journal/leases.js';
import { removeJournal } from '../../journal/store.js';
import { removeHistoryOf } from '../../journal/history-store.js';
import type { HolderProbe } from '../../journal/holder.js';
import type { RunLiveness } from '../../journal/liveness.js';
import { DEFAULTS } from '../../model/options.js';
import { listRuns, pickRun, type RunRecord } from '../../journal/runs.js';
import { objectKey, typeArg } from '../../objects/model.js';
import { restoreObjects } from '../entry.js';
import { writtenBack } from '../written-back.js';
import type { RestoreDeps } from '../context.js';
import type { RestoreResult } from '../../model/result.js';
import type { Reporter } from '../../model/events.js';

export interface RecoveryDeps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  keepCopy: RestoreDeps['keepCopy'];
  probe: HolderProbe;
}

/** What restoring a run from its journal did. */
export interface RunRestored {
  runId: string;
  /** Objects written back, deleted or created again. */
  restored: number;
  /** Objects already as they were before the run. */
  untouched: number;
  /** Objects a person must look at (someone else's change, a refused write). */
  needsPerson: number;
  results: Map<string, RestoreResult>;
}

/**
 * Restores `run` (not live, or `force`) from its journal. A run that died during its apply may
 * have left a request in flight: it can land up to the run's request timeout after the death, so
 * the restore waits that out first, and reads the objects again after it before calling the run
 * restored. When every object is back, the journal, the run's Leases and its history record go.
 */
export async function restoreFromJournal(
  run: RunRecord,
  options: { deadlineMs: number; force?: boolean },
  deps: RecoveryDeps,
): Promise<RunRestored> {
  const journal = run.journal!;
  // A journal is restored whole: a Secret of it that could not be read holds objects this would leave as they are.
  if (run.missing.length > 0 && !options.force) {
    throw new InputError(
      `kguard cannot read the whole journal of run ${run.runId}: its Secrets in namespace ${run.missing.join(', ')} are missing or unreadable, so some objects of the run would be left as they are. Next: run kguard rollback ${run.runId} with credentials that may read Secrets there, or add --force to restore what the rest of the journal holds (the journal then stays).`,
    );
  }
  await waitOutTheApply(journal, run.liveness, deps);
  const { changes } = await changesNow(journal, deps);
  const { results } = await restoreObjects(
    changes,
    {
      mode: 'all',
      keepCreated: false,
      wholeRun: true,
      deadlineMs: options.deadlineMs,
      stages: new Map(
        journal.objects.flatMap((entry) =>
          entry.stage === undefined ? [] : [[objectKey(entry.ref), entry.stage] as const],
        ),
      ),
    },
    deps,
  );
  // Read again: a late write (of a run that was not quite dead) would show here, not be called restored.
  const late = (await changesNow(journal, deps)).changes.filter(({ ref, change }) => {
    const status = results.get(objectKey(ref))?.status;
    return isChangeKind(change.change) && !ownersMovedOnly(change) && status !== 'kept' && status !== 'failed';
  });
  for (const { ref } of late) {
    results.set(objectKey(ref), {
      status: 'failed',
      reason:
        'it changed again after the restore (a late write of the run, or someone else): look at it, then kguard rollback again',
      commands: [
        deps.kubectl.commandLine([
          'get',
          typeArg(ref),
          ...(ref.namespace ? ['-n', ref.namespace] : []),
          ref.name,
          '-o',
          'yaml',
        ]),
      ],
    });
  }
  const needsPerson = [...results.values()].filter((result) => !writtenBack(result)).length;
  if (needsPerson === 0) {
    // Nothing is left to do: the journal and the run's leases go.
    if (run.missing.length === 0) await removeJournal(deps.kubectl, run.secrets, options.deadlineMs);
    // A healthy run of a fleet kept a history record; undone, it is no run for `kguard undo` to offer.
    await Promise.all([
      releaseLeasesOf(journal, options.deadlineMs, deps),
      removeHistoryOf(deps.kubectl, journal.runId, options.deadlineMs).catch(() => undefined),
    ]);
  }
  return {
    runId: journal.runId,
    restored: [...results.values()].filter(writtenBack).length,
    untouched: changes.filter(({ change }) => !isChangeKind(change.change)).length,
    needsPerson,
    results,
  };
}

/**
 * The run `runId` as listed now in `namespace` (its journal as it stands after any wait), restored
 * from its journal. A run that is live again is refused (runs.ts): it is no dead run to finish.
 */
export async function restoreRunNamed(
  runId: string,
  namespace: string | undefined,
  deadlineMs: number,
  deps: RecoveryDeps,
): Promise<RunRestored> {
  const run = pickRun(await listRuns(deps.kubectl, namespace, Date.now(), deps.probe), runId, 'rollback', false);
  return restoreFromJournal(run, { deadlineMs }, deps);
}

/** The grace a request gets beyond its timeout= before the API server has surely answered it. */
const LANDING_MARGIN_MS = 2_000;

/** A run killed during its apply: wait until any request it had in flight has ended. */
async function waitOutTheApply(journal: Journal, liveness: RunLiveness, deps: RecoveryDeps): Promise<void> {
  if (journal.state !== 'applying') return;
  const diedBy = liveness.state === 'dead' ? liveness.diedBy : Date.now();
  const until = diedBy + (journal.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs) + LANDING_MARGIN_MS;
  const waitMs = until - Date.now();
  if (waitMs <= 0) return;
  deps.reporter.emit({ kind: 'rollback-wait', runId: journal.runId, waitMs });
  await deps.clock.sleep(waitMs);
}

/** The leases a killed run left, in each namespace it touched: only those it still holds. */
async function releaseLeasesOf(journal: Journal, deadlineMs: number, deps: RecoveryDeps): Promise<void> {
  const clusterNamespace = journal.clusterNamespace ?? journal.namespace;
  const namespaces = [
    journal.namespace,
    ...Object.keys(journal.pieces ?? {}),
    ...journal.objects.map(({ ref }) => leaseNamespace(ref, clusterNamespace)),
  ];
  await releaseLeftLeases(deps.kubectl, journal.runId, namespaces, deadlineMs, deps.reporter);
}

/**
 * The values are back and only the field owners differ from the journal's copy: a controller
 * wrote its own entry after the restore (the deployment controller's status and revision
 * annotation carry a new time on a real cluster), which is no late write of the run.
 */
function ownersMovedOnly(change: ObjectChange): boolean {
  return (
    change.change === 'configured' &&
    change.paths.length > 0 &&
    change.paths.every((path) => path === 'metadata.managedFields')
  );
}
