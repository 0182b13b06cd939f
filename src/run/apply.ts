// The whole of `kguard apply`, as a list of steps:
// read inputs once → understand (kubectl's reading) → snapshot every object → apply → detect what
// changed → track → restore → result. Once the apply has run, nothing escapes: whatever breaks
// after it is a failure of every changed object, and the restore still runs (or the run ends
// with exit 4 and the commands that finish it).
import { interruptible } from '../clock.js';
import { InterruptedError, KubectlError } from '../errors.js';
import { thisProcess } from '../journal/holder.js';
import { LEASE_DURATION_SECONDS } from '../journal/lease.js';
import { acquireLeases, type HeldLeases } from '../journal/leases.js';
import { deleteExpiredJournals, makeRunId, type RunJournal } from '../journal/store.js';
import { NO_PROGRESS } from '../kinds/engine.js';
import type { ApplyRequest } from '../kubectl/types.js';
import { prepareInputs, withOrigins, type PreparedInputs } from '../manifests/inputs.js';
import type { ApplyOptions } from '../model/options.js';
import type { ObjectResult, RunResult } from '../model/result.js';
import type { Verification } from '../model/verify.js';
import { prepareVerifyJobs } from '../verify/job-manifest.js';
import { isChange } from '../objects/compare.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import { detectChanges, track, type PendingObject } from './changes.js';
import type { Deps } from './deps.js';
import { endJournal, homeNamespace, rollbackCommand, startJournal } from './journal-life.js';
import { checkPermissions } from './permissions.js';
import { preview } from './preview.js';
import { restore } from './restore-step.js';
import { restoreLimits } from './restore-limits.js';
import { verificationFailed, withOutcome } from './result.js';
import { verifyAndBake, type VerifyContext } from './verify-step.js';
import { historyRecordOf, keptInHistory, writeHistory } from './history-step.js';
import { applyRequest, changesNothing, checkRestorable, checkServerDryRun, snapshot, understand } from './understand.js';

export type { Deps };

export async function runApply(options: ApplyOptions, rawDeps: Deps): Promise<RunResult> {
  const deps = { ...rawDeps, clock: interruptible(rawDeps.clock, rawDeps.signal) };
  const startedAt = deps.clock.now();
  const startedAtIso = new Date().toISOString();
  // Before the apply every kubectl call is a read: a signal stops them at once.
  deps.kubectl.cancelReadsOn(deps.signal);
  const inputs = await prepareInputs(options.manifests, deps.inputs).catch(interruptedBeforeApply(deps.signal));
  // The run's target, resolved once and passed on every later call: a context switched while
  // kguard watches cannot send the restore to another cluster.
  const target = await deps.kubectl.pinTarget().catch(async (error: unknown) => {
    await inputs.cleanup();
    return interruptedBeforeApply(deps.signal)(error);
  });
  if (target) deps.reporter.emit({ kind: 'target', ...target });
  let leases: HeldLeases | undefined;
  let ending: Promise<void> | undefined;
  let result: RunResult | undefined;
  try {
    const request = applyRequest(options, inputs);
    const understood = await understand(request, options, inputs, deps).catch(interruptedBeforeApply(deps.signal));
    const refs = [...understood.refs, ...understood.pruned];
    const runId = rawDeps.runId ?? makeRunId();
    const home = homeNamespace(refs, options.namespace);
    // A refused dry run ends the run before kguard writes anything, its own leases included.
    if (!understood.server.ok) {
      await (async () => checkServerDryRun(understood, understood.current, inputs, deps))().catch(interruptedBeforeApply(deps.signal));
    }
    // What a restore could not put back, or would put back another way: said before anything changes.
    for (const limit of restoreLimits(understood)) deps.reporter.emit(limit);
    // The --verify-job files are read and checked now: a Job the API server refuses is refused before the apply.
    const verifyJobs =
      options.verifyJobs.length > 0 && !options.dryRun
        ? await prepareVerifyJobs(options.verifyJobs, { namespace: home, runId, createdNamespaces: createdNamespaces(refs, understood.current), deadlineMs: options.timeoutMs }, deps.kubectl).catch(
            interruptedBeforeApply(deps.signal),
          )
        : [];
    // An apply the API server says changes nothing writes nothing of kguard's either: no lease, no journal.
    const journalled = options.journal && !options.dryRun && !changesNothing(understood);
    // What a restore needs to know of each kind, read now (and kept for the restore): nothing is
    // applied that kguard could not restore.
    // Then whether this user may do what a restore would (one kubectl process; none when nothing changes).
    const restorable =
      options.rollback !== 'none' && !options.dryRun
        ? checkRestorable(refs, deps).then(() => (changesNothing(understood) ? undefined : checkPermissions(understood, options, deps)))
        : undefined;
    restorable?.catch(() => undefined);
    // Old journals go while this run takes its leases and its snapshot: nothing waits for it.
    const tidied = journalled ? deleteExpiredJournals(deps.kubectl, home, options.timeoutMs).catch(() => undefined) : undefined;
    // One run per object at a time: the leases come before the snapshot, so a run never records
    // another run's unverified state as its "before".
    if (journalled) {
      // The waits for other runs end on a signal; the renewals go on (rawDeps.clock) while the run restores.
      leases = await acquireLeases(
        deps.kubectl,
        refs,
        { home, runId, holder: thisProcess(), journalNamespace: home, durationSeconds: LEASE_DURATION_SECONDS, lockTimeoutMs: options.lockTimeoutMs, deadlineMs: options.timeoutMs },
        { clock: rawDeps.clock, reporter: deps.reporter, signal: deps.signal },
      ).catch(interruptedBeforeApply(deps.signal));
    }
    // Under the leases the copies are read again; without leases, the reading of the dry run stands.
    const before = journalled || understood.pruned.length > 0 ? await snapshot(refs, deps).catch(interruptedBeforeApply(deps.signal)) : understood.current;
    if (options.dryRun) {
      result = { ...(await preview(understood, before, request, options, deps, startedAt)), target };
      deps.announce?.(result);
      return result;
    }
    await restorable?.catch(interruptedBeforeApply(deps.signal));
    const [journal] = await Promise.all([journalled ? startJournal(runId, home, refs, before, options, deps) : undefined, tidied]);
    if (deps.signal?.aborted) {
      // kguard's own cleanup is a write: it must land, not be stopped with the reads.
      deps.kubectl.stopCancelling();
      await journal?.finish().catch(() => undefined);
      interruptedBeforeApply(deps.signal)(undefined);
    }
    deps.kubectl.stopCancelling();

    const applyStartedAt = deps.clock.now();
    const { applied, applyError } = await applyManifests(request, inputs, deps);
    const applyMs = deps.clock.now() - applyStartedAt;
    const resultOf = (objects: readonly PendingObject[], verification: Verification | undefined): RunResult =>
      withOutcome({
        mode: 'apply',
        target,
        objects: objects.map(({ change: _change, newPods: _pods, ...object }): ObjectResult => object),
        applied,
        applyError: applyError?.message,
        cancelled: deps.signal?.aborted ? cancelReason(deps.signal) : undefined,
        rollbackMode: options.rollback,
        verification,
        applyMs,
        totalMs: deps.clock.now() - startedAt,
        kubectlProcesses: deps.kubectl.spawned,
      });
    const { objects, verification } = await afterTheApply(refs, before, applyError, journal, { runId, namespace: home, target, jobs: verifyJobs, resultOf }, options, deps);
    result = resultOf(objects, verification);
    // The journal and the leases end together: neither protects the other. A kept journal is
    // said before the verdict; deleting one (and letting the leases go) happens after it. So is
    // a successful run's history record: said now, written with the cleanup.
    const record = keptInHistory(result, journal, options) ? historyRecordOf(result, objects, journal, { startedAt: startedAtIso, target, digest: understood.digest }, options) : undefined;
    if (record) deps.reporter.emit({ kind: 'history-kept', runId: record.runId, namespace: record.namespace, keep: options.history });
    ending = journal ? Promise.all([record && writeHistory(record, options, deps), endJournal(journal, result, deps)]).then(() => undefined) : undefined;
    deps.announce?.(result);
    return result;
  } finally {
    // However the run ended, letting its leases go must land: a signal no longer stops kubectl.
    deps.kubectl.stopCancelling();
    await Promise.all([ending, leases?.release(), inputs.cleanup()]);
    // Every kubectl process of the run is counted, the cleanup's included.
    if (result) result.kubectlProcesses = deps.kubectl.spawned;
  }
}

/**
 * Detect, track, restore. An error here never escapes while the apply may have changed something:
 * the changed objects fail and are restored; if even what changed cannot be read, each object
 * ends "restore failed" with the command that finishes the job, so the run exits 4.
 */
async function afterTheApply(
  refs: readonly ObjectRef[],
  before: Map<string, KubeObject>,
  applyError: KubectlError | undefined,
  journal: RunJournal | undefined,
  context: Omit<VerifyContext, 'resultSoFar'> & { resultOf(objects: readonly PendingObject[], verification: Verification | undefined): RunResult },
  options: ApplyOptions,
  deps: Deps,
): Promise<{ objects: PendingObject[]; verification?: Verification }> {
  let objects: PendingObject[] | undefined;
  let verification: Verification | undefined;
  let journalled: Promise<unknown> | undefined;
  try {
    const after = await snapshot(refs, deps).catch(async () => snapshot(refs, deps));
    objects = detectChanges(refs, before, after, deps);
    if (applyError && !objects.some(isChange)) {
      await journal?.finish().catch(() => undefined);
      throw applyError;
    }
    // The journal learns the applied copies while the tracking starts; the restore waits for it.
    journalled = journal
      ?.update({ state: 'applied', objects: refs.map((ref) => ({ ref, before: before.get(objectKey(ref)) ?? null, applied: after.get(objectKey(ref)) ?? null })) })
      .catch((error: unknown) => deps.reporter.emit({ kind: 'journal-warning', message: messageOf(error) }));
    if (!applyError && !deps.signal?.aborted) await track(objects, options, deps);
    else if (applyError) failUnjudged(objects, { source: 'apply', message: applyError.message });
    // Healthy is not yet working: the checks and the bake, when asked for.
    const pending = objects;
    if (!applyError) verification = await verifyAndBake(pending, { ...context, resultSoFar: (sofar) => context.resultOf(pending, sofar) }, options, deps);
  } catch (error) {
    if (error === applyError) throw error;
    deps.reporter.emit({ kind: 'internal-error', message: messageOf(error) });
    if (!objects) return { objects: unreadable(refs, before, error, journal, deps) };
    failUnjudged(objects, { source: 'internal', message: messageOf(error) });
  }
  await journalled;
  try {
    await restore(objects, options, deps, verificationFailed(verification));
  } catch (error) {
    deps.reporter.emit({ kind: 'internal-error', message: messageOf(error) });
    for (const object of objects.filter(isChange)) {
      object.restore ??= { status: 'failed', reason: `kguard failed while restoring it: ${messageOf(error)}`, commands: finishCommands(journal, deps) };
    }
  }
  return { objects, verification };
}

/** Namespaces the apply creates: a verify Job's dry run cannot be asked in them yet. */
function createdNamespaces(refs: readonly ObjectRef[], current: ReadonlyMap<string, KubeObject>): Set<string> {
  return new Set(refs.filter((ref) => ref.kind === 'Namespace' && ref.apiVersion === 'v1' && !current.has(objectKey(ref))).map((ref) => ref.name));
}

/** Every changed object without a final verdict fails with `cause`: it is restored with the others. */
function failUnjudged(objects: PendingObject[], cause: { source: 'apply' | 'internal'; message: string }): void {
  for (const object of objects.filter(isChange)) {
    const state = object.verdict?.state;
    if (state === 'failed' || state === 'timed-out' || state === 'conflict' || state === 'gone') continue;
    object.verdict = { state: 'failed', progress: NO_PROGRESS, findings: [], cause };
  }
}

/** What the apply changed could not be read: every object may have changed, and a person finishes it. */
function unreadable(refs: readonly ObjectRef[], before: Map<string, KubeObject>, error: unknown, journal: RunJournal | undefined, deps: Deps): PendingObject[] {
  const reason = `kguard could not read it after the apply (${messageOf(error)}), so it may or may not have changed`;
  return refs.map((ref): PendingObject => {
    const copy = before.get(objectKey(ref));
    return {
      ref,
      change: copy ? { change: 'configured', before: copy, after: copy, paths: [] } : { change: 'absent' },
      changeKind: copy ? 'configured' : 'created',
      changedFields: [],
      restore: { status: 'failed', reason, commands: finishCommands(journal, deps) },
    };
  });
}

/** The command that finishes a run by hand: its journal holds every pre-apply copy. */
function finishCommands(journal: RunJournal | undefined, deps: Deps): string[] {
  if (!journal) return [];
  return [rollbackCommand(journal.runId, deps.kubectl)];
}

async function applyManifests(request: ApplyRequest, inputs: PreparedInputs, deps: Pick<Deps, 'kubectl' | 'reporter'>) {
  try {
    const applied = await deps.kubectl.apply(request);
    deps.reporter.emit({ kind: 'applied', objects: applied, dryRun: false });
    return { applied, applyError: undefined };
  } catch (caught) {
    // Whatever went wrong, kubectl may have written some objects: what changed is read next.
    const error = caught instanceof KubectlError ? caught : new KubectlError(`kguard failed while kubectl applied: ${messageOf(caught)}`);
    const applyError = new KubectlError(withOrigins(error.message, inputs.origins), error.command, error.stderr, error.applied);
    deps.reporter.emit({ kind: 'apply-failed', message: applyError.message, applied: [...error.applied] });
    return { applied: [...error.applied], applyError };
  }
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

export function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}
