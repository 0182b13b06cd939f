// A fleet apply: the whole single-cluster pipeline (guardedApply) once per context, wave by wave,
// a wave's clusters in parallel. A wave must end healthy before the next starts. When a cluster
// fails, --fleet-rollback all restores every cluster this fleet run changed, the healthy ones
// from the journal their run kept (the restore `kguard rollback` uses, with its rule: someone
// else's change wins); clusters not yet reached are never touched.
import { systemClock } from '../clock.js';
import { ExitCode, InputError, KguardError } from '../errors.js';
import { connectKubectl } from '../kubectl/connect.js';
import { RETRY_DELAYS_MS } from '../kubectl/transient.js';
import type { Kubectl } from '../kubectl/types.js';
import { probeHolder } from '../journal/holder.js';
import { makeFleetRunId, removeJournal } from '../journal/store.js';
import type { Reporter } from '../model/events.js';
import type { ClusterEnd, FleetPlan, FleetRun } from '../model/fleet.js';
import type { GuardedApplyOptions } from '../model/options.js';
import type { JsonReport } from '../report/json.js';
import type { FleetReport } from '../report/fleet.js';
import { RunRecorder } from '../report/recorder.js';
import { ClusterSections } from '../report/format/sections.js';
import { secretValuesOfObjects } from '../report/safety/redact.js';
import { sanitizeText } from '../report/safety/sanitize.js';
import { clusterOptions, clustersToRestore, fleetExitCode, fleetOutcome } from '../run/fleet/fleet.js';
import { runRollback } from '../run/rollback/rollback.js';
import { listRuns } from '../journal/runs.js';
import { privateCopies, removeCopiesOf } from '../restore/private-copies.js';
import { guardedApply, type GuardedApplyDeps } from './apply.js';
import { missingKubeconfig } from './environment.js';

export type FleetDeps = Omit<GuardedApplyDeps, 'onRecorder' | 'quietEnd' | 'onResult'> & {
  /** The fleet run's id (tests, the bench); default a new one. */
  fleetRunId?: string;
};

export interface FleetResult {
  report: FleetReport;
  exitCode: number;
}

export async function guardedFleetApply(
  options: GuardedApplyOptions,
  plan: FleetPlan,
  deps: FleetDeps,
): Promise<FleetResult> {
  refuseContradictions(options, plan);
  // One id for the whole fleet run, journalled in every cluster it changes: `kguard status` and
  // `kguard rollback FLEET --contexts` find the fleet's runs by it after a crash.
  const fleet: FleetRun = {
    runId: deps.fleetRunId ?? makeFleetRunId(),
    contexts: plan.waves.flatMap((wave) => wave.contexts),
  };
  // One run's end must not end the terminal's reporter: the fleet closes it once, at its end.
  const shared: Reporter = { emit: (event) => deps.reporter.emit(event), close: () => undefined };
  // `-f -` is read once and given to every cluster.
  let stdin: Promise<Uint8Array> | undefined;
  const readStdin = () => (stdin ??= deps.readStdin());
  const ends: FleetEnd[] = plan.waves.flatMap((wave, index) =>
    wave.contexts.map((context) => ({
      context,
      wave: index + 1,
      outcome: 'not-reached' as const,
      exitCode: null,
      runId: null,
      message: null,
      report: null,
    })),
  );
  const optionsOf = (end: ClusterEnd) => clusterOptions(options, end.context, plan.waves[end.wave - 1]!, plan, fleet);
  // Every cluster's kubeconfig (a fleet file may give each its own) exists before any is applied to.
  for (const end of ends) {
    const missing = missingKubeconfig(optionsOf(end).connectionArgs, deps.env);
    if (missing) throw new InputError(`context ${end.context}: ${missing}`);
  }

  for (const [index, { parallel }] of plan.waves.entries()) {
    const wave = ends.filter((end) => end.wave === index + 1);
    const sections = new ClusterSections(
      shared,
      wave.map((end) => end.context),
    );
    await eachAtMost(wave, parallel ?? wave.length, async (end) => {
      try {
        await applyCluster(end, optionsOf(end), fleet, {
          ...deps,
          reporter: sections.reporterFor(end.context),
          readStdin,
        });
      } finally {
        sections.end(end.context);
      }
    });
    // A wave must end healthy (baked too: each cluster's run bakes before it ends) before the next starts.
    if (wave.some((end) => end.exitCode !== ExitCode.Success)) break;
  }

  const failed = ends.some((end) => end.exitCode !== null && end.exitCode !== ExitCode.Success);
  const restore = failed ? clustersToRestore(ends, plan.rollback) : [];
  await finishClusters(ends, restore, optionsOf, { plan, fleet, shared, options }, deps);
  deps.reporter.close();
  const exitCode = fleetExitCode(ends);
  return {
    report: {
      reportVersion: 3,
      fleet: true,
      fleetRunId: fleet.runId,
      outcome: fleetOutcome(ends),
      exitCode,
      fleetRollback: plan.rollback,
      clusters: ends,
    },
    exitCode,
  };
}

type FleetEnd = ClusterEnd & { report: JsonReport | null };

/**
 * After the waves, each healthy cluster: restored from its run's journal when the fleet takes it
 * back (`restore`), else its journal forgotten, as a single run's is at its end.
 */
async function finishClusters(
  ends: FleetEnd[],
  restore: readonly ClusterEnd[],
  optionsOf: (end: ClusterEnd) => GuardedApplyOptions,
  {
    plan,
    fleet,
    shared,
    options,
  }: { plan: FleetPlan; fleet: FleetRun; shared: Reporter; options: GuardedApplyOptions },
  deps: FleetDeps,
): Promise<void> {
  const restoreSections = new ClusterSections(
    shared,
    restore.map((end) => end.context),
  );
  await Promise.all(
    ends.map(async (end) => {
      if (end.runId === null || end.outcome !== 'succeeded') return;
      const kubectl = clusterKubectl(optionsOf(end), deps);
      if (!restore.includes(end)) {
        await forgetJournal(end.runId, kubectl, options.rollbackTimeoutMs).finally(() => kubectl.close());
        return;
      }
      const reporter = restoreSections.reporterFor(end.context);
      reporter.emit({
        kind: 'fleet-cluster',
        context: end.context,
        wave: end.wave,
        step: 'restore',
        fleetRunId: fleet.runId,
      });
      try {
        // The command that finishes it names the cluster's own kubeconfig when its fleet file gives one.
        const kubeconfig = plan.overrides?.[end.context]?.kubeconfig;
        const where = `--context ${end.context}${kubeconfig === undefined ? '' : ` --kubeconfig ${kubeconfig}`}`;
        Object.assign(end, await restoreCluster(end.runId, where, kubectl, options, { ...deps, reporter }));
      } finally {
        kubectl.close();
        restoreSections.end(end.context);
      }
    }),
  );
}

/** What a fleet cannot be given: --context (the waves name the contexts), and --no-journal when healthy clusters are restored from their journals. */
function refuseContradictions(options: GuardedApplyOptions, plan: FleetPlan): void {
  if (options.connectionArgs.some((arg) => arg.startsWith('--context='))) {
    throw new InputError(
      '--context and a fleet (--contexts, --canary) contradict each other: the fleet names its contexts. Drop --context.',
    );
  }
  if (plan.rollback === 'all' && !options.journal && !options.dryRun) {
    throw new InputError(
      '--fleet-rollback all restores healthy clusters from their journals, and --no-journal writes none: drop --no-journal, or use --fleet-rollback failed.',
    );
  }
}

/** One cluster's run, the whole single-cluster pipeline; where it ended is written into `end`. */
async function applyCluster(
  end: FleetEnd,
  options: GuardedApplyOptions,
  fleet: FleetRun,
  deps: FleetDeps,
): Promise<void> {
  deps.reporter.emit({
    kind: 'fleet-cluster',
    context: end.context,
    wave: end.wave,
    step: 'apply',
    fleetRunId: fleet.runId,
  });
  try {
    const run = await guardedApply(options, deps);
    Object.assign(end, {
      outcome: run.report.outcome,
      exitCode: run.exitCode,
      runId: run.runId,
      report: run.report,
    });
  } catch (error) {
    // kguard could not run there (unreachable, refused, bad input): nothing was applied there.
    if (!(error instanceof KguardError)) throw error;
    Object.assign(end, {
      outcome: 'error',
      exitCode: error.exitCode,
      message: sanitizeText(error.message, deps.redactor),
    });
  }
}

/** Runs `work` on every item, at most `limit` at once, starting them in the items' order. */
async function eachAtMost<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/**
 * A kubectl for the fleet's own work in one cluster (the restore, the journal's removal), its raw
 * calls through one proxy as a run's are (kguard rollback's way, polling): every call has a deadline.
 */
function clusterKubectl(options: GuardedApplyOptions, deps: FleetDeps): Kubectl & { close(): void } {
  return connectKubectl(
    {
      binary: deps.kubectlBinary,
      connectionArgs: options.connectionArgs,
      requestTimeout: `${options.requestTimeoutMs / 1000}s`,
      readDeadlineMs: Math.min(60_000, Math.max(5_000, options.rollbackTimeoutMs)),
      concurrency: options.concurrency,
      retry: { delaysMs: RETRY_DELAYS_MS, sleep: systemClock.sleep },
      observe: (objects) => {
        for (const value of secretValuesOfObjects(objects)) deps.redactor.addValue(value);
      },
    },
    { watches: false },
  );
}

/** A healthy cluster whose changes the fleet takes back: its run restored from its journal (runRollback). */
async function restoreCluster(
  runId: string,
  where: string,
  kubectl: Kubectl,
  options: GuardedApplyOptions,
  deps: FleetDeps,
): Promise<Partial<ClusterEnd>> {
  const recorder = new RunRecorder(deps.reporter, deps.redactor);
  const copies = privateCopies(runId);
  try {
    // force: the run is this process's own, finished; its journal names this process as holder.
    const result = await runRollback(
      { runId, deadlineMs: options.rollbackTimeoutMs, force: true },
      { kubectl, clock: systemClock, reporter: recorder, keepCopy: copies, probe: probeHolder },
    );
    if (result.needsPerson > 0) {
      return {
        outcome: 'needs-attention',
        exitCode: ExitCode.RollbackFailed,
        message: `${result.needsPerson} object(s) could not be restored: someone else changed them, or the API server refused. kguard rollback ${runId} ${where} finishes it.`,
      };
    }
    // The run is restored (runRollback took its history record back too).
    await Promise.all([copies.remove(), removeCopiesOf(runId)]);
    return { outcome: 'restored', exitCode: ExitCode.RolledBack };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      outcome: 'needs-attention',
      exitCode: ExitCode.RollbackFailed,
      message: sanitizeText(
        `the fleet could not restore it: ${reason}. kguard rollback ${runId} ${where} finishes it.`,
        deps.redactor,
      ),
    };
  } finally {
    recorder.close();
  }
}

/** A healthy cluster the fleet keeps: its run is over, so its journal goes, as a single run's does. */
async function forgetJournal(runId: string, kubectl: Kubectl, deadlineMs: number): Promise<void> {
  const run = (await listRuns(kubectl, undefined, Date.now(), probeHolder).catch(() => [])).find(
    (candidate) => candidate.runId === runId,
  );
  if (run) await removeJournal(kubectl, run.secrets, deadlineMs).catch(() => undefined);
}
