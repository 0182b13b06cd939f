// The verdict every kind shares, from one observation: someone else's change wins; the object's
// own failure (a condition, a phase) ends it; a fatal reason on a pod of its new revision ends
// it; otherwise it is done when the kind's rule says so (the rule of its `kubectl rollout status`
// viewer where there is one), timed out at the deadline, or still progressing. Each kind brings
// only its rules (a row of table.ts); every step is here, once. Pure.
import { NO_CLUES, type Clues } from '../classify/clues.js';
import { classifyPod, findingKey, findingKeyParts } from '../classify/pod.js';
import { terminationOf, terminationNote } from '../classify/terminated.js';
import { conditionOf, type Pod } from '../kube.js';
import type { FatalPolicy, Finding } from '../model/findings.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { Cause, Expectation, FirstSeen, Moment, Progress, RolloutVerdict, Verdict } from '../model/verdict.js';
import { autoscalerNote, changeSinceApply } from '../objects/owners.js';
import type { KubeObject } from '../objects/model.js';
import { podsNamed } from './look-index.js';
import { statusWrittenSince, writeChangedGeneration } from './status-moment.js';

/** One look, as a kind sees it: its object (if it still exists) and what else was read in its namespace. */
export interface KindObservation {
  object: KubeObject | undefined;
  snapshot: WorkloadSnapshot;
  /** What earlier looks and event reads said about the new pods (classify/clues.ts). */
  clues?: Clues;
}

export type ConditionCause = Extract<Cause, { source: 'condition' }>;

/** What a kind decides; everything else is shared. `T` is the kind's typed view of the object. */
export interface RolloutRules<T> {
  /** Who writes the status, for "waiting for the … to observe generation N". */
  controller: string;
  /** Whether the status describes the applied spec (observedGeneration caught up, where the kind has it). */
  observed(object: T): boolean;
  /** The pods of the new revision: only their problems count, and only theirs are read for clues. */
  newPods(object: T, snapshot: WorkloadSnapshot): Pod[];
  /** What the rollout still waits for, in its viewer's words; undefined when it is done. */
  wait(object: T, snapshot: WorkloadSnapshot, expected?: Expectation): string | undefined;
  /** What a healthy verdict adds on the object's line: a failure that stood before the apply and that it did not cause. */
  note?(object: T, snapshot: WorkloadSnapshot, expected: Expectation): string | undefined;
  /**
   * The object's own word that this rollout failed (a Deployment's ProgressDeadlineExceeded, a
   * Job's Failed condition, a pod's phase Failed, Stalled). `expected` tells this rollout's from an older one's.
   */
  failure(object: T, snapshot: WorkloadSnapshot, expected: Expectation): ConditionCause | undefined;
  progress(object: T, snapshot: WorkloadSnapshot): Progress;
  /** Findings this kind's controller judges by itself (a Job's backoffLimit judges crashes): reported, never fatal alone. */
  judgesItself?(finding: Finding): boolean;
  /** Findings besides the classifier's, for evidence (a Job's containers that exited with an error). */
  evidence?(object: T, pods: readonly Pod[]): Finding[];
  /** The revision live before the apply, said when tracking starts. */
  revision?(before: T): number | string | undefined;
  /**
   * Its new pods serve while it runs (Deployment, StatefulSet, DaemonSet, ReplicaSet): it is not
   * healthy while one of them is not ready or a container of it is not running, whatever the
   * controller's counters say (they trail the pods: a container without a readiness probe that
   * exits a second after it starts is still counted available).
   */
  servingPods?: boolean;
  /**
   * kguard.dev/failures-allowed: how many crashes of a new pod's container are tolerated (an app
   * that crash-loops while a dependency starts). A crash is fatal only past that many restarts, however long it lasts.
   */
  failuresAllowed?: number;
  /** --readiness-grace: a new pod that runs but is not Ready (its readiness probe fails) fails the rollout after this long. */
  readinessGraceSeconds?: number;
  /**
   * What a wait still open at the object's deadline means, when it is a failure of the object's
   * own rather than a slow rollout (a LoadBalancer Service with no address, as krane's and Helm's
   * waits end): undefined, a plain timeout.
   */
  atDeadline?(object: T, snapshot: WorkloadSnapshot, timeoutMs: number): ConditionCause | undefined;
  /**
   * Its controller has yet to write a first status (a custom resource of a kind whose API serves a
   * status subresource, read before its first reconcile): waited for up to `graceSeconds`, then
   * judged by what there is, and said so. kstatus reads no status as Current at once
   * (fluxcd/kustomize-controller#387), so a verdict depended on when kguard first looked.
   */
  firstStatus?: { missing(object: T): boolean; graceSeconds: number };
  /**
   * Its controller answers a new generation with a status some time after kguard's write (a custom
   * resource): where the status does not say which generation it judged (`reportsGeneration`),
   * it counts only once written after kguard's write (status-moment.ts), waited for up to
   * `graceSeconds` (--status-grace, at most the object's deadline); then the standing one is
   * judged, and the verdict says so.
   */
  freshStatus?: { reportsGeneration(object: T): boolean; graceSeconds: number };
  /**
   * Its rules read the look only through its own object and what it controls (look-index.ts
   * podsControlledBy, objectsControlledBy): a look that finds none of those copies changed skips
   * it until the poll interval is up or its deadline comes (track/due.ts).
   */
  readsOwnedOnly?: boolean;
}

export const NO_PROGRESS: Progress = { desired: 0, updated: 0, ready: 0, available: 0 };

export function judge<T>(
  rules: RolloutRules<T>,
  observation: KindObservation,
  expected: Expectation,
  firstSeen: FirstSeen,
  moment: Moment,
): RolloutVerdict {
  const { object, snapshot } = observation;
  // Someone else's change wins: kguard never overwrites it.
  const change = changeSinceLook(expected, object);
  if (change || !object) {
    const progress =
      change?.state === 'conflict' && object ? rules.progress(object as unknown as T, snapshot) : NO_PROGRESS;
    return { state: change?.state ?? 'gone', progress, findings: [], detail: change?.detail ?? 'it was deleted' };
  }
  const typed = object as unknown as T;
  const progress = rules.progress(typed, snapshot);
  const answer = answerOf(rules, typed, expected, moment);
  const pods = newPodsOf(rules, typed, snapshot);
  // What was seen and is no reason to wait, said on the object's line.
  const notes = [
    ...terminatedNotes(rules, typed, snapshot),
    ...autoscalerNote(expected.applied, object, expected.ours, expected.before),
  ];
  const verdict = judgePods(rules, observation, expected, firstSeen, moment, pods, progress, answer);
  return notes.length > 0 ? { ...verdict, notes } : verdict;
}

function judgePods<T>(
  rules: RolloutRules<T>,
  observation: KindObservation,
  expected: Expectation,
  firstSeen: FirstSeen,
  moment: Moment,
  pods: Pod[],
  progress: Progress,
  answer: StatusAnswer,
): RolloutVerdict {
  const object = observation.object as KubeObject;
  const { snapshot } = observation;
  const typed = object as unknown as T;
  const observed = rules.observed(typed) && answer !== 'awaited';
  const findings = [
    ...pods.flatMap((pod) => classifyPod(pod, observation.clues ?? NO_CLUES)),
    ...(rules.evidence?.(typed, pods) ?? []),
  ];

  const condition = observed ? rules.failure(typed, snapshot, expected) : undefined;
  if (condition && isFatalNow(condition.rule.policy, firstSeen.get(condition.reason), moment.now)) {
    const cause = answer === 'standing' ? { ...condition, message: `${condition.message} (${STANDING})` } : condition;
    return { state: 'failed', progress, findings, cause };
  }
  const fatal = findings.find(
    (finding) =>
      !rules.judgesItself?.(finding) &&
      isFatalNow(
        policyOf(rules, finding),
        firstSeen.get(findingKey(finding)),
        moment.now,
        finding.restartCount,
        podsShowing(finding, findings),
      ),
  );
  if (fatal) return { state: 'failed', progress, findings, cause: { source: 'pod', finding: fatal } };

  const generation = object.metadata.generation;
  const silent = observed && rules.firstStatus?.missing(typed) === true;
  const graceMs = (rules.firstStatus?.graceSeconds ?? 0) * 1000;
  const waitingFor = !observed
    ? answer === 'awaited'
      ? `waiting for the ${rules.controller} to answer generation ${generation ?? '?'} (its status names no generation, and the one there was written before kguard's write)`
      : `waiting for the ${rules.controller} to observe generation ${generation ?? '?'}`
    : silent && moment.now - moment.startedAt < graceMs
      ? `waiting for the ${rules.controller} to write its first status`
      : (rules.wait(typed, snapshot, expected) ?? (rules.servingPods ? notServing(pods) : undefined));
  if (waitingFor === undefined) {
    if (silent)
      return {
        state: 'healthy',
        progress,
        findings,
        detail: `the ${rules.controller} wrote no status in ${graceMs / 1000}s: judged by kstatus without one`,
      };
    if (answer === 'standing') return { state: 'healthy', progress, findings, detail: STANDING };
    const note = rules.note?.(typed, snapshot, expected);
    if (note !== undefined) return { state: 'healthy', progress, findings, detail: note };
    return { state: 'healthy', progress, findings };
  }
  if (moment.now - moment.startedAt >= moment.timeoutMs) {
    const cause = observed ? rules.atDeadline?.(typed, snapshot, moment.timeoutMs) : undefined;
    if (cause) return { state: 'failed', progress, findings, cause };
    return { state: 'timed-out', progress, findings, waitingFor };
  }
  return { state: 'progressing', progress, findings, waitingFor };
}

type StatusAnswer = 'current' | 'awaited' | 'standing';

const STANDING = 'no status written since the apply; judged on the one from before';

/**
 * Whether the status answers kguard's write (status-moment.ts): 'current' (it names the
 * generation, or was written since, or the write changed no generation), 'awaited' (not yet,
 * within the wait), 'standing' (the wait ended without an answer: the one there is judged).
 */
function answerOf<T>(rules: RolloutRules<T>, object: T, expected: Expectation, moment: Moment): StatusAnswer {
  const fresh = rules.freshStatus;
  // No status at all yet: the first-status wait (firstStatus) speaks for it.
  if (!fresh || fresh.reportsGeneration(object) || rules.firstStatus?.missing(object)) return 'current';
  const live = object as unknown as KubeObject;
  if (!writeChangedGeneration(expected.applied, expected.generationBefore)) return 'current';
  if (statusWrittenSince(expected.applied, live)) return 'current';
  const windowMs = Math.min(fresh.graceSeconds * 1000, moment.timeoutMs);
  return moment.now - moment.startedAt < windowMs ? 'awaited' : 'standing';
}

/**
 * The new revision's pods that count, once the controller has observed the applied spec: not
 * going away, and, for a kind whose pods serve, counted by its controller (IsPodActive,
 * classify/terminated.ts) unless the pod ended for the release's own reason.
 */
export function newPodsOf<T>(rules: RolloutRules<T>, object: T | undefined, snapshot: WorkloadSnapshot): Pod[] {
  if (object === undefined || !rules.observed(object)) return [];
  return rules
    .newPods(object, snapshot)
    .filter((pod) => !pod.metadata.deletionTimestamp && (!rules.servingPods || terminationOf(pod)?.own !== false));
}

/** The new pods that ended for a reason not the release's (its node evicted it, rejected it, shut down): notes, never a wait. */
export function terminatedNotes<T>(
  rules: RolloutRules<T>,
  object: T | undefined,
  snapshot: WorkloadSnapshot,
): string[] {
  if (!rules.servingPods || object === undefined || !rules.observed(object)) return [];
  return rules.newPods(object, snapshot).flatMap((pod) => {
    const termination = terminationOf(pod);
    return termination && !termination.own ? [terminationNote(pod, termination)] : [];
  });
}

/**
 * Remembers when each finding's family and failing condition were first seen; forgets a finding
 * once its pod is gone or its container ready. A container that alternates between failing and
 * briefly running (a crash loop, a pull retry) keeps its first time, so grace periods cannot
 * restart with every flap.
 */
export function rememberSeen<T>(
  rules: RolloutRules<T>,
  firstSeen: FirstSeen,
  verdict: RolloutVerdict,
  now: number,
  observation: KindObservation,
  expected: Expectation,
): Map<string, number> {
  const keys = verdict.findings.map((finding) => findingKey(finding));
  const object = observation.object as unknown as T | undefined;
  if (object !== undefined && rules.observed(object)) {
    const condition = rules.failure(object, observation.snapshot, expected);
    if (condition) keys.push(condition.reason);
  }
  const next = new Map<string, number>();
  for (const key of keys) next.set(key, firstSeen.get(key) ?? now);
  for (const [key, since] of firstSeen) {
    if (!next.has(key) && stillFailing(key, observation.snapshot.pods)) next.set(key, since);
  }
  return next;
}

/** Whether the pod (and container) a remembered finding key names still exists and is not ready. */
function stillFailing(key: string, pods: readonly Pod[]): boolean {
  const { pod: podName, container } = findingKeyParts(key);
  const pod = podsNamed(pods, podName).find((candidate) => !candidate.metadata.deletionTimestamp);
  if (!pod) return false;
  if (!container) return conditionOf(pod, 'Ready')?.status !== 'True';
  const status = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
    (candidate) => candidate.name === container,
  );
  return status !== undefined && status.ready !== true;
}

/** How many pods of the new revision show the same problem (for policies that count pods: evictions). */
function podsShowing(finding: Finding, findings: readonly Finding[]): number {
  return new Set(
    findings
      .filter((other) => other.reason === finding.reason && other.rule === finding.rule)
      .map((other) => other.pod),
  ).size;
}

/** What a new pod still lacks to serve: Ready, and every container running and ready. */
function notServing(pods: readonly Pod[]): string | undefined {
  for (const pod of pods) {
    // Ended for the release's own reason (its own limit): its replacement is what is waited for.
    const ended = terminationOf(pod);
    if (ended) return `new pod ${pod.metadata.name} ${ended.how}`;
    const containers = pod.status?.containerStatuses ?? [];
    const down = containers.find((status) => status.state?.running === undefined || status.ready !== true);
    if (down)
      return `container ${down.name} of new pod ${pod.metadata.name} is not ${down.state?.running === undefined ? 'running' : 'ready'} (the controller still counts it)`;
    if (conditionOf(pod, 'Ready')?.status !== 'True')
      return `new pod ${pod.metadata.name} is not ready (the controller still counts it)`;
  }
  return undefined;
}

/** A finding's policy, with the object's tolerance of crashes (kguard.dev/failures-allowed) applied. */
function policyOf<T>(rules: RolloutRules<T>, finding: Finding): FatalPolicy {
  if (rules.readinessGraceSeconds !== undefined && finding.reason === 'ContainersNotReady')
    return { when: 'after', seconds: rules.readinessGraceSeconds };
  if (rules.failuresAllowed === undefined || finding.family !== 'crash') return finding.policy;
  return { when: 'after', seconds: Number.POSITIVE_INFINITY, restarts: rules.failuresAllowed + 1 };
}

/** Whether a finding or condition, first seen at `since`, has become fatal by `now`. */
export function isFatalNow(
  policy: FatalPolicy,
  since: number | undefined,
  now: number,
  restartCount = 0,
  pods = 1,
): boolean {
  if (policy.when === 'now') return true;
  if (policy.when === 'never') return false;
  if (policy.restarts !== undefined && restartCount >= policy.restarts) return true;
  if (policy.pods !== undefined && pods >= policy.pods) return true;
  return since !== undefined && now - since >= policy.seconds * 1000;
}

/**
 * changeSinceApply, once per copy of the object: a look judges every pending workload, most of
 * them unchanged since the last look (the same copy), and comparing each whole object again took
 * seconds of CPU a run at 100 Deployments (docs/performance.md).
 */
const changesSeen = new WeakMap<KubeObject, { expected: Expectation; change: ReturnType<typeof changeSinceApply> }>();

function changeSinceLook(expected: Expectation, object: KubeObject | undefined): ReturnType<typeof changeSinceApply> {
  if (!object) return changeSinceApply(expected.applied, object, expected.ours);
  const seen = changesSeen.get(object);
  if (seen?.expected === expected) return seen.change;
  const change = changeSinceApply(expected.applied, object, expected.ours);
  changesSeen.set(object, { expected, change });
  return change;
}

/** What a verdict says in words, when it says anything beyond its state. */
export function verdictText(verdict: Verdict): string | undefined {
  if ('detail' in verdict) return verdict.detail;
  if ('waitingFor' in verdict) return verdict.waitingFor;
  if (verdict.state === 'failed' && (verdict.cause.source === 'apply' || verdict.cause.source === 'internal'))
    return verdict.cause.message;
  return undefined;
}
