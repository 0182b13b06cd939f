// The whole of `kguard apply`, as a list of steps:
// read manifests → snapshot before → preflight → apply → detect changes → track → roll back → result.
import type { Clock } from '../clock.js';
import { InputError, KubectlError } from '../errors.js';
import type { Kubectl, WorkloadSnapshot } from '../kubectl/client.js';
import { loadManifests, type LoadDeps, type ManifestInput } from '../manifests/load.js';
import {
  describeWorkload,
  namespaceConflicts,
  parseManifests,
  workloadKey,
  workloadsIn,
  type ManifestObject,
  type WorkloadRef,
} from '../manifests/parse.js';
import { executeRollback } from '../rollback/execute.js';
import { manualCommands, planRollback, type RollbackMode, type RollbackStep } from '../rollback/plan.js';
import type { Reporter } from '../report/events.js';
import { detectChange, recordBefore, type Before } from '../track/change.js';
import { trackRollouts } from '../track/tracker.js';
import { expectationOf, type Expectation } from '../track/verdict.js';
import type { RunResult, WorkloadResult } from './result.js';

export interface ApplyOptions {
  manifests: ManifestInput;
  namespace?: string;
  serverSide: boolean;
  fieldManager?: string;
  passThrough: readonly string[];
  timeoutMs: number;
  rollbackTimeoutMs: number;
  pollIntervalMs: number;
  /** How long a rollout must stay healthy before kguard calls it healthy. */
  settleMs: number;
  rollback: RollbackMode;
}

export interface Deps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  load: LoadDeps;
}

export async function runApply(options: ApplyOptions, deps: Deps): Promise<RunResult> {
  const startedAt = deps.clock.now();
  const { objects, stdin, workloads } = await readManifests(options, deps);
  const before = await snapshotBefore(workloads, deps);
  await preflight(options, stdin, objects, deps);
  const { applied, applyMs } = await applyManifests(options, stdin, workloads, before, deps);
  const results = await detectChanges(workloads, before, deps);
  await watchRollouts(results, options, deps);
  await rollBackFailures(results, options, deps);
  return {
    applied,
    workloads: results.map(({ expected: _expected, ...result }) => result),
    rollbackMode: options.rollback,
    applyMs,
    totalMs: deps.clock.now() - startedAt,
    kubectlProcesses: deps.kubectl.spawned,
  };
}

async function applyManifests(
  options: ApplyOptions,
  stdin: string | undefined,
  workloads: readonly WorkloadRef[],
  before: Map<string, Before>,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>,
) {
  const applyStartedAt = deps.clock.now();
  const applied = await deps.kubectl.apply(applyRequest(options, stdin)).catch(async (error: unknown) => {
    throw await withPartialChanges(error, workloads, before, deps);
  });
  deps.reporter.emit({ kind: 'applied', objects: applied, dryRun: false });
  return { applied, applyMs: deps.clock.now() - applyStartedAt };
}

/** Watches every changed Deployment and records its verdict on its result. */
async function watchRollouts(results: PendingResult[], options: ApplyOptions, deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>) {
  const changed = results.filter((result): result is PendingResult & { expected: Expectation } => result.expected !== undefined);
  const tracked = await trackRollouts(
    changed.map(({ workload, expected }) => ({ workload, expected })),
    {
      timeoutMs: options.timeoutMs,
      pollIntervalMs: options.pollIntervalMs,
      phase: 'rollout',
      stopWhenAnyFails: options.rollback === 'all',
      settleMs: options.settleMs,
    },
    deps,
  );
  for (const result of changed) {
    const outcome = tracked.get(workloadKey(result.workload));
    if (!outcome) continue;
    result.verdict = outcome.verdict;
    result.diagnosis = outcome.diagnosis;
    result.verdictAfterMs = outcome.elapsedMs;
    reportVerdict(result, outcome.elapsedMs, deps);
  }
}

/** Plans and carries out the rollback, recording each workload's rollback result. */
async function rollBackFailures(results: PendingResult[], options: ApplyOptions, deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>) {
  const expectations = new Map<string, Expectation>();
  for (const result of results) if (result.expected) expectations.set(workloadKey(result.workload), result.expected);
  const steps = planRollback(
    results.flatMap(({ workload, before, verdict }) => (verdict ? [{ workload, before, verdict }] : [])),
    options.rollback,
  );
  const rollbacks = await executeRollback(
    steps,
    expectations,
    { timeoutMs: options.rollbackTimeoutMs, pollIntervalMs: options.pollIntervalMs },
    deps,
  );
  for (const result of results) result.rollback = rollbacks.get(workloadKey(result.workload));
}

async function readManifests(
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter' | 'load'>,
): Promise<{ objects: ManifestObject[]; stdin?: string; workloads: WorkloadRef[] }> {
  const sources = await loadManifests(options.manifests, deps.load);
  const objects = sources.flatMap(parseManifests);
  if (objects.length === 0) {
    throw new InputError(
      `the manifests (${sources.map((source) => source.origin).join(', ')}) hold no Kubernetes objects. Check the -f/-k arguments; nothing was applied.`,
    );
  }
  const conflicts = namespaceConflicts(objects, options.namespace);
  if (conflicts.length > 0) {
    throw new InputError(
      `--namespace ${options.namespace} contradicts the namespace written in ${conflicts.join(', ')}; kubectl would refuse the apply. ` +
        'Drop --namespace or fix the manifests; nothing was applied.',
    );
  }
  const defaultNamespace = options.namespace ?? (await deps.kubectl.defaultNamespace());
  const workloads = workloadsIn(objects, defaultNamespace);
  deps.reporter.emit({ kind: 'manifests-read', objects: objects.length, workloads, untracked: untrackedWorkloads(objects) });
  return { objects, stdin: sources.find((source) => source.origin === 'stdin')?.text, workloads };
}

/** Untracked workload kinds, named so the user knows kguard will not watch them. */
function untrackedWorkloads(objects: readonly ManifestObject[]): string[] {
  const kinds = new Set(['StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'ReplicaSet']);
  return objects.filter((object) => kinds.has(object.kind)).map((object) => `${object.kind.toLowerCase()}/${object.metadata.name}`);
}

async function snapshotBefore(workloads: readonly WorkloadRef[], deps: Pick<Deps, 'kubectl'>): Promise<Map<string, Before>> {
  const before = new Map<string, Before>();
  const snapshots = await snapshotsByNamespace(workloads, deps);
  for (const workload of workloads) {
    const snapshot = snapshots.get(workload.namespace);
    const deployment = snapshot?.deployments.find((candidate) => candidate.metadata.name === workload.name);
    before.set(workloadKey(workload), recordBefore(deployment, snapshot?.replicaSets ?? []));
  }
  return before;
}

async function snapshotsByNamespace(workloads: readonly WorkloadRef[], deps: Pick<Deps, 'kubectl'>): Promise<Map<string, WorkloadSnapshot>> {
  const namespaces = [...new Set(workloads.map((workload) => workload.namespace))];
  const snapshots = await Promise.all(namespaces.map(async (namespace) => [namespace, await deps.kubectl.workloadState(namespace)] as const));
  return new Map(snapshots);
}

/**
 * A server-side dry run first: invalid objects, RBAC refusals and admission errors stop the run
 * before anything is applied, instead of half-way through the apply.
 */
async function preflight(options: ApplyOptions, stdin: string | undefined, objects: readonly ManifestObject[], deps: Pick<Deps, 'kubectl'>) {
  try {
    await deps.kubectl.apply({ ...applyRequest(options, stdin), dryRunServer: true });
  } catch (error) {
    // A dry run cannot see a namespace that the same apply creates; the real apply can.
    const createdNamespaces = objects.filter((object) => object.kind === 'Namespace').map((object) => object.metadata.name);
    const message = error instanceof Error ? error.message : String(error);
    const missing = /namespaces "([^"]+)" not found/.exec(message)?.[1];
    if (missing !== undefined && createdNamespaces.includes(missing)) return;
    throw error;
  }
}

/**
 * kubectl apply stops at the first object it cannot apply; the ones before it are applied. Name
 * the Deployments that changed anyway, with the command to undo each, so nothing is left silent.
 */
async function withPartialChanges(
  error: unknown,
  workloads: readonly WorkloadRef[],
  before: Map<string, Before>,
  deps: Pick<Deps, 'kubectl'>,
) {
  if (!(error instanceof KubectlError)) return error;
  const changed: string[] = [];
  for (const workload of workloads) {
    const after = await deps.kubectl.getDeployment(workload.namespace, workload.name).catch(() => undefined);
    const recorded = before.get(workloadKey(workload)) ?? { exists: false, images: [] };
    if (!detectChange(recorded, after).changed) continue;
    const step: RollbackStep = !recorded.exists
      ? { workload, action: 'skip', reason: 'created-by-apply' }
      : recorded.revision === undefined
        ? { workload, action: 'skip', reason: 'no-recorded-revision' }
        : { workload, action: 'undo', toRevision: recorded.revision };
    changed.push(`${describeWorkload(workload)}: ${manualCommands(step, (args) => deps.kubectl.commandLine(args)).join('; ')}`);
  }
  if (changed.length === 0) return error;
  return new KubectlError(
    `${error.message} The apply stopped part-way: these Deployments were already changed and kguard did not watch or undo them:\n  ${changed.join('\n  ')}`,
    error.command,
    error.stderr,
  );
}

function applyRequest(options: ApplyOptions, stdin: string | undefined) {
  return {
    filenames: options.manifests.filenames,
    recursive: options.manifests.recursive,
    kustomize: options.manifests.kustomize,
    stdin,
    namespace: options.namespace,
    serverSide: options.serverSide,
    fieldManager: options.fieldManager,
    passThrough: options.passThrough,
  };
}

type PendingResult = WorkloadResult & { expected?: Expectation };

async function detectChanges(
  workloads: readonly WorkloadRef[],
  before: Map<string, Before>,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
): Promise<PendingResult[]> {
  const byNamespace = new Map<string, WorkloadRef[]>();
  for (const workload of workloads) byNamespace.set(workload.namespace, [...(byNamespace.get(workload.namespace) ?? []), workload]);
  const after = new Map<string, Awaited<ReturnType<Kubectl['getDeployments']>>>();
  for (const [namespace, inNamespace] of byNamespace) {
    after.set(namespace, await deps.kubectl.getDeployments(namespace, inNamespace.map((workload) => workload.name)));
  }
  return workloads.map((workload) => {
    const recorded = before.get(workloadKey(workload)) ?? { exists: false, images: [] };
    const deployment = after.get(workload.namespace)?.get(workload.name);
    const change = detectChange(recorded, deployment);
    if (!change.changed || !deployment) {
      deps.reporter.emit({ kind: 'unchanged', workload, detail: change.detail });
      return { workload, before: recorded, change };
    }
    deps.reporter.emit({ kind: 'tracking', workload, fromRevision: recorded.revision, detail: change.detail });
    return { workload, before: recorded, change, expected: expectationOf(deployment) };
  });
}

function reportVerdict(result: WorkloadResult, elapsedMs: number, deps: Pick<Deps, 'kubectl' | 'reporter'>) {
  const { workload, verdict, diagnosis } = result;
  if (!verdict) return;
  switch (verdict.state) {
    case 'healthy':
      deps.reporter.emit({ kind: 'healthy', workload, progress: verdict.progress, elapsedMs });
      return;
    case 'failed':
    case 'timed-out':
      if (diagnosis) deps.reporter.emit({ kind: verdict.state, workload, diagnosis, elapsedMs });
      return;
    case 'conflict':
    case 'gone': {
      const commands = manualCommands(
        { workload, action: 'skip', reason: verdict.state, toRevision: result.before.revision },
        (args) => deps.kubectl.commandLine(args),
      );
      deps.reporter.emit({ kind: verdict.state, workload, detail: verdict.detail, commands });
      return;
    }
    case 'progressing':
      deps.reporter.emit({ kind: 'interrupted', workload, progress: verdict.progress, waitingFor: verdict.waitingFor });
      return;
  }
}
