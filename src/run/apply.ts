// The whole of `kguard apply`, as a list of steps:
// read inputs once → understand (kubectl's reading) → snapshot every object → apply → detect what
// changed → track → restore → result.
import type { Diagnosis } from '../model/findings.js';
import { interruptible, type Clock } from '../clock.js';
import { InputError, InterruptedError, KubectlError } from '../errors.js';
import type { AppliedObject } from '../model/result.js';
import type { ApplyRequest, Kubectl } from '../kubectl/client.js';
import { diagnoseKubectlFailure } from '../kubectl/diagnose.js';
import { prepareInputs, withOrigins, type InputDeps, type PreparedInputs } from '../manifests/inputs.js';
import type { ManifestInput } from '../model/options.js';
import { judgeServerDryRun, objectsOfApply } from '../manifests/understand.js';
import { changeOf } from '../objects/compare.js';
import type { ObjectChange } from '../model/result.js';
import { kubectlName, namespaceArgs, objectKey, refOf, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import { planRestore } from '../rollback/plan.js';
import type { RollbackMode } from '../model/result.js';
import type { VerdictState } from '../model/verdict.js';
import { executeRestore, type RestoreDeps } from '../rollback/restore.js';
import type { Reporter } from '../model/events.js';
import { trackWorkloads, type TrackedOutcome } from '../track/workloads.js';
import { NO_PROGRESS, verdictText } from '../kinds/engine.js';
import { acquireLeases, deleteExpiredJournals, journalExpiry, makeRunId, RunJournal, type HeldLeases } from '../journal/store.js';
import { outcomeOf } from './result.js';
import type { ObjectResult, RunResult } from '../model/result.js';
import type { ApplyOptions } from '../model/options.js';

export interface Deps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  /** Aborted by SIGINT/SIGTERM: before the apply nothing is changed; after it, everything it changed is restored. */
  signal?: AbortSignal;
  inputs: InputDeps;
  keepCopy: RestoreDeps['keepCopy'];
}

export async function runApply(options: ApplyOptions, rawDeps: Deps): Promise<RunResult> {
  const deps = { ...rawDeps, clock: interruptible(rawDeps.clock, rawDeps.signal) };
  const startedAt = deps.clock.now();
  // Before the apply every kubectl call is a read: a signal stops them at once.
  deps.kubectl.cancelReadsOn(deps.signal);
  const inputs = await prepareInputs(options.manifests, deps.inputs).catch(interruptedBeforeApply(deps.signal));
  let leases: HeldLeases | undefined;
  let ending: Promise<void> | undefined;
  try {
    const request = applyRequest(options, inputs);
    const understood = await understand(request, options, inputs, deps).catch(interruptedBeforeApply(deps.signal));
    const refs = [...understood.refs, ...understood.pruned];
    const runId = makeRunId();
    const home = homeNamespace(refs, options.namespace);
    // A refused dry run ends the run before kguard writes anything, its own leases included.
    if (!understood.server.ok) {
      await (async () => checkServerDryRun(understood, await snapshot(refs, deps), inputs, deps))().catch(interruptedBeforeApply(deps.signal));
    }
    // Old journals go while this run takes its leases and its snapshot: nothing waits for it.
    const tidied = options.journal && !options.dryRun ? deleteExpiredJournals(deps.kubectl, home, options.timeoutMs).catch(() => undefined) : undefined;
    // One run per object at a time: the leases come before the snapshot, so a run never records
    // another run's unverified state as its "before".
    if (options.journal && !options.dryRun) {
      leases = await acquireLeases(
        deps.kubectl,
        refs,
        { home, runId, durationSeconds: leaseSeconds(options), lockTimeoutMs: options.lockTimeoutMs, deadlineMs: options.timeoutMs },
        deps,
      ).catch(interruptedBeforeApply(deps.signal));
    }
    const before = await snapshot(refs, deps).catch(interruptedBeforeApply(deps.signal));
    if (options.dryRun) return await preview(understood, before, request, options, deps, startedAt);
    const [journal] = await Promise.all([options.journal ? startJournal(runId, home, refs, before, options, deps) : undefined, tidied]);
    if (deps.signal?.aborted) {
      await journal?.finish().catch(() => undefined);
      interruptedBeforeApply(deps.signal)(undefined);
    }
    deps.kubectl.stopCancelling();

    const applyStartedAt = deps.clock.now();
    const { applied, applyError } = await applyManifests(request, inputs, deps);
    const applyMs = deps.clock.now() - applyStartedAt;
    const after = await snapshot(refs, deps);
    const objects = detectChanges(refs, before, after, deps);
    if (applyError && !objects.some(isChanged)) {
      await journal?.finish().catch(() => undefined);
      throw applyError;
    }
    // The journal learns the applied copies while the tracking starts; the restore waits for it.
    const journalled = journal
      ?.update({ state: 'applied', objects: refs.map((ref) => ({ ref, before: before.get(objectKey(ref)) ?? null, applied: after.get(objectKey(ref)) ?? null })) })
      .catch((error: unknown) => deps.reporter.emit({ kind: 'journal-warning', message: error instanceof Error ? error.message : String(error) }));
    if (!applyError && !deps.signal?.aborted) await track(objects, options, deps);
    else if (applyError) for (const object of objects.filter(isChanged)) object.verdict = { state: 'failed', progress: NO_PROGRESS, findings: [], cause: { source: 'apply', message: applyError.message } };
    await journalled;
    await restore(objects, options, deps);
    const result: RunResult = {
      mode: 'apply',
      objects: objects.map(({ change: _change, ...object }) => object),
      applied,
      applyError: applyError?.message,
      cancelled: deps.signal?.aborted ? cancelReason(deps.signal) : undefined,
      rollbackMode: options.rollback,
      applyMs,
      totalMs: deps.clock.now() - startedAt,
      kubectlProcesses: deps.kubectl.spawned,
    };
    // The journal and the leases end together: neither protects the other.
    ending = journal ? endJournal(journal, result, deps) : undefined;
    return result;
  } finally {
    await Promise.all([ending, leases?.release(), inputs.cleanup()]);
  }
}

/** Where the journal lives: the namespace of the apply's first namespaced object. */
function homeNamespace(refs: readonly ObjectRef[], namespace: string | undefined): string {
  return refs.find((ref) => ref.namespace !== '')?.namespace ?? namespace ?? 'default';
}

/** A lease lasts as long as the run may: apply and watch, restore, and a margin. */
function leaseSeconds(options: ApplyOptions): number {
  return Math.ceil((options.timeoutMs + options.rollbackTimeoutMs) / 1000) + 120;
}

async function startJournal(
  runId: string,
  home: string,
  refs: readonly ObjectRef[],
  before: Map<string, KubeObject>,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
): Promise<RunJournal> {
  const now = new Date();
  const journal = await RunJournal.start(
    deps.kubectl,
    {
      runId,
      namespace: home,
      startedAt: now.toISOString(),
      expiresAt: journalExpiry(now),
      state: 'applying',
      command: options.commandLine ?? 'kguard apply',
      objects: refs.map((ref) => ({ ref, before: before.get(objectKey(ref)) ?? null })),
    },
    options.timeoutMs,
  );
  deps.reporter.emit({ kind: 'journal', runId, namespace: journal.namespace });
  return journal;
}

/**
 * A run that needs no person is over: its journal goes. One that does keeps its journal, and
 * says how `kguard rollback` finishes it.
 */
async function endJournal(journal: RunJournal, result: RunResult, deps: Pick<Deps, 'kubectl' | 'reporter'>): Promise<void> {
  if (outcomeOf(result) !== 'needs-attention') {
    await journal.finish().catch((error: unknown) => deps.reporter.emit({ kind: 'journal-warning', message: error instanceof Error ? error.message : String(error) }));
    return;
  }
  const command = ['kguard', 'rollback', journal.runId, ...deps.kubectl.commandLine([]).split(' ').slice(1)].filter(Boolean).join(' ');
  deps.reporter.emit({ kind: 'journal-kept', runId: journal.runId, namespace: journal.namespace, command });
}

interface Understood {
  refs: ObjectRef[];
  /** Objects --prune would delete (they are snapshotted, and created again by a restore). */
  pruned: ObjectRef[];
  /** The server's answer to the dry run: objects as it would store them, or its refusal. */
  server: Awaited<ReturnType<Kubectl['dryRun']>>;
}

/**
 * kubectl is the parser: a client dry run names every object with its namespace resolved (it
 * needs no namespace to exist), a server dry run over the same inputs says whether the API
 * server would take them. Both at once.
 */
async function understand(
  request: ApplyRequest,
  options: ApplyOptions,
  inputs: PreparedInputs,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
): Promise<Understood> {
  // The client run is only for identities: flags of the server-side apply would be refused by a
  // client dry run (--server-side with --dry-run=client), and only -l changes the selection.
  // A client-side preview (--dry-run=client) asks the API server nothing, as kubectl does: the
  // client run over the whole request is both the reading and the answer. Otherwise validation is
  // the server dry run's job; without it in the client run, an unknown kind fails on kubectl's own
  // mapping error (`no matches for kind`), which names the kind, instead of on a schema lookup.
  const clientOnly = options.dryRun === 'client';
  const identityRequest = clientOnly ? request : { ...request, applyArgs: [...options.selectionArgs, '--validate=false'] };
  const [client, server] = await Promise.all([
    deps.kubectl.dryRun(identityRequest, 'client'),
    clientOnly ? undefined : deps.kubectl.dryRun(request, 'server'),
  ]);
  if (!client.ok) {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: client.stderr, timedOut: client.timedOut });
    const message = `kubectl cannot read the manifests: ${withOrigins(failure.detail, inputs.origins)}. Next: ${failure.nextStep}; nothing was applied.`;
    if (failure.kind === 'unreachable' || failure.kind === 'forbidden' || failure.kind === 'unauthorized' || client.timedOut) {
      throw new KubectlError(message, undefined, client.stderr);
    }
    throw new InputError(message);
  }
  const refs = objectsOfApply(client.objects);
  if (refs.length === 0) {
    throw new InputError('the manifests hold no Kubernetes objects (kubectl found none to apply). Check the -f/-k arguments; nothing was applied.');
  }
  deps.reporter.emit({ kind: 'understood', objects: refs });
  // What --prune would delete, in the server's answer (kubectl prints one document per pruned object).
  const answer = server ?? client;
  const applied = new Set(refs.map(objectKey));
  const pruned = answer.ok ? objectsOfApply(answer.pruned).filter((ref) => !applied.has(objectKey(ref))) : [];
  return { refs, pruned, server: answer };
}

/** Full copies of every object, one kubectl call per namespace, all namespaces at once. */
async function snapshot(refs: readonly ObjectRef[], deps: Pick<Deps, 'kubectl'>): Promise<Map<string, KubeObject>> {
  const typesByNamespace = new Map<string, Set<string>>();
  for (const ref of refs) {
    const types = typesByNamespace.get(ref.namespace) ?? new Set<string>();
    types.add(typeArg(ref));
    typesByNamespace.set(ref.namespace, types);
  }
  const wanted = new Set(refs.map(objectKey));
  const lists = await Promise.all(
    [...typesByNamespace].map(([namespace, types]) => deps.kubectl.listObjects(namespace, [...types])),
  );
  const copies = new Map<string, KubeObject>();
  for (const object of lists.flat()) {
    const key = objectKey(refOf(object));
    if (wanted.has(key)) copies.set(key, object);
  }
  return copies;
}

function checkServerDryRun(understood: Understood, before: Map<string, KubeObject>, inputs: PreparedInputs, deps: Pick<Deps, 'reporter'>) {
  if (understood.server.ok) return;
  const createdNamespaces = new Set(
    understood.refs.filter((ref) => ref.kind === 'Namespace' && ref.apiVersion === 'v1' && !before.has(objectKey(ref))).map((ref) => ref.name),
  );
  const judgement = judgeServerDryRun(understood.server.stderr, understood.refs, createdNamespaces);
  if (judgement.accepted) {
    for (const { namespace, objects } of judgement.waived) deps.reporter.emit({ kind: 'dry-run-waived', namespace, objects });
    return;
  }
  const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: judgement.errors.join('\n'), timedOut: understood.server.timedOut });
  const quoted = withOrigins(judgement.errors.join('; '), inputs.origins);
  if (failure.kind === 'invalid' || failure.kind === 'not-found' || failure.kind === 'other') {
    throw new InputError(`the API server refused the manifests in a dry run: ${quoted}. Next: ${failure.nextStep}; nothing was applied.`);
  }
  throw new KubectlError(`kubectl could not check the manifests with the API server (dry run): ${quoted}. Next: ${failure.nextStep}; nothing was applied.`, undefined, understood.server.stderr);
}

async function applyManifests(request: ApplyRequest, inputs: PreparedInputs, deps: Pick<Deps, 'kubectl' | 'reporter'>) {
  try {
    const applied = await deps.kubectl.apply(request);
    deps.reporter.emit({ kind: 'applied', objects: applied, dryRun: false });
    return { applied, applyError: undefined };
  } catch (error) {
    if (!(error instanceof KubectlError)) throw error;
    const applyError = new KubectlError(withOrigins(error.message, inputs.origins), error.command, error.stderr, error.applied);
    deps.reporter.emit({ kind: 'apply-failed', message: applyError.message, applied: [...error.applied] });
    return { applied: [...error.applied], applyError };
  }
}

type PendingObject = ObjectResult & { change: ObjectChange };

function detectChanges(
  refs: readonly ObjectRef[],
  before: Map<string, KubeObject>,
  after: Map<string, KubeObject>,
  deps: Pick<Deps, 'reporter'>,
): PendingObject[] {
  const objects = refs.map((ref): PendingObject => {
    const key = objectKey(ref);
    const change = changeOf(before.get(key), after.get(key));
    return { ref, change, changeKind: change.change, changedFields: change.change === 'configured' ? change.paths : [] };
  });
  deps.reporter.emit({
    kind: 'changes',
    objects: objects.map(({ ref, changeKind, changedFields }) => ({ ref, change: changeKind, changedFields })),
  });
  return objects;
}

function isChanged(object: { changeKind: ObjectChange['change'] }): boolean {
  return object.changeKind !== 'unchanged' && object.changeKind !== 'absent';
}

/** Tracks every changed object that has something to judge; records each one's verdict. */
async function track(objects: PendingObject[], options: ApplyOptions, deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>) {
  const changed = objects.filter((object) => isChanged(object) && 'after' in object.change);
  const outcomes = await trackWorkloads(
    changed.map((object) => ({ ref: object.ref, applied: (object.change as { after: KubeObject }).after, before: beforeOf(object.change) })),
    {
      timeoutMs: options.timeoutMs,
      pollIntervalMs: options.pollIntervalMs,
      phase: 'rollout',
      stopWhenAnyFails: options.rollback === 'all',
      settleMs: options.settleMs,
      logLines: options.logLines,
      watch: !options.poll,
    },
    deps,
  );
  for (const object of objects) {
    const outcome = outcomes.get(objectKey(object.ref));
    recordOutcome(object, outcome);
    if (outcome?.tracked) reportVerdict(object, outcome, deps);
  }
}

/** The one line that says where a tracked workload's rollout ended. */
function reportVerdict(object: PendingObject, outcome: TrackedOutcome, deps: Pick<Deps, 'reporter'>) {
  const { verdict, diagnosis, elapsedMs } = outcome;
  const workload = object.ref;
  switch (verdict.state) {
    case 'healthy':
      if (verdict.progress) deps.reporter.emit({ kind: 'healthy', workload, progress: verdict.progress, elapsedMs });
      return;
    case 'failed':
    case 'timed-out':
      // The tracker says it, with the logs it read, when it reaches the verdict (track/tracker.ts).
      return;
    case 'conflict':
    case 'gone':
      // The restore step names what to do by hand; this line says what happened.
      deps.reporter.emit({ kind: verdict.state, workload, detail: verdict.detail ?? '', commands: [] });
      return;
    case 'progressing':
      if (verdict.progress) {
        deps.reporter.emit({ kind: 'interrupted', workload, progress: verdict.progress, waitingFor: verdict.waitingFor ?? '' });
      }
      return;
  }
}

function beforeOf(change: ObjectChange): KubeObject | undefined {
  return 'before' in change ? change.before : undefined;
}

function recordOutcome(object: PendingObject, outcome: TrackedOutcome | undefined) {
  if (!outcome) return;
  object.verdict = outcome.verdict;
  object.diagnosis = outcome.diagnosis as Diagnosis | undefined;
  object.verdictAfterMs = outcome.elapsedMs;
  object.tracked = outcome.tracked;
}

async function restore(objects: PendingObject[], options: ApplyOptions, deps: Deps) {
  const steps = planRestore(
    objects.map((object) => ({ ref: object.ref, change: object.change, verdict: object.verdict?.state as VerdictState | undefined })),
    options.rollback,
    { keepCreated: options.keepCreated, cancelled: deps.signal?.aborted },
  );
  if (steps.length === 0) return;
  const results = await executeRestore(steps, { deadlineMs: options.rollbackTimeoutMs }, deps);
  for (const object of objects) object.restore = results.get(objectKey(object.ref));
  // Cancelled: the writes are what counts before the CI runner's SIGKILL; health is not waited for.
  if (deps.signal?.aborted) return;
  // Restored workloads are tracked until healthy again: the restore is done when they are.
  const restored = objects.filter((object) => object.restore?.status === 'restored' || object.restore?.status === 'recreated');
  const outcomes = await trackWorkloads(
    restored.flatMap((object) =>
      object.restore && 'restored' in object.restore && object.restore.restored
        ? [{ ref: object.ref, applied: object.restore.restored, before: undefined }]
        : [],
    ),
    { timeoutMs: options.rollbackTimeoutMs, pollIntervalMs: options.pollIntervalMs, phase: 'rollback', stopWhenAnyFails: false, settleMs: 0, watch: !options.poll, logLines: options.logLines },
    deps,
  );
  for (const object of restored) {
    const outcome = outcomes.get(objectKey(object.ref));
    if (!outcome?.tracked) continue;
    object.afterRestore = { state: outcome.verdict.state, summary: outcome.diagnosis?.summary, elapsedMs: outcome.elapsedMs };
    if (outcome.verdict.state === 'healthy' && outcome.verdict.progress) {
      deps.reporter.emit({ kind: 'rolled-back', workload: object.ref, progress: outcome.verdict.progress, elapsedMs: outcome.elapsedMs });
    } else {
      const why = outcome.diagnosis?.summary ?? verdictText(outcome.verdict) ?? `it ended ${outcome.verdict.state}`;
      deps.reporter.emit({
        kind: 'rollback-unhealthy',
        workload: object.ref,
        reason: why,
        commands: [
          deps.kubectl.commandLine(['rollout', 'status', kubectlName(object.ref), ...namespaceArgs(object.ref)]),
          deps.kubectl.commandLine(['describe', kubectlName(object.ref), ...namespaceArgs(object.ref)]),
        ],
      });
    }
  }
}

/**
 * --dry-run: what the apply would create, change or leave alone. Server strategy: from the
 * server's answer, field by field. Client strategy: kubectl's own verdict per object (its JSON
 * shows the live object, not the patched one), without fields.
 */
async function preview(
  understood: Understood,
  before: Map<string, KubeObject>,
  request: ApplyRequest,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>,
  startedAt: number,
): Promise<RunResult> {
  const wouldBe = new Map<string, KubeObject>();
  if (understood.server.ok) for (const object of understood.server.objects) wouldBe.set(objectKey(refOf(object)), object);
  const actions = options.dryRun === 'client' ? clientActions(understood.refs, await deps.kubectl.dryRunActions(request)) : undefined;
  const objects: ObjectResult[] = understood.refs.map((ref) => {
    const key = objectKey(ref);
    const action = actions?.get(key);
    if (action) return { ref, changeKind: action === 'configured' ? 'configured' : action === 'created' ? 'created' : 'unchanged', changedFields: [] };
    const wouldBeObject = wouldBe.get(key);
    // An object missing from the server's answer had its dry run waived (its namespace is new).
    if (!wouldBeObject) return { ref, changeKind: before.has(key) ? 'unchanged' : 'created', changedFields: [] };
    const change = changeOf(before.get(key), wouldBeObject);
    return { ref, changeKind: change.change, changedFields: change.change === 'configured' ? change.paths : [] };
  });
  const pruned = understood.pruned;
  for (const ref of pruned) objects.push({ ref, changeKind: 'deleted', changedFields: [] });
  deps.reporter.emit({
    kind: 'preview',
    strategy: options.dryRun ?? 'server',
    objects: objects.map(({ ref, changeKind, changedFields }) => ({ ref, change: changeKind, changedFields })),
  });
  if (options.diff) {
    const diffs = await deps.kubectl.diff(request, understood.refs);
    for (const object of objects) {
      const lines = diffs.get(objectKey(object.ref));
      if (lines && (object.changeKind === 'created' || object.changeKind === 'configured')) deps.reporter.emit({ kind: 'diff', object: object.ref, lines });
    }
  }
  return {
    mode: 'preview',
    objects,
    applied: [],
    rollbackMode: options.rollback,
    applyMs: 0,
    totalMs: deps.clock.now() - startedAt,
    kubectlProcesses: deps.kubectl.spawned,
  };
}

/** kubectl prints one line per object in the order of its -o json output: pair them by name. */
function clientActions(refs: readonly ObjectRef[], lines: readonly AppliedObject[]): Map<string, AppliedObject['action']> {
  const actions = new Map<string, AppliedObject['action']>();
  let next = 0;
  for (const ref of refs) {
    const index = lines.findIndex((line, position) => position >= next && line.name === ref.name);
    if (index === -1) continue;
    actions.set(objectKey(ref), lines[index]!.action);
    next = index + 1;
  }
  return actions;
}

/** A signal before the apply: whatever failed on the way (a stopped read), nothing was applied. */
function interruptedBeforeApply(signal: AbortSignal | undefined): (error: unknown) => never {
  return (error) => {
    if (signal?.aborted) throw new InterruptedError(`${cancelReason(signal)} before the apply: nothing was applied.`);
    throw error;
  };
}

function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

function applyRequest(options: ApplyOptions, inputs: PreparedInputs): ApplyRequest {
  return {
    filenames: inputs.filenames,
    recursive: inputs.recursive,
    namespace: options.namespace,
    applyArgs: options.applyArgs,
    deadlineMs: options.timeoutMs,
  };
}
