// The bake (--bake): once the rollout is healthy and verified, the changed workloads are watched
// on, from the same sources as the rollout (watches, or polls), for --bake. Each look is judged
// twice: by the one engine (someone else's change wins; a fatal reason on a new pod, a failing
// condition) and by the bake's own rules (bake-rules.ts: restarts, pods leaving Ready,
// evictions). The --verify commands run again every --verify-interval beside it, and the metric
// analysis (--analysis, analysis/run.ts) on its own schedule. The first breach ends the bake at
// once, with the broken container's last lines read while its pod exists.
import { diagnose } from '../classify/diagnosis.js';
import { splitLines } from '../classify/text.js';
import type { KubeEvent, Pod } from '../kube.js';
import { judge, newPodsOf, rememberSeen } from '../kinds/engine.js';
import { findObject } from '../kinds/look-index.js';
import type { ContainerLog } from '../model/findings.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { FirstSeen, RolloutVerdict } from '../model/verdict.js';
import type { BakeOutcome, VerifyOutcome } from '../model/verify.js';
import type { AnalysisOutcome } from '../model/analysis.js';
import type { RunningAnalysis } from '../analysis/run.js';
import { objectKey, type ObjectRef } from '../objects/model.js';
import { JSON_LOG_LINES, rowOf, rulesOf, sourceFor, type TrackDeps, type TrackTarget } from '../track/tracker.js';
import type { Reading } from '../track/sources.js';
import { bakeLook, endedQuietly, keyOf, marksOf, type Breach, type PodMarks } from './bake-rules.js';

export interface BakeTarget extends TrackTarget {
  /** Its new pods when the tracker called it healthy: the first marks. */
  baseline: readonly Pod[];
}

export interface BakeRun {
  durationMs: number;
  pollIntervalMs: number;
  watch: boolean;
  logLines: number;
  /** Run the checks again this often (0: not again). */
  verifyIntervalMs: number;
}

/** Runs the --verify commands once more; resolves with the first that failed, if one did. */
export type CheckAgain = () => Promise<VerifyOutcome | undefined>;

export interface BakeResult {
  outcome: BakeOutcome;
  /** Objects someone else changed (or deleted) during the bake: their verdict, as the rollout would have said it. */
  verdicts: Map<string, RolloutVerdict>;
}

interface Watched {
  target: BakeTarget;
  marks: PodMarks;
  firstSeen: FirstSeen;
  seen: boolean;
  /** The events of its pods that ended quietly (bake-rules.ts endedQuietly), and how often each was read, by uid. */
  events: Map<string, { events: KubeEvent[]; reads: number }>;
}

/** A quietly ended pod's events are read at most this many times (one per look) while they hold no Evicted event. */
const QUIET_END_READS = 3;

type Stop = Omit<BakeOutcome, 'durationMs' | 'elapsedMs' | 'checksRun' | 'passed'> & { verdict?: RolloutVerdict };

export async function bake(
  targets: readonly BakeTarget[],
  run: BakeRun,
  deps: TrackDeps,
  checkAgain?: CheckAgain,
  analysis?: RunningAnalysis,
): Promise<BakeResult> {
  deps.reporter.emit({
    kind: 'bake-started',
    workloads: targets.map((target) => target.workload),
    durationMs: run.durationMs,
    verifyIntervalMs: run.verifyIntervalMs,
  });
  const startedAt = deps.clock.now();
  const watched = targets.map(
    (target): Watched => ({
      target,
      marks: marksOf(target.baseline),
      firstSeen: new Map(),
      seen: false,
      events: new Map(),
    }),
  );
  const source = sourceFor(targets, run, deps);
  let checksRun = 0;
  let checking: Promise<VerifyOutcome | undefined> | undefined;
  let failedCheck: VerifyOutcome | undefined;
  let nextCheckAt = run.verifyIntervalMs > 0 && checkAgain ? startedAt + run.verifyIntervalMs : Infinity;
  let stop: Stop | undefined;
  let analysed: AnalysisOutcome | undefined;
  const analysing = analysis?.ended.then((outcome) => (analysed = outcome));
  try {
    while (!deps.signal?.aborted) {
      if (!checking && checkAgain && deps.clock.now() >= nextCheckAt && deps.clock.now() - startedAt < run.durationMs) {
        checksRun += 1;
        checking = checkAgain().then((failed) => {
          failedCheck ??= failed;
          checking = undefined;
          nextCheckAt = deps.clock.now() + run.verifyIntervalMs;
          return failed;
        });
      }
      stop = checkStop(failedCheck) ?? analysisStop(analysed) ?? (await look(watched, source, startedAt, run, deps));
      if (stop) break;
      const elapsed = deps.clock.now() - startedAt;
      if (elapsed >= run.durationMs) {
        // A check that started within the bake counts: its verdict is waited for (it has its own deadline).
        // So is the analysis's last evaluation (each request has its deadline).
        if (checking) await checking;
        if (analysing) await analysing;
        stop = checkStop(failedCheck) ?? analysisStop(analysed) ?? (await lastLook(watched, run, deps));
        break;
      }
      const wait = Math.max(0, Math.min(run.pollIntervalMs, run.durationMs - elapsed, nextCheckAt - deps.clock.now()));
      await Promise.race([
        source.changed(wait),
        ...(checking ? [checking] : []),
        ...(analysing && !analysed ? [analysing] : []),
      ]);
    }
  } finally {
    // A bake ended by anything else stops the analysis's evaluations still to come.
    analysis?.stop();
    await source.close();
    // A cancelled run stops the check's process group; its end is waited for, so nothing outlives the bake.
    if (checking) await checking.catch(() => undefined);
  }
  if (!stop && deps.signal?.aborted)
    stop = { stoppedBy: 'cancelled', summary: 'stopped: the run was cancelled', evidence: [], logs: [] };
  const elapsedMs = Math.min(deps.clock.now() - startedAt, stop ? Infinity : run.durationMs);
  const { verdict, ...rest } = stop ?? { evidence: [], logs: [] };
  const outcome: BakeOutcome = {
    durationMs: run.durationMs,
    elapsedMs,
    passed: stop === undefined,
    checksRun,
    ...rest,
  };
  if (!stop) deps.reporter.emit({ kind: 'baked', outcome, workloads: targets.length });
  else if (stop.stoppedBy !== 'conflict' && stop.stoppedBy !== 'cancelled')
    deps.reporter.emit({ kind: 'bake-failed', workload: stop.workload, outcome, shown: run.logLines });
  const verdicts = new Map<string, RolloutVerdict>();
  if (verdict && stop?.workload) verdicts.set(objectKey(stop.workload), verdict);
  return { outcome, verdicts };
}

/** The analysis failed, or could not judge a metric: the bake ends with its verdict line. */
function analysisStop(outcome: AnalysisOutcome | undefined): Stop | undefined {
  if (!outcome || outcome.verdict === 'passed' || outcome.verdict === 'stopped') return undefined;
  return {
    stoppedBy: 'analysis',
    summary: `metric ${outcome.metric ?? '?'} ${outcome.verdict === 'failed' ? 'failed' : 'could not be judged'} (--analysis)`,
    evidence: [],
    logs: [],
  };
}

function checkStop(failed: VerifyOutcome | undefined): Stop | undefined {
  if (!failed) return undefined;
  const what = failed.check.type === 'command' ? `\`${failed.check.command}\`` : failed.check.file;
  return { stoppedBy: 'check', summary: `${what}, run again, ${failed.summary}`, evidence: [], logs: [] };
}

/** One look at every workload: the first that broke (or that someone else changed) stops the bake. */
async function look(
  watched: Watched[],
  source: ReturnType<typeof sourceFor>,
  startedAt: number,
  run: BakeRun,
  deps: TrackDeps,
): Promise<Stop | undefined> {
  const readings = await source.read(typesByNamespace(watched));
  for (const entry of watched) {
    const stop = await judgeOne(entry, readings.get(entry.target.workload.namespace), startedAt, run, deps);
    if (stop) return stop;
  }
  return undefined;
}

/** At the end, a workload no look could read (its watch never answered) is read once more, by a poll. */
async function lastLook(watched: Watched[], run: BakeRun, deps: TrackDeps): Promise<Stop | undefined> {
  const unseen = watched.filter((entry) => !entry.seen);
  for (const [namespace, types] of typesByNamespace(unseen)) {
    const reading = await deps.kubectl
      .workloadSnapshot(namespace, types)
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    for (const entry of unseen.filter((candidate) => candidate.target.workload.namespace === namespace)) {
      const stop = await judgeOne(entry, reading, deps.clock.now(), run, deps);
      if (stop) return stop;
      if (!entry.seen) {
        const why = reading instanceof Error ? reading.message : 'it was not found';
        return {
          stoppedBy: 'unobserved',
          workload: entry.target.workload,
          summary: `kguard could not watch it during the bake (${why})`,
          evidence: [],
          logs: [],
          nextStep: 'check that the API server answers, then run kguard again',
        };
      }
    }
  }
  return undefined;
}

async function judgeOne(
  entry: Watched,
  reading: Reading,
  startedAt: number,
  run: BakeRun,
  deps: TrackDeps,
): Promise<Stop | undefined> {
  if (reading === undefined || reading instanceof Error) return undefined;
  const snapshot: WorkloadSnapshot = reading;
  const { workload, expected } = entry.target;
  const rules = rulesOf(entry.target);
  const observation = { object: findObject(snapshot, workload), snapshot };
  const now = deps.clock.now();
  const verdict = judge(rules, observation, expected, entry.firstSeen, {
    now,
    startedAt,
    timeoutMs: Number.MAX_SAFE_INTEGER,
  });
  entry.firstSeen = rememberSeen(rules, entry.firstSeen, verdict, now, observation, expected);
  entry.seen = true;
  if (verdict.state === 'conflict' || verdict.state === 'gone') {
    deps.reporter.emit({ kind: verdict.state, workload, detail: verdict.detail, commands: [] });
    return { stoppedBy: 'conflict', workload, summary: verdict.detail, evidence: [], logs: [], verdict };
  }
  if (verdict.state === 'failed') {
    const diagnosis = diagnose(verdict, [], workload);
    return {
      stoppedBy: 'workload',
      workload,
      summary: diagnosis?.summary ?? 'it failed',
      evidence: diagnosis?.evidence ?? [],
      logs: [],
      nextStep: diagnosis?.nextStep,
    };
  }
  // newPodsOf leaves out the pods that ended for a reason not the release's, by their status; one
  // that ended quietly says nothing in its status, so it is looked at here, with its events.
  const counted = newPodsOf(rules, observation.object, snapshot);
  const keys = new Set(counted.map(keyOf));
  const quiet =
    observation.object !== undefined && rules.observed(observation.object)
      ? rules.newPods(observation.object, snapshot).filter((pod) => endedQuietly(pod) && !keys.has(keyOf(pod)))
      : [];
  const pods = [...counted, ...quiet];
  await readQuietEnds(entry, pods, deps);
  const events = new Map([...entry.events].map(([uid, read]) => [uid, read.events]));
  const { marks, breach } = bakeLook(entry.marks, pods, events);
  entry.marks = marks;
  if (!breach) return undefined;
  return {
    stoppedBy: 'workload',
    workload,
    summary: breach.summary,
    evidence: [],
    logs: await logsOf(breach, workload, run.logLines, deps),
    nextStep: NEXT_STEPS[breach.why],
  };
}

/**
 * The events of the new pods that ended quietly (Succeeded with no deletion): the kubelet's Evicted
 * event is the only trace of why (bake-rules.ts). Read through the tracker's reader, once per look,
 * until one says Evicted or QUIET_END_READS reads said nothing; a failed read counts as one.
 */
async function readQuietEnds(entry: Watched, pods: readonly Pod[], deps: TrackDeps): Promise<void> {
  const due = pods.filter((pod) => {
    if (!endedQuietly(pod)) return false;
    const read = entry.events.get(keyOf(pod));
    return !read || (read.reads < QUIET_END_READS && !read.events.some((event) => event.reason === 'Evicted'));
  });
  await Promise.all(
    due.map(async (pod) => {
      const events = await deps.kubectl
        .events(entry.target.workload.namespace, pod.metadata.name)
        .catch((): KubeEvent[] => []);
      const before = entry.events.get(keyOf(pod));
      entry.events.set(keyOf(pod), { events, reads: (before?.reads ?? 0) + 1 });
    }),
  );
}

const NEXT_STEPS: Record<Breach['why'], string> = {
  exits:
    'the new version stops some time after it starts; its last lines are above. Fix the app (or its memory limit, or its liveness probe) and apply again',
  unready:
    'the new version stops answering its readiness probe some time after it starts. Fix the app (or the probe) and apply again',
  evicted:
    "the kubelet evicted a new pod (the message says which resource ran short); raise the pod's requests or limits, or find what fills the node",
};

async function logsOf(breach: Breach, workload: ObjectRef, shown: number, deps: TrackDeps): Promise<ContainerLog[]> {
  const read = deps.kubectl.logs?.bind(deps.kubectl);
  if (!breach.logs || !read || shown <= 0) return [];
  const { pod, container, previous } = breach.logs;
  const tail = Math.max(shown, JSON_LOG_LINES);
  const result = await read(workload.namespace, pod, container, { tail, previous }).catch((error: unknown) => ({
    ok: false as const,
    error: String(error),
  }));
  return [
    result.ok
      ? { pod, container, previous, lines: splitLines(result.text).slice(-tail), shown }
      : { pod, container, previous, lines: [], shown, error: splitLines(result.error)[0] ?? '' },
  ];
}

function typesByNamespace(watched: readonly Watched[]): Map<string, string[]> {
  const types = new Map<string, Set<string>>();
  for (const { target } of watched) {
    const set = types.get(target.workload.namespace) ?? new Set<string>();
    for (const type of rowOf(target).reads(target.workload)) set.add(type);
    types.set(target.workload.namespace, set);
  }
  return new Map([...types].map(([namespace, set]) => [namespace, [...set]]));
}
