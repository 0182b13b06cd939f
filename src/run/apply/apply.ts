// The whole of `kguard apply`, as a list of steps:
// read inputs once → cut them into phases (CRDs first, pre, main, post; one phase for most applies)
// → understand (kubectl's reading) → snapshot every object → per phase: apply → detect what
// changed → track → restore → result. Once the apply has run, nothing escapes: whatever breaks
// after it is a failure of every changed object, and the restore still runs (or the run ends
// with exit 4 and the commands that finish it).
import { interruptible } from '../../clock.js';
import { InterruptedError } from '../../errors.js';
import { probeHolder, thisProcess } from '../../journal/holder.js';
import { finishDeadRuns, lookAhead } from '../rollback/recover.js';
import { LEASE_DURATION_SECONDS } from '../../journal/lease.js';
import { acquireLeases, type HeldLeases } from '../../journal/leases.js';
import { makeRunId, removeJournal, type RunJournal } from '../../journal/store.js';
import { stopOnRequest } from '../../journal/stop.js';
import { digestOfInputs, prepareInputs, refuseOversized } from '../../manifests/inputs.js';
import type { ApplyOptions } from '../../model/options.js';
import type { ObjectResult, RunResult } from '../../model/result.js';
import type { Verification } from '../../model/verify.js';
import { prepareVerifyJobs } from '../../verify/job-manifest.js';
import { isChange } from '../../objects/compare.js';
import { PHASES } from '../../manifests/phases.js';
import { objectKey, type ObjectRef } from '../../objects/model.js';
import { judgeUnsettled, type PendingObject } from './changes.js';
import { cancelReason, type Deps } from './deps.js';
import { endJournal, homeNamespace, journalPlace, rollbackCommand, startJournal } from './journal-life.js';
import { checkPermissions } from './permissions.js';
import { preview } from './preview.js';
import { restore } from './restore-step.js';
import { restoreLimits } from './restore-limits.js';
import { verificationFailed, withOutcome } from './result.js';
import { verifyAndBake, type VerifyContext } from './verify-step.js';
import { historyRecordsOf, keptInHistory, writeHistory } from './history-step.js';
import { planRun, understandPlan, type RunPlan } from './parts.js';
import { applyInPhases, failUnjudged, newPhasedApply, type PhaseContext, type PhasedApply } from './phases.js';
import { changesNothing, checkRestorable, snapshot } from './understand.js';
import { checkImagesStep } from '../../images/check.js';

export type { Deps };

export async function runApply(options: ApplyOptions, rawDeps: Deps): Promise<RunResult> {
  // A signal, or a stop request on the run's Lease (kguard rollback from anywhere): the same cancellation.
  const stopping = stopOnRequest(rawDeps.signal, { poll: options.poll });
  const deps = { ...rawDeps, signal: stopping.signal, clock: interruptible(rawDeps.clock, stopping.signal) };
  const startedAt = deps.clock.now();
  const startedAtIso = new Date().toISOString();
  // Before the apply every kubectl call is a read: a signal stops them at once.
  deps.kubectl.cancelReadsOn(deps.signal);
  const inputs = await prepareInputs(options.manifests, deps.inputs).catch(interruptedBeforeApply(deps.signal));
  await refuseOversized(inputs).catch(async (error: unknown) => {
    await inputs.cleanup();
    throw error;
  });
  // The history names the inputs by the digest of the bytes kubectl reads, read now, while kubectl works.
  const inputsDigest =
    options.history !== 0 && !options.dryRun ? digestOfInputs(inputs).catch(() => undefined) : undefined;
  // The run's target, resolved once and passed on every later call: a context switched while
  // kguard watches cannot send the restore to another cluster.
  const target = await deps.kubectl.pinTarget().catch(async (error: unknown) => {
    await inputs.cleanup();
    return interruptedBeforeApply(deps.signal)(error);
  });
  if (target) deps.reporter.emit({ kind: 'target', ...target });
  const probe = rawDeps.probe ?? probeHolder;
  // The dead-run look where the objects most likely are, beside the dry run (through the proxy only).
  const ahead = !options.dryRun && deps.kubectl.openChannel() ? (options.namespace ?? target?.namespace) : undefined;
  const looked = ahead ? lookAhead(ahead, { kubectl: deps.kubectl, probe }) : undefined;
  const leases: HeldLeases[] = [];
  let plan: RunPlan | undefined;
  let ending: Promise<void> | undefined;
  let result: RunResult | undefined;
  try {
    plan = await planRun(inputs, options).catch(interruptedBeforeApply(deps.signal));
    // A refused dry run ends the run before kguard writes anything, its own leases included.
    let understood = await understandPlan(plan, options, deps).catch(interruptedBeforeApply(deps.signal));
    let refs = [...understood.refs, ...understood.pruned];
    const runId = rawDeps.runId ?? makeRunId();
    // Each namespace's copies are journalled in it; cluster-scoped ones in --journal-namespace, where their Leases go too.
    let place = journalPlace(refs, understood.current, options.journalNamespace);
    // A dead run's journal on these objects holds their true "before": that run is finished first
    // (run/rollback/recover.ts), and what kubectl reads of the objects is read again after it.
    const { recovered, heldByLive, expired } = options.dryRun
      ? { recovered: [], heldByLive: new Set<string>(), expired: [] }
      : await finishDeadRuns(
          refs,
          place.namespaces,
          { deadlineMs: options.rollbackTimeoutMs },
          { ...deps, probe, looked },
        ).catch(interruptedBeforeApply(deps.signal));
    if (recovered.length > 0) {
      understood = await understandPlan(plan, options, deps).catch(interruptedBeforeApply(deps.signal));
      refs = [...understood.refs, ...understood.pruned];
      place = journalPlace(refs, understood.current, options.journalNamespace);
    }
    // The apply's own namespace (its first namespaced object's): verify Jobs run there.
    const home = homeNamespace(refs, options.namespace);
    // Parts kubectl can read only once this apply's CRDs exist cannot be judged unchanged now.
    const readLater = plan.parts.some((part) => !part.understood);
    // What a restore could not put back, or would put back another way: said before anything changes.
    for (const limit of restoreLimits(understood)) deps.reporter.emit(limit);
    // The --verify-job files are read and checked now: a Job the API server refuses is refused before the apply.
    const verifyJobs =
      options.verifyJobs.length > 0 && !options.dryRun
        ? await prepareVerifyJobs(
            options.verifyJobs,
            {
              namespace: home,
              runId,
              createdNamespaces: place.placement.created,
              deadlineMs: options.timeoutMs,
            },
            deps.kubectl,
          ).catch(interruptedBeforeApply(deps.signal))
        : [];
    // The server dry run leaves every object as it is and nothing is pruned (parts read only once
    // this apply's CRDs exist cannot be judged yet).
    const unchanged = !readLater && changesNothing(understood);
    // An apply the API server says changes nothing writes nothing of kguard's either: no lease, no journal.
    const journalled = options.journal && !options.dryRun && !unchanged;
    // Nor does it apply: every object would stay as it is and nothing is pruned, so `kubectl apply`
    // would write nothing. Checks asked for (--verify, --verify-job) still need the apply's run.
    if (!options.dryRun && unchanged && options.verifyJobs.length === 0 && options.verifyCommands.length === 0) {
      deps.reporter.emit({ kind: 'nothing-to-change', objects: understood.refs });
      // Nothing changes, but a rollout someone left unfinished is judged, not called unchanged.
      const judged = await judgeUnsettled(understood.refs, understood.current, heldByLive, options, deps);
      result = {
        ...(judged
          ? withOutcome({ ...unchangedResult(understood.refs, target, options, deps, startedAt), objects: judged })
          : unchangedResult(understood.refs, target, options, deps, startedAt)),
        ...(recovered.length > 0 ? { recoveredRuns: recovered } : {}),
      };
      deps.announce?.(result);
      return result;
    }
    // What a restore needs to know of each kind, read now (and kept for the restore): nothing is
    // applied that kguard could not restore.
    // Then whether this user may do what a restore would (one kubectl process). An apply that
    // changes nothing has nothing to restore: neither is asked.
    const restorable =
      options.rollback !== 'none' && !options.dryRun && !unchanged
        ? checkRestorable(refs, deps).then(() => checkPermissions(understood, options, deps))
        : undefined;
    restorable?.catch(() => undefined);
    // Does every image the apply changes exist? Asked of the registries now, beside the reads
    // above, and awaited before the first write (images/check.ts): a missing one refuses the run.
    const imagesChecked =
      options.imageCheck !== 'off' && !options.dryRun && understood.server.ok
        ? checkImagesStep(understood.server.objects, understood.current, options, deps)
        : undefined;
    imagesChecked?.catch(() => undefined);
    // Old journals go while this run takes its leases and its snapshot: nothing waits for it.
    const tidied = journalled
      ? Promise.all(
          expired.map((secrets) => removeJournal(deps.kubectl, secrets, options.timeoutMs).catch(() => undefined)),
        )
      : undefined;
    // One run per object at a time: the leases come before the snapshot, so a run never records
    // another run's unverified state as its "before".
    const lease = async (claimed: readonly ObjectRef[], nameBase?: string) => {
      // The waits for other runs end on a signal; the renewals go on (rawDeps.clock) while the run restores.
      leases.push(
        await acquireLeases(
          deps.kubectl,
          claimed,
          {
            home: options.journalNamespace,
            clusterNamespace: claimed.some((ref) => ref.namespace === '') ? options.journalNamespace : undefined,
            runId,
            nameBase,
            holder: thisProcess(),
            journalNamespace: place.home,
            durationSeconds: LEASE_DURATION_SECONDS,
            lockTimeoutMs: options.lockTimeoutMs,
            deadlineMs: options.timeoutMs,
          },
          { clock: rawDeps.clock, reporter: deps.reporter, signal: deps.signal },
        ),
      );
    };
    const images = await imagesChecked?.catch(interruptedBeforeApply(deps.signal));
    if (journalled) await lease(refs).catch(interruptedBeforeApply(deps.signal));
    if (leases[0]) stopping.watch(deps.kubectl, leases[0], runId, { clock: rawDeps.clock, reporter: deps.reporter });
    // Under the leases the copies are read again; without leases, the reading of the dry run stands.
    const before =
      journalled || understood.pruned.length > 0
        ? await snapshot(refs, deps).catch(interruptedBeforeApply(deps.signal))
        : understood.current;
    if (options.dryRun) {
      result = { ...(await preview(understood, before, readableRequest(plan), options, deps, startedAt)), target };
      deps.announce?.(result);
      return result;
    }
    await restorable?.catch(interruptedBeforeApply(deps.signal));
    const [journal] = await Promise.all([
      journalled ? startJournal(runId, place, refs, before, options, deps, stagesOf(plan)) : undefined,
      tidied,
    ]);
    if (deps.signal?.aborted) {
      // kguard's own cleanup is a write: it must land, not be stopped with the reads.
      deps.kubectl.stopCancelling();
      await journal?.finish().catch(() => undefined);
      interruptedBeforeApply(deps.signal)(undefined);
    }
    deps.kubectl.stopCancelling();

    const state = newPhasedApply();
    const context: PhaseContext = {
      plan,
      before,
      pruned: understood.pruned,
      journal,
      lease: journalled ? (claimed, phase) => lease(claimed, `${runId}-${phase}`) : undefined,
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
        ...(images && images.length > 0 ? { images } : {}),
        applyMs: state.applyMs,
        totalMs: deps.clock.now() - startedAt,
        kubectlProcesses: deps.kubectl.spawned,
      });
    const { objects, verification } = await afterTheApply(
      context,
      state,
      { runId, namespace: home, target, jobs: verifyJobs, resultOf },
      options,
      deps,
    );
    result = { ...resultOf(objects, verification), ...(recovered.length > 0 ? { recoveredRuns: recovered } : {}) };
    // The journal and the leases end together: neither protects the other. A kept journal is
    // said before the verdict; deleting one (and letting the leases go) happens after it. So is
    // a successful run's history record: said now, written with the cleanup.
    const records = keptInHistory(result, journal, options)
      ? historyRecordsOf(
          result,
          objects,
          journal,
          {
            startedAt: startedAtIso,
            target,
            digest: (await inputsDigest) ?? 'unknown (the inputs could not be read again)',
          },
          options,
        )
      : [];
    if (records.length > 0)
      deps.reporter.emit({
        kind: 'history-kept',
        runId: records[0]!.runId,
        namespaces: records.map((record) => record.namespace),
        keep: options.history,
      });
    ending = journal
      ? Promise.all([
          writeHistory(records, options, deps),
          endJournal(journal, result, deps, options.keepJournal),
        ]).then(() => undefined)
      : undefined;
    deps.announce?.(result);
    return result;
  } finally {
    // However the run ended, letting its leases go must land: a signal no longer stops kubectl.
    stopping.end();
    deps.kubectl.stopCancelling();
    await Promise.all([ending, ...leases.map((held) => held.release()), inputs.cleanup(), plan?.cleanup()]);
    // Every kubectl process of the run is counted, the cleanup's included.
    if (result) result.kubectlProcesses = deps.kubectl.spawned;
  }
}

/**
 * Apply (phase by phase), detect, track, restore. An error here never escapes while the apply may
 * have changed something: the changed objects fail and are restored; if even what changed cannot
 * be read, each object ends "restore failed" with the command that finishes the job, so the run exits 4.
 */
async function afterTheApply(
  context: PhaseContext,
  state: PhasedApply,
  verify: Omit<VerifyContext, 'resultSoFar'> & {
    resultOf(objects: readonly PendingObject[], verification: Verification | undefined): RunResult;
  },
  options: ApplyOptions,
  deps: Deps,
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
    const pending = state.objects;
    if (!state.applyError)
      verification = await verifyAndBake(
        pending,
        { ...verify, resultSoFar: (sofar) => verify.resultOf(pending, sofar) },
        options,
        deps,
      );
  } catch (error) {
    if (error === state.applyError || error === state.refused) throw error;
    deps.reporter.emit({ kind: 'internal-error', message: messageOf(error) });
    failUnjudged(state.objects, { source: 'internal', message: messageOf(error) });
  }
  await state.journalled;
  try {
    await restore(state.objects, options, deps, verificationFailed(verification));
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

/** What a preview shows: the parts kubectl can read now (the others are said, not dry-run). */
function readableRequest(plan: RunPlan) {
  const readable = plan.parts.filter((part) => part.understood);
  return { ...readable[0]!.request, filenames: readable.flatMap((part) => part.request.filenames) };
}

/** Each object's phase position, for the journal: `kguard rollback` undoes later phases first. */
function stagesOf(plan: RunPlan): Map<string, number> {
  return new Map(
    plan.parts.flatMap((part) =>
      part.phase
        ? (part.understood?.refs ?? []).map((ref) => [objectKey(ref), PHASES.indexOf(part.phase!)] as const)
        : [],
    ),
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A signal before the apply: whatever failed on the way (a stopped read), nothing was applied. */
function interruptedBeforeApply(signal: AbortSignal | undefined): (error: unknown) => never {
  return (error) => {
    if (signal?.aborted) throw new InterruptedError(`${cancelReason(signal)} before the apply: nothing was applied.`);
    throw error;
  };
}

/** The run of an apply that changes nothing: every object as it is, nothing applied or watched. */
function unchangedResult(
  refs: readonly ObjectRef[],
  target: RunResult['target'],
  options: ApplyOptions,
  deps: Deps,
  startedAt: number,
): RunResult {
  return withOutcome({
    mode: 'apply',
    target,
    objects: refs.map((ref): ObjectResult => ({ ref, changeKind: 'unchanged', changedFields: [] })),
    applied: [],
    rollbackMode: options.rollback,
    applyMs: 0,
    totalMs: deps.clock.now() - startedAt,
    kubectlProcesses: deps.kubectl.spawned,
  });
}
