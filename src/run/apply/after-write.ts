// From the first write on: apply (phase by phase) → detect what changed → track → verify and
// bake → restore → result, then the history record and the journal's end. Nothing escapes here:
// whatever breaks once the apply may have changed something is a failure of every changed object,
// and the restore still runs (or the run ends with exit 4 and the commands that finish it).
import { heldWorkloads } from '../../analysis/workloads.js';
import { isChange } from '../../objects/compare.js';
import type { RunJournal } from '../../journal/store.js';
import type { ApplyOptions } from '../../model/options.js';
import type { ObjectResult, RunResult } from '../../model/result.js';
import type { Verification } from '../../model/verify.js';
import type { Reading, RunHolds } from './before-write/reading.js';
import type { PendingObject } from './changes.js';
import type { Understood } from './understand.js';
import { cancelReason, type Deps } from './deps.js';
import type { Guard } from './guard.js';
import { historyRecordsOf, keptInHistory, writeHistory, type HistoryContext } from './history-step.js';
import { endJournal, rollbackCommand } from './journal-life.js';
import { applyInPhases, failUnjudged, newPhasedApply, type PhaseContext, type PhasedApply } from './phases.js';
import { restore } from './restore-step.js';
import { analysisInconclusive, verificationFailed, withOutcome } from './result.js';
import { verifyAndBake } from './verify-step.js';

export async function afterTheWrite(
  reading: Reading,
  guard: Guard,
  started: { at: number; iso: string },
  options: ApplyOptions,
  deps: Deps,
  holds: RunHolds,
): Promise<RunResult> {
  const { plan, understood, target, runId, home, recovered } = reading;
  const { journal } = guard;
  const state = newPhasedApply();
  const context: PhaseContext = {
    plan,
    before: guard.before,
    pruned: understood.pruned,
    journal,
    lease: guard.lease,
    held: guard.held,
    // Every phase is applied: what the dry run said is not read again (below).
    allApplied: () => forgetTheDryRun(plan.parts, understood),
  };
  const resultOf = (objects: readonly PendingObject[], verification: Verification | undefined): RunResult =>
    withOutcome({
      mode: 'apply',
      target,
      objects: objects.map(({ change: _change, newPods: _pods, stage: _stage, ...object }): ObjectResult => object),
      applied: state.applied,
      applyError: state.applyError?.message,
      cancelled: deps.signal?.aborted ? cancelReason(deps.signal) : undefined,
      rollbackMode: options.rollback,
      verification,
      ...(guard.images && guard.images.length > 0 ? { images: guard.images } : {}),
      applyMs: state.applyMs,
      totalMs: deps.clock.now() - started.at,
      kubectlProcesses: deps.kubectl.spawned,
    });
  const { objects, verification } = await applyAndJudge(context, state, options, deps, async (pending) =>
    verifyAndBake(
      pending,
      {
        runId,
        // --analysis compares the release with the window ending at its write (the main phase's).
        appliedAt: state.releasedAt,
        heldWorkloads: heldWorkloads(
          plan.parts.flatMap((part) => part.understood?.refs ?? []),
          understood.pruned,
        ),
        namespace: home,
        target,
        jobs: guard.verifyJobs,
        resultSoFar: (sofar) => resultOf(pending, sofar),
      },
      options,
      deps,
    ),
  );
  const result = { ...resultOf(objects, verification), ...(recovered.length > 0 ? { recoveredRuns: recovered } : {}) };
  if (journal) {
    const digest = (await reading.inputsDigest) ?? 'unknown (the inputs could not be read again)';
    await endTheRun(result, objects, journal, { target, digest, startedAt: started.iso }, options, deps, holds);
  }
  return result;
}

/**
 * The journal and the leases end together: neither protects the other. A kept journal is said
 * before the verdict; deleting one (and letting the leases go) happens after it. A successful
 * run's history record is written before the verdict and said once it is (#45: it was said
 * first, and a kill in between left no record): the verdict waits for that one write, no more.
 */
async function endTheRun(
  result: RunResult,
  objects: readonly PendingObject[],
  journal: RunJournal,
  history: HistoryContext,
  options: ApplyOptions,
  deps: Deps,
  holds: RunHolds,
): Promise<void> {
  const records = keptInHistory(result, journal, options)
    ? historyRecordsOf(result, objects, journal, history, options)
    : [];
  const journalEnded = endJournal(journal, result, deps, options.keepJournal);
  holds.ending = journalEnded.then(() => undefined);
  const written = await writeHistory(records, options, deps);
  if (written.length > 0)
    deps.reporter.emit({
      kind: 'history-kept',
      runId: written[0]!.runId,
      namespaces: written.map((record) => record.namespace),
      keep: options.history,
    });
}

/**
 * Apply (phase by phase), detect, track, verify, restore. An error here never escapes while the
 * apply may have changed something: the changed objects fail and are restored; if even what
 * changed cannot be read, each object ends "restore failed" with the command that finishes the job,
 * so the run exits 4.
 */
async function applyAndJudge(
  context: PhaseContext,
  state: PhasedApply,
  options: ApplyOptions,
  deps: Deps,
  checkTheRollout: (pending: PendingObject[]) => Promise<Verification | undefined>,
): Promise<{ objects: PendingObject[]; verification?: Verification }> {
  let verification: Verification | undefined;
  try {
    await applyInPhases(context, state, options, deps);
    // Nothing changed: the run ends as one refused before its apply.
    const refusal = state.refused ?? (state.applyError && !state.objects.some(isChange) ? state.applyError : undefined);
    if (refusal) {
      await state.journalled;
      await context.journal?.finish().catch(() => undefined);
      throw refusal;
    }
    if (state.unreadable) return { objects: unreadable(state, context.journal, deps) };
    // Healthy is not yet working: the checks and the bake, when asked for, once every phase is.
    if (!state.applyError) verification = await checkTheRollout(state.objects);
  } catch (error) {
    if (error === state.applyError || error === state.refused) throw error;
    deps.reporter.emit({ kind: 'internal-error', message: messageOf(error) });
    failUnjudged(state.objects, { source: 'internal', message: messageOf(error) });
  }
  await state.journalled;
  try {
    await restore(state.objects, options, deps, {
      failedAsUnit: verificationFailed(verification),
      // Without a journal, no `kguard rollback RUN` can finish it: each change is said with its commands.
      inconclusive: analysisInconclusive(verification) && !context.journal,
    });
  } catch (error) {
    deps.reporter.emit({ kind: 'internal-error', message: messageOf(error) });
    for (const object of state.objects.filter(isChange)) {
      object.restore ??= {
        status: 'failed',
        reason: `kguard failed while restoring it: ${messageOf(error)}`,
        commands: finishCommands(context.journal, deps),
      };
    }
  }
  return { objects: state.objects, verification };
}

/**
 * Once every phase is applied, the server's dry-run answer and the copies read beside it are read
 * no more (the pre-apply copies a restore returns to are the guard's, read again under the run's
 * leases): they are let go before the watch, which at 1,000 objects they outlasted as two more
 * copies of every object (docs/performance.md). The fields are replaced, never emptied in place:
 * without a journal the guard's copies may be that very map (guard.ts).
 */
export function forgetTheDryRun(parts: ReadonlyArray<{ understood?: Understood }>, understood: Understood): void {
  for (const held of [understood, ...parts.map((part) => part.understood)]) {
    if (!held) continue;
    held.current = new Map();
    if (held.server.ok) held.server = { ...held.server, objects: [], pruned: [] };
  }
}

/** What the apply changed could not be read: every object may have changed, and a person finishes it. */
function unreadable(state: PhasedApply, journal: RunJournal | undefined, deps: Deps): PendingObject[] {
  const reason = `kguard could not read it after the apply (${messageOf(state.unreadable)}), so it may or may not have changed`;
  for (const object of state.objects.filter(isChange))
    object.restore = { status: 'failed', reason, commands: finishCommands(journal, deps) };
  return state.objects;
}

/** The command that finishes a run by hand: its journal holds every pre-apply copy. */
function finishCommands(journal: RunJournal | undefined, deps: Deps): string[] {
  if (!journal) return [];
  return [rollbackCommand(journal.runId, deps.kubectl)];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
