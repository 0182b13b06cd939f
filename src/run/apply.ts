// The whole of `kguard apply`, as a list of steps:
// read inputs once → understand (kubectl's reading) → snapshot every object → apply → detect what
// changed → track → restore → result.
import type { Diagnosis } from '../classify/diagnosis.js';
import type { Clock } from '../clock.js';
import { InputError, KubectlError } from '../errors.js';
import type { ApplyRequest, Kubectl } from '../kubectl/client.js';
import { diagnoseKubectlFailure } from '../kubectl/diagnose.js';
import { prepareInputs, withOrigins, type InputDeps, type ManifestInput, type PreparedInputs } from '../manifests/inputs.js';
import { judgeServerDryRun, objectsOfApply } from '../manifests/understand.js';
import { changeOf, type ObjectChange } from '../objects/compare.js';
import { kubectlName, namespaceArgs, objectKey, refOf, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import { planRestore, type RollbackMode, type VerdictState } from '../rollback/plan.js';
import { executeRestore, type RestoreDeps } from '../rollback/restore.js';
import type { Reporter } from '../report/events.js';
import { trackWorkloads, type TrackedOutcome } from '../track/workloads.js';
import type { ObjectResult, RunResult } from './result.js';

export interface ApplyOptions {
  manifests: ManifestInput;
  namespace?: string;
  /** kubectl apply flags: --server-side, --field-manager and whatever came after `--`. */
  applyArgs: readonly string[];
  /** The subset of applyArgs that selects objects (-l): kubectl's reading must see it too. */
  selectionArgs: readonly string[];
  /** A preview: nothing changes. */
  dryRun?: 'client' | 'server';
  timeoutMs: number;
  rollbackTimeoutMs: number;
  pollIntervalMs: number;
  /** How long a rollout must stay healthy before kguard calls it healthy. */
  settleMs: number;
  rollback: RollbackMode;
  /** Keep objects this run created when restoring (they are reported with their delete command). */
  keepCreated: boolean;
  /** How many of a failing container's last lines the text output shows (default 5; 0 reads no logs). */
  logLines?: number;
}

export interface Deps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  inputs: InputDeps;
  keepCopy: RestoreDeps['keepCopy'];
}

export async function runApply(options: ApplyOptions, deps: Deps): Promise<RunResult> {
  const startedAt = deps.clock.now();
  const inputs = await prepareInputs(options.manifests, deps.inputs);
  try {
    const request = applyRequest(options, inputs);
    const understood = await understand(request, options, inputs, deps);
    const before = await snapshot(understood.refs, deps);
    checkServerDryRun(understood, before, inputs, deps);
    if (options.dryRun) return preview(understood, before, options, deps, startedAt);

    const applyStartedAt = deps.clock.now();
    const { applied, applyError } = await applyManifests(request, inputs, deps);
    const applyMs = deps.clock.now() - applyStartedAt;
    const after = await snapshot(understood.refs, deps);
    const objects = detectChanges(understood.refs, before, after, deps);
    if (applyError && !objects.some(isChanged)) throw applyError;
    if (!applyError) await track(objects, options, deps);
    else for (const object of objects.filter(isChanged)) object.verdict = { state: 'failed', detail: 'the apply failed part-way' };
    await restore(objects, options, deps);
    return {
      mode: 'apply',
      objects: objects.map(({ change: _change, ...object }) => object),
      applied,
      applyError: applyError?.message,
      rollbackMode: options.rollback,
      applyMs,
      totalMs: deps.clock.now() - startedAt,
      kubectlProcesses: deps.kubectl.spawned,
    };
  } finally {
    await inputs.cleanup();
  }
}

interface Understood {
  refs: ObjectRef[];
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
  const identityRequest = { ...request, applyArgs: options.selectionArgs };
  const [client, server] = await Promise.all([deps.kubectl.dryRun(identityRequest, 'client'), deps.kubectl.dryRun(request, 'server')]);
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
  return { refs, server };
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
    throw new InputError(`the API server refused the manifests in a dry run: ${quoted}. Fix the manifests; nothing was applied.`);
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
    },
    deps,
  );
  for (const object of objects) recordOutcome(object, outcomes.get(objectKey(object.ref)));
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
    { keepCreated: options.keepCreated },
  );
  if (steps.length === 0) return;
  const results = await executeRestore(steps, { deadlineMs: options.rollbackTimeoutMs }, deps);
  for (const object of objects) object.restore = results.get(objectKey(object.ref));
  // Restored workloads are tracked until healthy again: the restore is done when they are.
  const restored = objects.filter((object) => object.restore?.status === 'restored' || object.restore?.status === 'recreated');
  const outcomes = await trackWorkloads(
    restored.flatMap((object) =>
      object.restore && 'restored' in object.restore && object.restore.restored
        ? [{ ref: object.ref, applied: object.restore.restored, before: undefined }]
        : [],
    ),
    { timeoutMs: options.rollbackTimeoutMs, pollIntervalMs: options.pollIntervalMs, phase: 'rollback', stopWhenAnyFails: false, settleMs: 0 },
    deps,
  );
  for (const object of restored) {
    const outcome = outcomes.get(objectKey(object.ref));
    if (!outcome?.tracked) continue;
    object.afterRestore = { state: outcome.verdict.state, summary: outcome.diagnosis?.summary, elapsedMs: outcome.elapsedMs };
    if (outcome.verdict.state === 'healthy' && outcome.verdict.progress) {
      deps.reporter.emit({ kind: 'rolled-back', workload: object.ref, progress: outcome.verdict.progress, elapsedMs: outcome.elapsedMs });
    } else {
      const why = outcome.diagnosis?.summary ?? outcome.verdict.detail ?? outcome.verdict.waitingFor ?? `it ended ${outcome.verdict.state}`;
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

/** --dry-run: what the apply would create, change or leave alone, from the server's own answer. */
function preview(
  understood: Understood,
  before: Map<string, KubeObject>,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>,
  startedAt: number,
): RunResult {
  const wouldBe = new Map<string, KubeObject>();
  if (understood.server.ok) for (const object of understood.server.objects) wouldBe.set(objectKey(refOf(object)), object);
  const objects: ObjectResult[] = understood.refs.map((ref) => {
    const key = objectKey(ref);
    const wouldBeObject = wouldBe.get(key);
    // An object missing from the server's answer had its dry run waived (its namespace is new).
    if (!wouldBeObject) return { ref, changeKind: before.has(key) ? 'unchanged' : 'created', changedFields: [] };
    const change = changeOf(before.get(key), wouldBeObject);
    return { ref, changeKind: change.change, changedFields: change.change === 'configured' ? change.paths : [] };
  });
  const pruned = understood.server.ok ? understood.server.pruned.map(refOf) : [];
  for (const ref of pruned) objects.push({ ref, changeKind: 'deleted', changedFields: [] });
  deps.reporter.emit({
    kind: 'preview',
    strategy: options.dryRun ?? 'server',
    objects: objects.map(({ ref, changeKind, changedFields }) => ({ ref, change: changeKind, changedFields })),
  });
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

function applyRequest(options: ApplyOptions, inputs: PreparedInputs): ApplyRequest {
  return {
    filenames: inputs.filenames,
    recursive: inputs.recursive,
    namespace: options.namespace,
    applyArgs: options.applyArgs,
    deadlineMs: options.timeoutMs,
  };
}
