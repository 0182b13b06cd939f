// Decides, from one observation of a Deployment, its ReplicaSets and its pods, where the rollout
// stands. Pure: the caller passes the time and what it remembers from earlier polls.
import { NO_CLUES, type Clues } from '../classify/clues.js';
import { classifyPod, findingKey, type Finding } from '../classify/pod.js';
import { DEPLOYMENT_CONDITION_REASONS, type FatalPolicy, type ReasonRule } from '../classify/table.js';
import type { Condition, Deployment, Pod, ReplicaSet } from '../kube.js';
import { conditionOf, isControlledBy, revisionOf } from '../kube.js';
import { changeSinceApply } from '../objects/compare.js';
import type { KubeObject } from '../objects/model.js';
import { canonicalTemplate, newReplicaSetFor } from './template.js';

/** What kguard expects the Deployment to look like: as it was right after the apply (or the undo). */
export interface Expectation {
  uid: string;
  generation: number;
  template: string;
  /** The object as kguard left it (applied or restored): any other change is someone else's. */
  applied: KubeObject;
}

export interface Observation {
  deployment: Deployment | undefined;
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  /** What earlier polls and events said about the pods (classify/clues.ts). */
  clues?: Clues;
}

export interface Moment {
  now: number;
  startedAt: number;
  timeoutMs: number;
}

/** When each finding's family (by findingKey) was first seen failing, in clock milliseconds. */
export type FirstSeen = ReadonlyMap<string, number>;

export interface Progress {
  /** The Deployment's revision number, or the name of a StatefulSet's or DaemonSet's ControllerRevision. */
  revision?: number | string;
  newReplicaSet?: string;
  /** How far it is, in the kind's own words ("2/3 pods updated", "0/1 completions"); without it, ready/desired pods. */
  summary?: string;
  desired: number;
  updated: number;
  ready: number;
  available: number;
}

export type Cause =
  | { source: 'pod'; finding: Finding }
  | { source: 'deployment'; reason: string; message: string; rule: ReasonRule }
  /** A condition or phase of another kind that ends its rollout (a Job's Failed, kstatus Stalled). */
  | { source: 'condition'; reason: string; message: string; rule: ReasonRule };

export type Verdict =
  | { state: 'progressing'; progress: Progress; findings: Finding[]; waitingFor: string }
  | { state: 'healthy'; progress: Progress; findings: Finding[] }
  | { state: 'failed'; progress: Progress; findings: Finding[]; cause: Cause }
  | { state: 'timed-out'; progress: Progress; findings: Finding[]; waitingFor: string }
  | { state: 'conflict'; progress: Progress; findings: Finding[]; detail: string }
  | { state: 'gone'; progress: Progress; findings: Finding[]; detail: string };

export function expectationOf(deployment: Deployment): Expectation {
  return {
    uid: deployment.metadata.uid ?? '',
    generation: deployment.metadata.generation ?? 0,
    template: canonicalTemplate(deployment.spec?.template),
    applied: deployment as unknown as KubeObject,
  };
}

/**
 * Whether the Deployment is no longer the one kguard applied: deleted, replaced, or changed by
 * someone else (spec, labels or annotations; status and controller metadata do not count).
 * Someone else's change wins: kguard never overwrites it.
 */
export function someoneElsesChange(
  deployment: Deployment | undefined,
  expected: Expectation,
): { state: 'gone' | 'conflict'; detail: string } | undefined {
  const change = changeSinceApply(expected.applied, deployment as unknown as KubeObject | undefined);
  return change ? { state: change.state, detail: change.detail } : undefined;
}

export function verdictFor(observation: Observation, expected: Expectation, firstSeen: FirstSeen, moment: Moment): Verdict {
  const { deployment } = observation;
  const change = someoneElsesChange(deployment, expected);
  if (change || !deployment) {
    const progress =
      change?.state === 'conflict' && deployment
        ? progressOf(deployment, observation.replicaSets)
        : { desired: 0, updated: 0, ready: 0, available: 0 };
    return { state: change?.state ?? 'gone', progress, findings: [], detail: change?.detail ?? 'it was deleted' };
  }
  const progress = progressOf(deployment, observation.replicaSets);
  const generation = deployment.metadata.generation ?? 0;
  const newReplicaSet = newReplicaSetFor(deployment, observation.replicaSets);
  const findings = newReplicaSet ? newPodFindings(newReplicaSet, observation.pods, observation.clues) : [];
  const observed = (deployment.status?.observedGeneration ?? 0) >= generation;

  // A deployment condition of this rollout decides first: ProgressDeadlineExceeded is the controller's own verdict.
  const condition = observed ? deploymentCause(deployment, expected, newReplicaSet?.metadata.name) : undefined;
  if (condition && isFatalNow(condition.rule.policy, firstSeen.get(condition.reason), moment.now)) {
    return { state: 'failed', progress, findings, cause: condition };
  }
  const fatal = findings.find((finding) =>
    isFatalNow(finding.policy, firstSeen.get(findingKey(finding)), moment.now, finding.restartCount, podsShowing(finding, findings)),
  );
  if (fatal) return { state: 'failed', progress, findings, cause: { source: 'pod', finding: fatal } };

  const waitingFor = observed ? rolloutWait(deployment, newReplicaSet) : 'waiting for the deployment controller to observe the new generation';
  if (waitingFor === undefined) return { state: 'healthy', progress, findings };
  if (moment.now - moment.startedAt >= moment.timeoutMs) return { state: 'timed-out', progress, findings, waitingFor };
  return { state: 'progressing', progress, findings, waitingFor };
}

/**
 * Remembers when each finding's family first failed; forgets it once the pod is gone or the
 * container is ready. A container that alternates between failing and briefly running (a crash
 * loop, a pull retry) keeps its first time, so grace periods cannot restart with every flap.
 */
export function rememberFindings(
  firstSeen: FirstSeen,
  verdict: Verdict,
  now: number,
  deployment?: Deployment,
  pods?: readonly Pod[],
): Map<string, number> {
  const next = new Map<string, number>();
  const keys = verdict.findings.map(findingKey);
  const condition = deployment ? failingCondition(deployment) : undefined;
  if (condition?.reason) keys.push(condition.reason);
  for (const key of keys) next.set(key, firstSeen.get(key) ?? now);
  if (pods) {
    for (const [key, since] of firstSeen) {
      if (!next.has(key) && stillFailing(key, pods)) next.set(key, since);
    }
  }
  return next;
}

/** Whether the pod (and container) a remembered key names still exists and is not ready. */
function stillFailing(key: string, pods: readonly Pod[]): boolean {
  const [podName, container] = key.split('/');
  const pod = pods.find((candidate) => candidate.metadata.name === podName && !candidate.metadata.deletionTimestamp);
  if (!pod) return false;
  if (!container) return conditionOf(pod, 'Ready')?.status !== 'True';
  const status = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
    (candidate) => candidate.name === container,
  );
  return status !== undefined && status.ready !== true;
}

/** What `kubectl rollout status` would still wait for, or undefined when the rollout is complete. */
export function rolloutWait(deployment: Deployment, newReplicaSet?: ReplicaSet): string | undefined {
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const total = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  // A paused Deployment never progresses: say so rather than wait silently (kubectl does wait).
  if (deployment.spec?.paused) return `the Deployment is paused: kubectl rollout resume deployment/${deployment.metadata.name}`;
  // Same checks, in the same order, as kubectl's DeploymentStatusViewer.
  if (updated < desired) return `${updated} out of ${desired} new replicas have been updated`;
  if (total > updated) return `${total - updated} old replicas are pending termination`;
  if (available < updated) {
    // The progress line counts ready pods of the new ReplicaSet; "available" is the Deployment's
    // count, which trails readiness by minReadySeconds and by the controller's next status
    // update. Say which, rather than print "2/2 ready: 0 of 2 available" as a contradiction.
    const ready = newReplicaSet?.status?.readyReplicas ?? 0;
    if (ready >= updated) {
      const minReady = deployment.spec?.minReadySeconds ?? 0;
      return minReady > 0
        ? `${available} of ${updated} updated replicas are available: ready pods count as available after minReadySeconds (${minReady}s)`
        : `${available} of ${updated} updated replicas counted available so far: waiting for the deployment controller to count the ready pods`;
    }
    return `${available} of ${updated} updated replicas are available`;
  }
  return undefined;
}

function progressOf(deployment: Deployment, replicaSets: readonly ReplicaSet[]): Progress {
  const newReplicaSet = newReplicaSetFor(deployment, replicaSets);
  const observed = (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  return {
    revision: newReplicaSet ? revisionOf(newReplicaSet) : undefined,
    newReplicaSet: newReplicaSet?.metadata.name,
    desired: deployment.spec?.replicas ?? 1,
    updated: observed ? deployment.status?.updatedReplicas ?? 0 : 0,
    ready: newReplicaSet?.status?.readyReplicas ?? 0,
    available: newReplicaSet?.status?.availableReplicas ?? 0,
  };
}

function newPodFindings(newReplicaSet: ReplicaSet, pods: readonly Pod[], clues: Clues | undefined): Finding[] {
  return pods
    .filter((pod) => isControlledBy(pod, newReplicaSet.metadata.uid) && !pod.metadata.deletionTimestamp)
    .flatMap((pod) => classifyPod(pod, clues ?? NO_CLUES));
}

/** How many pods of the new revision show the same problem (for policies that count pods: evictions). */
function podsShowing(finding: Finding, findings: readonly Finding[]): number {
  return new Set(findings.filter((other) => other.reason === finding.reason && other.rule === finding.rule).map((other) => other.pod)).size;
}

function failingCondition(deployment: Deployment): Condition | undefined {
  const progressing = conditionOf(deployment, 'Progressing');
  const replicaFailure = conditionOf(deployment, 'ReplicaFailure');
  return progressing?.status === 'False' ? progressing : replicaFailure?.status === 'True' ? replicaFailure : undefined;
}

function deploymentCause(
  deployment: Deployment,
  expected: Expectation,
  newReplicaSet: string | undefined,
): (Cause & { source: 'deployment' }) | undefined {
  const condition = failingCondition(deployment);
  const rule = condition?.reason ? DEPLOYMENT_CONDITION_REASONS[condition.reason] : undefined;
  if (!condition?.reason || !rule || !belongsToRollout(condition, expected, newReplicaSet, deployment.metadata.name)) return undefined;
  return { source: 'deployment', reason: condition.reason, message: condition.message ?? '', rule };
}

/**
 * Whether a Deployment condition is about this rollout, not one before it: the controller keeps a
 * ProgressDeadlineExceeded until it has something new to say, and copies an old ReplicaSet's
 * ReplicaFailure when the new one has none (deployment/progress.go getReplicaFailures). Its message
 * names the ReplicaSet (`ReplicaSet "web-7d9c6b8f4d" has timed out progressing.`) or a pod of it
 * (`pods "web-7d9c6b8f4d-v6b9c" is forbidden: …`); otherwise its time must not be older than the apply.
 */
export function belongsToRollout(condition: Condition, expected: Expectation, newReplicaSet: string | undefined, deploymentName: string): boolean {
  const message = condition.message ?? '';
  if (newReplicaSet && (message.includes(`"${newReplicaSet}"`) || message.includes(`"${newReplicaSet}-`))) return true;
  const namesReplicaSet = /[Rr]eplica ?[Ss]et "[^"]+"/.test(message) || message.includes(`"${deploymentName}-`);
  if (namesReplicaSet) return false;
  const appliedAt = appliedTime(expected.applied);
  const changedAt = condition.lastUpdateTime ?? condition.lastTransitionTime;
  return appliedAt === undefined || changedAt === undefined || changedAt >= appliedAt;
}

/**
 * When the apply wrote the Deployment, in the API server's clock: the newest managedFields time of
 * the main resource, leaving out the controller's own writes (its revision annotation, status).
 */
function appliedTime(applied: KubeObject): string | undefined {
  const entries = (applied.metadata.managedFields ?? []) as Array<{ manager?: string; time?: string; subresource?: string }>;
  const times = entries
    .filter((entry) => !entry.subresource && entry.manager !== 'kube-controller-manager' && typeof entry.time === 'string')
    .map((entry) => entry.time as string)
    .sort();
  return times[times.length - 1];
}

/** Whether a finding or condition, first seen at `since`, has become fatal by `now`. */
export function isFatalNow(policy: FatalPolicy, since: number | undefined, now: number, restartCount = 0, pods = 1): boolean {
  if (policy.when === 'now') return true;
  if (policy.when === 'never') return false;
  if (policy.restarts !== undefined && restartCount >= policy.restarts) return true;
  if (policy.pods !== undefined && pods >= policy.pods) return true;
  return since !== undefined && now - since >= policy.seconds * 1000;
}
