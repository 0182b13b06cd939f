// Judges every tracked object until each reaches a verdict: at every change its watches see (or
// at every poll when it polls, sources.ts), and at least every poll interval, since some rules
// depend on time alone; a workload none of whose own copies changed waits for that (due.ts).
// What the objects mean for each kind comes from its row (kinds/table.ts), judged by the shared
// engine (kinds/engine.ts). Side effects (kubectl, clock, reporter) come in as deps.
import { OutageNotes } from './outage.js';
import { NO_CLUES, type Clues } from '../classify/clues.js';
import { diagnose, logTargets } from '../classify/diagnosis.js';
import { splitLines } from '../classify/text.js';
import type { KubeEvent, Pod } from '../kube.js';
import { judge, newPodsOf, NO_PROGRESS, rememberSeen } from '../kinds/engine.js';
import { findObject } from '../kinds/look-index.js';
import type { Reporter } from '../model/events.js';
import type { ContainerLog, Diagnosis } from '../model/findings.js';
import type { TrackOptions } from '../model/options.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { FirstSeen, RolloutVerdict as Verdict } from '../model/verdict.js';
import { objectKey, type KubeObject } from '../objects/model.js';
import { gatherClues } from './clue-reads.js';
import { dueToJudge, tickAt, type LastJudged } from './due.js';
import type { Reading, WorkloadSource } from './sources.js';
import { rowOf, rulesOf, sourceFor, timeoutOf, type TrackDeps, type TrackTarget } from './target.js';

export type { TrackOptions };
export { rowOf, rulesOf, sourceFor, type TrackDeps, type TrackTarget };

/** The text shows a few log lines; the JSON report gets up to this many. */
export const JSON_LOG_LINES = 50;

export interface Tracked {
  target: TrackTarget;
  verdict: Verdict;
  diagnosis?: Diagnosis;
  elapsedMs: number;
  /** The new revision's pods as they were at the verdict. */
  newPods: Pod[];
}

interface Watch {
  target: TrackTarget;
  firstSeen: FirstSeen;
  /** What earlier polls and event reads said about the new pods. */
  clues: Clues;
  /** When each new pod's events were last read, and since when it has been waiting to start (by uid). */
  eventsReadAt: Map<string, number>;
  startingSince: Map<string, number>;
  reported: Set<string>;
  lastProgress: string;
  lastVerdict?: Verdict;
  /** The new revision's pods at the last look: where a bake (verify/bake.ts) starts from. */
  lastPods: Pod[];
  /** The object at the last look that found it, and whether the last look found it at all. */
  lastSeen?: KubeObject;
  present?: boolean;
  /** When it was last judged and what that read (due.ts). */
  judged?: LastJudged;
}

/**
 * After a look that took d ms of its own work, the next one waits for a change no sooner than this many
 * times d later: looks then take at most a fifth of a core, however many workloads wait and
 * however often the namespace changes (at 334 Deployments a look came every few ms, docs/performance.md).
 */
const LOOK_PAUSE_FACTOR = 4;

const FINAL_STATES = new Set<Verdict['state']>(['healthy', 'failed', 'timed-out', 'conflict', 'gone']);

export async function trackRollouts(
  targets: readonly TrackTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, Tracked>> {
  const source = sourceFor(targets, options, deps);
  try {
    return await trackFrom(source, targets, options, deps);
  } finally {
    // No kubectl of this tracking outlives it.
    await source.close();
  }
}

async function trackFrom(
  source: WorkloadSource,
  targets: readonly TrackTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, Tracked>> {
  const startedAt = deps.clock.now();
  const pending = new Map<string, Watch>(targets.map((target) => [objectKey(target.workload), newWatch(target)]));
  const done = new Map<string, Tracked>();
  const outages = new OutageNotes();

  while (pending.size > 0 && !deps.signal?.aborted) {
    const lookFrom = deps.clock.now();
    const snapshots = await source.read(typesToRead(pending.values()));
    const now = deps.clock.now();
    const due = dueNow(pending, snapshots, now, startedAt, options);
    // The look's own work (the watches' memory read, the judgements), not the events it waits for.
    let looking = deps.clock.now() - lookFrom;
    await gatherLook(due.values(), snapshots, now, outages, deps);
    const judgedFrom = deps.clock.now();
    const finals = finalVerdicts(due, snapshots, now, startedAt, options, deps);
    looking += deps.clock.now() - judgedFrom;
    // The evidence of every verdict reached at this look (events, logs), gathered at once.
    const finished = await Promise.all(
      finals.map(([, watch, verdict]) => finish(watch, verdict, now - startedAt, options, deps)),
    );
    finals.forEach(([key], index) => {
      done.set(key, finished[index]!);
      pending.delete(key);
    });
    const anyFailed = [...done.values()].some(
      ({ verdict }) => verdict.state === 'failed' || verdict.state === 'timed-out',
    );
    if (options.stopWhenAnyFails && anyFailed) {
      // The others are restored with the failing one; their last verdict says where they stood.
      for (const [key, watch] of pending) {
        if (watch.lastVerdict) done.set(key, stoodAt(watch, watch.lastVerdict, now - startedAt));
      }
      break;
    }
    if (pending.size > 0 && !deps.signal?.aborted) {
      // Never sleep past a deadline: the timeout verdict comes at the timeout, not a poll later.
      const deadline = Math.min(...[...pending.values()].map((watch) => timeoutOf(watch.target, options)));
      const untilDeadline = startedAt + deadline - deps.clock.now();
      // Nothing changed for a poll interval: a look for the rules of time alone (due.ts's ticks say whom it judges).
      const after = deps.clock.now();
      await source.changed(
        Math.max(0, Math.min(options.pollIntervalMs, untilDeadline)),
        after + looking * LOOK_PAUSE_FACTOR,
      );
    }
  }
  for (const [key, watch] of pending) {
    // Cancelled: where each rollout stood when kguard stopped watching.
    const verdict: Verdict = watch.lastVerdict ?? {
      state: 'progressing',
      progress: NO_PROGRESS,
      findings: [],
      waitingFor: 'not observed yet',
    };
    done.set(key, stoodAt(watch, verdict, deps.clock.now() - startedAt));
  }
  return done;
}

function newWatch(target: TrackTarget): Watch {
  return {
    target,
    firstSeen: new Map(),
    clues: NO_CLUES,
    eventsReadAt: new Map(),
    startingSince: new Map(),
    reported: new Set(),
    lastProgress: '',
    lastPods: [],
  };
}

/** The pending workloads this look judges (due.ts); each remembers what it read. */
function dueNow(
  pending: Map<string, Watch>,
  snapshots: Map<string, Reading>,
  now: number,
  startedAt: number,
  options: TrackOptions,
): Map<string, Watch> {
  const due = new Map<string, Watch>();
  const tick = tickAt(startedAt, now, options.pollIntervalMs);
  for (const [key, watch] of pending) {
    const judged = dueToJudge({
      workload: watch.target.workload,
      rules: rulesOf(watch.target),
      firstSeen: watch.firstSeen,
      last: watch.judged,
      snapshot: snapshots.get(watch.target.workload.namespace),
      now,
      tickAt: tick,
      deadlineAt: startedAt + timeoutOf(watch.target, options),
    });
    if (!judged) continue;
    watch.judged = judged;
    due.set(key, watch);
  }
  return due;
}

/** What one look reads: per namespace, every type a pending target's row reads. */
function typesToRead(watches: Iterable<Watch>): Map<string, string[]> {
  const typesByNamespace = new Map<string, Set<string>>();
  for (const { target } of watches) {
    const types = typesByNamespace.get(target.workload.namespace) ?? new Set<string>();
    for (const type of rowOf(target).reads(target.workload)) types.add(type);
    typesByNamespace.set(target.workload.namespace, types);
  }
  return new Map([...typesByNamespace].map(([namespace, types]) => [namespace, [...types]]));
}

/** After a look: every workload's clues, and a note for each namespace that stopped or started answering. */
async function gatherLook(
  watches: Iterable<Watch>,
  snapshots: Map<string, Reading>,
  now: number,
  outages: OutageNotes,
  deps: Pick<TrackDeps, 'kubectl' | 'reporter'>,
): Promise<void> {
  // Every workload's clues at once: each reads its unschedulable pods' events and one other pod's, through the pool.
  await Promise.all(
    [...watches].map(async (watch) => {
      const snapshot = snapshots.get(watch.target.workload.namespace);
      if (snapshot && !(snapshot instanceof Error))
        await gatherClues(watch, rulesOf(watch.target), snapshot, now, deps.kubectl);
    }),
  );
  for (const [namespace, snapshot] of snapshots) {
    const said = outages.see(
      namespace,
      snapshot instanceof Error ? snapshot : undefined,
      now,
      new Date().toISOString(),
    );
    if (said) deps.reporter.emit(said);
  }
}

/** Each pending workload judged on this look; those whose verdict is final. */
function finalVerdicts(
  pending: Map<string, Watch>,
  snapshots: Map<string, Reading>,
  now: number,
  startedAt: number,
  options: TrackOptions,
  deps: Pick<TrackDeps, 'reporter'>,
): Array<[string, Watch, Verdict]> {
  const finals: Array<[string, Watch, Verdict]> = [];
  for (const [key, watch] of pending) {
    const snapshot = snapshots.get(watch.target.workload.namespace);
    const verdict =
      snapshot === undefined || snapshot instanceof Error
        ? unreachableVerdict(watch, snapshot, now - startedAt >= timeoutOf(watch.target, options))
        : observe(watch, snapshot, now, startedAt, options, deps.reporter);
    if (verdict && FINAL_STATES.has(verdict.state)) finals.push([key, watch, verdict]);
  }
  return finals;
}

/** Where a workload stood when kguard stopped watching it. */
function stoodAt(watch: Watch, verdict: Verdict, elapsedMs: number): Tracked {
  return { target: watch.target, verdict, elapsedMs, newPods: watch.lastPods };
}

function observe(
  watch: Watch,
  snapshot: WorkloadSnapshot,
  now: number,
  startedAt: number,
  options: TrackOptions,
  reporter: Reporter,
): Verdict {
  const { workload, expected } = watch.target;
  const rules = rulesOf(watch.target);
  const observation = { object: findObject(snapshot, workload), snapshot, clues: watch.clues };
  const moment = { now, startedAt, timeoutMs: timeoutOf(watch.target, options) };
  const verdict = judge(rules, observation, expected, watch.firstSeen, moment);
  watch.present = observation.object !== undefined;
  if (observation.object) watch.lastSeen = observation.object;
  watch.firstSeen = rememberSeen(rules, watch.firstSeen, verdict, now, observation, expected);
  watch.lastVerdict = verdict;
  watch.lastPods = newPodsOf(rules, observation.object, snapshot);
  // A verdict reached at this poll says it all in its own block; earlier warnings are for waits.
  const final = verdict.state === 'failed' || verdict.state === 'timed-out';
  for (const finding of final ? [] : verdict.findings) {
    // One line per container and reason: ten replicas failing alike are one problem.
    const key = `${finding.container ?? ''}/${finding.reason}`;
    // Not-ready is normal while pods start; it is only worth saying in a timeout's diagnosis.
    if (watch.reported.has(key) || finding.rule.category === 'not-ready') continue;
    watch.reported.add(key);
    reporter.emit({ kind: 'pod-problem', workload, finding, phase: options.watching });
  }
  // Notes are said once each (a pod its node evicted, an autoscaler's replicas).
  for (const text of verdict.notes ?? []) {
    if (watch.reported.has(`note:${text}`)) continue;
    watch.reported.add(`note:${text}`);
    reporter.emit({ kind: 'note', workload, text, phase: options.watching });
  }
  const waitingFor = verdict.state === 'progressing' ? verdict.waitingFor : undefined;
  if (waitingFor !== undefined) {
    const text = `${verdict.progress.revision ?? ''}|${verdict.progress.ready}/${verdict.progress.desired}|${waitingFor}`;
    if (text !== watch.lastProgress) {
      watch.lastProgress = text;
      reporter.emit({ kind: 'progress', workload, progress: verdict.progress, waitingFor, phase: options.watching });
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
    progress: last && 'progress' in last ? last.progress : NO_PROGRESS,
    findings: last && 'findings' in last ? last.findings : [],
    waitingFor: `no answer from the API server (${error?.message ?? 'no answer'})`,
  };
}

/**
 * A gone object whose kind may vanish once done (a Job its TTL deleted after it completed): its
 * events, read once now, tell; otherwise it stays someone else's delete.
 */
async function goneWhenDone(watch: Watch, verdict: Verdict, kubectl: TrackDeps['kubectl']): Promise<Verdict> {
  const rule = rowOf(watch.target).goneWhenDone;
  const { applied } = watch.target.expected;
  if (verdict.state !== 'gone' || watch.present !== false || !rule?.mayVanish(applied)) return verdict;
  const events = await kubectl.events(watch.target.workload.namespace, watch.target.workload.name).catch(() => []);
  const detail = rule.judge(applied, watch.lastSeen, events);
  return detail ? { state: 'healthy', progress: { ...NO_PROGRESS, summary: detail }, findings: [], detail } : verdict;
}

/** The verdict is final: gather its evidence (events, logs) while the pods still exist, and say it. */
async function finish(
  watch: Watch,
  finalVerdict: Verdict,
  elapsedMs: number,
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Tracked> {
  const { workload } = watch.target;
  const verdict = await goneWhenDone(watch, finalVerdict, deps.kubectl);
  let events: KubeEvent[] = [];
  const firstDiagnosis = diagnose(verdict, [], workload);
  if (firstDiagnosis?.pod) {
    // Events are evidence, not a verdict: without them the diagnosis still stands.
    events = await deps.kubectl.events(workload.namespace, firstDiagnosis.pod).catch(() => []);
  } else if (verdict.state === 'failed' && verdict.cause.source === 'condition') {
    // No pod to blame: the object's own events say why (a Service's SyncLoadBalancerFailed).
    const own = await deps.kubectl.events(workload.namespace, workload.name).catch(() => []);
    events = own.filter((event) => event.involvedObject?.kind === workload.kind);
  }
  const logs = await readLogs(verdict, workload.namespace, options.logLines, deps.kubectl);
  const diagnosis = diagnose(verdict, events, workload, logs);
  if (options.watching === 'rollout' && diagnosis && (verdict.state === 'failed' || verdict.state === 'timed-out')) {
    deps.reporter.emit({ kind: verdict.state, workload, diagnosis, elapsedMs });
  }
  return { target: watch.target, verdict, diagnosis, elapsedMs, newPods: watch.lastPods };
}

/** The last lines of each failing container that ran, read before a restore removes its pod. */
async function readLogs(
  verdict: Verdict,
  namespace: string,
  shown: number,
  kubectl: TrackDeps['kubectl'],
): Promise<ContainerLog[]> {
  const read = kubectl.logs?.bind(kubectl);
  if (!read || shown <= 0) return [];
  const tail = Math.max(shown, JSON_LOG_LINES);
  return Promise.all(
    logTargets(verdict).map(async ({ pod, container, previous }): Promise<ContainerLog> => {
      const result = await read(namespace, pod, container, { tail, previous }).catch((error: unknown) => ({
        ok: false as const,
        error: error instanceof Error ? error.message : String(error),
      }));
      return result.ok
        ? { pod, container, previous, lines: splitLines(result.text).slice(-tail), shown }
        : { pod, container, previous, lines: [], shown, error: splitLines(result.error)[0] ?? '' };
    }),
  );
}
