// The verdict every kind shares, from one observation: someone else's change wins; the object's
// own failure (a condition, a phase) ends it; a fatal reason on a pod of its new revision ends
// it; otherwise it is done when the kind's rule says so (the rule of its `kubectl rollout status`
// viewer where there is one), timed out at the deadline, or still progressing. Each kind brings
// only its rules (kinds/*.ts); Deployment's verdictFor (verdict.ts) takes the same steps. Pure.
import { NO_CLUES, type Clues } from '../classify/clues.js';
import { classifyPod, findingKey, type Finding } from '../classify/pod.js';
import type { Pod } from '../kube.js';
import type { WorkloadSnapshot } from '../kubectl/client.js';
import { changeSinceApply } from '../objects/compare.js';
import type { KubeObject } from '../objects/model.js';
import { isFatalNow, type Cause, type Expectation, type FirstSeen, type Moment, type Progress, type Verdict } from './verdict.js';

/** One poll, as a kind sees it: its object (if it still exists) and what else was read in its namespace. */
export interface KindObservation {
  object: KubeObject | undefined;
  snapshot: WorkloadSnapshot;
  /** What earlier polls and event reads said about the new pods (classify/clues.ts). */
  clues?: Clues;
}

export type ConditionCause = Extract<Cause, { source: 'condition' }>;

/** What a kind decides; everything else is shared. `T` is the kind's typed view of the object. */
export interface RolloutRules<T> {
  /** Who writes the status, for "waiting for the … to observe generation N". */
  controller: string;
  /** Whether the status describes the applied spec (observedGeneration caught up, where the kind has it). */
  observed(object: T): boolean;
  /** The pods of the new revision: only their problems count. */
  newPods(object: T, snapshot: WorkloadSnapshot): Pod[];
  /** What the rollout still waits for, in its viewer's words; undefined when it is done. */
  wait(object: T, snapshot: WorkloadSnapshot): string | undefined;
  /** The object's own word that it failed (a Job's Failed condition, a pod's phase Failed, Stalled). */
  failure(object: T, snapshot: WorkloadSnapshot): ConditionCause | undefined;
  progress(object: T, snapshot: WorkloadSnapshot): Progress;
  /** Findings this kind's controller judges by itself (a Job's backoffLimit judges crashes): reported, never fatal alone. */
  judgesItself?(finding: Finding): boolean;
  /** Findings besides the classifier's, for evidence (a Job's containers that exited with an error). */
  evidence?(object: T, pods: readonly Pod[]): Finding[];
}

const NO_PROGRESS: Progress = { desired: 0, updated: 0, ready: 0, available: 0 };

export function judge<T>(rules: RolloutRules<T>, observation: KindObservation, expected: Expectation, firstSeen: FirstSeen, moment: Moment): Verdict {
  const { object, snapshot } = observation;
  // Someone else's change wins: kguard never overwrites it (verdict.ts someoneElsesChange).
  const change = changeSinceApply(expected.applied, object);
  if (change || !object) {
    const progress = change?.state === 'conflict' && object ? rules.progress(object as unknown as T, snapshot) : NO_PROGRESS;
    return { state: change?.state ?? 'gone', progress, findings: [], detail: change ? `${change.detail} while kguard watched` : 'it was deleted' };
  }
  const typed = object as unknown as T;
  const progress = rules.progress(typed, snapshot);
  const observed = rules.observed(typed);
  const pods = observed ? rules.newPods(typed, snapshot).filter((pod) => !pod.metadata.deletionTimestamp) : [];
  const findings = [...pods.flatMap((pod) => classifyPod(pod, observation.clues ?? NO_CLUES)), ...(rules.evidence?.(typed, pods) ?? [])];

  const condition = observed ? rules.failure(typed, snapshot) : undefined;
  if (condition && isFatalNow(condition.rule.policy, firstSeen.get(condition.reason), moment.now)) {
    return { state: 'failed', progress, findings, cause: condition };
  }
  const fatal = findings.find(
    (finding) => !rules.judgesItself?.(finding) && isFatalNow(finding.policy, firstSeen.get(findingKey(finding)), moment.now, finding.restartCount),
  );
  if (fatal) return { state: 'failed', progress, findings, cause: { source: 'pod', finding: fatal } };

  const generation = object.metadata.generation;
  const waitingFor = observed ? rules.wait(typed, snapshot) : `waiting for the ${rules.controller} to observe generation ${generation ?? '?'}`;
  if (waitingFor === undefined) return { state: 'healthy', progress, findings };
  if (moment.now - moment.startedAt >= moment.timeoutMs) return { state: 'timed-out', progress, findings, waitingFor };
  return { state: 'progressing', progress, findings, waitingFor };
}

/** When each finding and failing condition was first seen; what went away is forgotten. */
export function rememberSeen<T>(rules: RolloutRules<T>, firstSeen: FirstSeen, verdict: Verdict, now: number, observation: KindObservation): Map<string, number> {
  const keys = verdict.findings.map(findingKey);
  if (observation.object && rules.observed(observation.object as unknown as T)) {
    const condition = rules.failure(observation.object as unknown as T, observation.snapshot);
    if (condition) keys.push(condition.reason);
  }
  const next = new Map<string, number>();
  for (const key of keys) next.set(key, firstSeen.get(key) ?? now);
  return next;
}

/** Pods controlled by the object (the controller's ownerReference), as the tracker read them. */
export function podsControlledBy(object: { metadata: { uid?: string } }, pods: readonly Pod[]): Pod[] {
  const uid = object.metadata.uid;
  if (!uid) return [];
  return pods.filter((pod) => (pod.metadata.ownerReferences ?? []).some((owner) => owner.controller === true && owner.uid === uid));
}
