// Polls every tracked Deployment at once, one kubectl call per namespace per cycle, until each
// reaches a verdict. Side effects (kubectl, clock, reporter) come in as deps.
import { diagnose, type Diagnosis } from '../classify/diagnosis.js';
import type { Clock } from '../clock.js';
import type { Kubectl, WorkloadSnapshot } from '../kubectl/client.js';
import type { KubeEvent } from '../kube.js';
import { workloadKey, type WorkloadRef } from '../manifests/parse.js';
import type { Phase, Reporter } from '../report/events.js';
import { rememberFindings, verdictFor, type Expectation, type FirstSeen, type Verdict } from './verdict.js';

export interface TrackTarget {
  workload: WorkloadRef;
  expected: Expectation;
}

export interface TrackOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  phase: Phase;
  /** Stop watching the others as soon as one fails: they will all be undone anyway. */
  stopWhenAnyFails: boolean;
  /**
   * How long a rollout must stay healthy before it counts as healthy: catches containers that
   * crash some seconds after becoming ready (0: healthy at the first healthy poll, like rollout status).
   */
  settleMs: number;
}

export interface Tracked {
  target: TrackTarget;
  verdict: Verdict;
  diagnosis?: Diagnosis;
  elapsedMs: number;
}

export interface TrackDeps {
  kubectl: Pick<Kubectl, 'workloadState' | 'events'>;
  clock: Clock;
  reporter: Reporter;
  /** Aborted when the run is cancelled: tracking stops and each rollout keeps its last verdict. */
  signal?: AbortSignal;
}

interface Watch {
  target: TrackTarget;
  firstSeen: FirstSeen;
  reported: Set<string>;
  lastProgress: string;
  lastVerdict?: Verdict;
  /** When the rollout was first seen healthy in the current unbroken run of healthy polls. */
  healthySince?: number;
}

const FINAL_STATES = new Set<Verdict['state']>(['healthy', 'failed', 'timed-out', 'conflict', 'gone']);

export async function trackRollouts(
  targets: readonly TrackTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, Tracked>> {
  const startedAt = deps.clock.now();
  const pending = new Map<string, Watch>(
    targets.map((target) => [workloadKey(target.workload), { target, firstSeen: new Map(), reported: new Set(), lastProgress: '' }]),
  );
  const done = new Map<string, Tracked>();
  const reportedErrors = new Set<string>();

  while (pending.size > 0 && !deps.signal?.aborted) {
    const namespaces = [...new Set([...pending.values()].map((watch) => watch.target.workload.namespace))];
    const snapshots = new Map(
      await Promise.all(namespaces.map(async (namespace) => [namespace, await snapshotOrError(deps.kubectl, namespace)] as const)),
    );
    const now = deps.clock.now();
    for (const [key, watch] of pending) {
      const snapshot = snapshots.get(watch.target.workload.namespace);
      const verdict =
        snapshot === undefined || snapshot instanceof Error
          ? unreachableVerdict(watch, snapshot, now - startedAt >= options.timeoutMs)
          : observe(watch, snapshot, now, startedAt, options, deps.reporter);
      if (snapshot instanceof Error && !reportedErrors.has(snapshot.message)) {
        reportedErrors.add(snapshot.message);
        deps.reporter.emit({ kind: 'poll-error', namespace: watch.target.workload.namespace, message: snapshot.message });
      }
      if (verdict?.state === 'healthy' && !settled(watch, now, options.settleMs)) continue;
      if (verdict && FINAL_STATES.has(verdict.state)) {
        done.set(key, await finish(watch, verdict, now - startedAt, deps));
        pending.delete(key);
      }
    }
    const anyFailed = [...done.values()].some(({ verdict }) => verdict.state === 'failed' || verdict.state === 'timed-out');
    if (options.stopWhenAnyFails && anyFailed) {
      // The others are undone with the failing one; their last verdict says where they stood.
      for (const [key, watch] of pending) {
        if (watch.lastVerdict) done.set(key, { target: watch.target, verdict: watch.lastVerdict, elapsedMs: now - startedAt });
      }
      break;
    }
    if (pending.size > 0 && !deps.signal?.aborted) {
      // Never sleep past the deadline: the timeout verdict comes at the timeout, not a poll later.
      const untilDeadline = startedAt + options.timeoutMs - deps.clock.now();
      await deps.clock.sleep(Math.max(0, Math.min(options.pollIntervalMs, untilDeadline)));
    }
  }
  for (const [key, watch] of pending) {
    // Cancelled: where each rollout stood when kguard stopped watching.
    const stoodAt = watch.lastVerdict ?? { state: 'progressing', progress: { desired: 0, updated: 0, ready: 0, available: 0 }, findings: [], waitingFor: 'not observed yet' };
    done.set(key, { target: watch.target, verdict: stoodAt, elapsedMs: deps.clock.now() - startedAt });
  }
  return done;
}

/** Healthy for settleMs without a break; a poll that is not healthy starts the wait again. */
function settled(watch: Watch, now: number, settleMs: number): boolean {
  watch.healthySince ??= now;
  return now - watch.healthySince >= settleMs;
}

async function snapshotOrError(kubectl: TrackDeps['kubectl'], namespace: string): Promise<WorkloadSnapshot | Error> {
  try {
    return await kubectl.workloadState(namespace);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function observe(
  watch: Watch,
  snapshot: WorkloadSnapshot,
  now: number,
  startedAt: number,
  options: TrackOptions,
  reporter: Reporter,
): Verdict {
  const { workload } = watch.target;
  const deployment = snapshot.deployments.find((candidate) => candidate.metadata.name === workload.name);
  const verdict = verdictFor(
    { deployment, replicaSets: snapshot.replicaSets, pods: snapshot.pods },
    watch.target.expected,
    watch.firstSeen,
    { now, startedAt, timeoutMs: options.timeoutMs },
  );
  watch.firstSeen = rememberFindings(watch.firstSeen, verdict, now, deployment);
  watch.lastVerdict = verdict;
  if (verdict.state !== 'healthy') watch.healthySince = undefined;
  for (const finding of verdict.findings) {
    // One line per container and reason: ten replicas failing alike are one problem.
    const key = `${finding.container ?? ''}/${finding.reason}`;
    // Not-ready is normal while pods start; it is only worth saying in a timeout's diagnosis.
    if (watch.reported.has(key) || finding.rule.category === 'not-ready') continue;
    watch.reported.add(key);
    reporter.emit({ kind: 'pod-problem', workload, finding, phase: options.phase });
  }
  const waitingFor =
    verdict.state === 'progressing'
      ? verdict.waitingFor
      : verdict.state === 'healthy' && options.settleMs > 0
        ? `healthy; checking that it stays healthy for ${options.settleMs / 1000}s (--settle)`
        : undefined;
  if (waitingFor !== undefined) {
    const text = `${verdict.progress.revision ?? ''}|${verdict.progress.ready}/${verdict.progress.desired}|${waitingFor}`;
    if (text !== watch.lastProgress) {
      watch.lastProgress = text;
      reporter.emit({ kind: 'progress', workload, progress: verdict.progress, waitingFor, phase: options.phase });
    }
  }
  return verdict;
}

/** The API server did not answer this cycle: keep waiting until the timeout, then say so. */
function unreachableVerdict(watch: Watch, error: Error | undefined, timedOut: boolean): Verdict | undefined {
  if (!timedOut) return undefined;
  const last = watch.lastVerdict;
  return {
    state: 'timed-out',
    progress: last?.progress ?? { desired: 0, updated: 0, ready: 0, available: 0 },
    findings: last?.findings ?? [],
    waitingFor: `no answer from the API server (${error?.message ?? 'no answer'})`,
  };
}

async function finish(watch: Watch, verdict: Verdict, elapsedMs: number, deps: TrackDeps): Promise<Tracked> {
  const { workload } = watch.target;
  let events: KubeEvent[] = [];
  const firstDiagnosis = diagnose(verdict, [], workload);
  if (firstDiagnosis?.pod) {
    // Events are evidence, not a verdict: without them the diagnosis still stands.
    events = await deps.kubectl.events(workload.namespace, firstDiagnosis.pod).catch(() => []);
  }
  return { target: watch.target, verdict, diagnosis: diagnose(verdict, events, workload), elapsedMs };
}
