// Argo Rollouts' Rollout, judged as Argo CD's own check does (resource_customizations/
// argoproj.io/Rollout/health.lua), which follows Argo Rollouts' GetRolloutPhase
// (pkg/apis/rollouts/v1alpha1/types.go RolloutPhase; utils/rollout/rolloututil.go): the spec must
// be observed first (a numeric status.observedGeneration equal to metadata.generation; a hash, as
// before v0.10, or a larger number is a legacy status that always counts; spec.workloadRef's
// rollout.argoproj.io/workload-generation annotation against status.workloadObservedGeneration);
// then status.phase where the controller writes it (v1.0 and later: Healthy, Progressing, Paused,
// Degraded, with status.message); without one, the conditions (InvalidSpec, a Progressing condition
// of reason RolloutAborted or ProgressDeadlineExceeded: failed), pause (status.pauseConditions,
// spec.paused), status.currentPodHash, replicas, the blue-green active selector and the stable
// ReplicaSet. Argo CD's Suspended (a pause) is a wait here: a paused canary is half rolled out,
// and kguard waits for its promotion, to the deadline if none comes. Pure.
import type { Condition } from '../../kube.js';
import type { ReasonRule } from '../../model/findings.js';
import type { ConditionCause, RolloutRules } from '../engine.js';
import { statusGeneration } from '../status-moment.js';

export interface Rollout {
  metadata: { generation?: number; annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    paused?: boolean;
    workloadRef?: unknown;
    strategy?: { blueGreen?: unknown; canary?: unknown };
  };
  status?: {
    observedGeneration?: number | string;
    workloadObservedGeneration?: number | string;
    phase?: string;
    message?: string;
    conditions?: Condition[];
    pauseConditions?: Array<{ reason?: string }>;
    currentPodHash?: string;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    stableRS?: string;
    canary?: { stableRS?: string };
    blueGreen?: { activeSelector?: string };
  };
}

type Judgement = { state: 'wait'; why: string } | { state: 'failed'; reason: string; message: string } | undefined;

const FAILED: Omit<ReasonRule, 'nextStep'> = {
  category: 'stalled',
  family: 'other',
  policy: { when: 'now' },
  cannot: 'become healthy (Argo Rollouts says the rollout failed)',
};

/** `statusGraceSeconds`: --status-grace, for a legacy status that names no generation. */
export function rolloutRules(kind: string, statusGraceSeconds?: number): RolloutRules<Rollout> {
  return {
    controller: 'Argo Rollouts controller',
    ...(statusGraceSeconds !== undefined
      ? {
          freshStatus: {
            reportsGeneration: (object: Rollout) => statusGeneration(object) !== undefined,
            graceSeconds: statusGraceSeconds,
          },
        }
      : {}),
    observed: (object) => generationObserved(object) && workloadGenerationObserved(object),
    newPods: () => [],
    wait(object) {
      const judged = judgeRollout(object);
      return judged?.state === 'wait' ? judged.why : undefined;
    },
    failure(object) {
      const judged = judgeRollout(object);
      if (judged?.state !== 'failed') return undefined;
      const rule: ReasonRule = {
        ...FAILED,
        nextStep: `read its status: kubectl argo rollouts get rollout NAME -n NAMESPACE, or kubectl describe ${kind.toLowerCase()} NAME -n NAMESPACE`,
      };
      const cause: ConditionCause = { source: 'condition', reason: judged.reason, message: judged.message, rule };
      return cause;
    },
    progress(object) {
      const status = object.status ?? {};
      const desired = object.spec?.replicas ?? 1;
      return {
        desired,
        updated: status.updatedReplicas ?? 0,
        ready: status.availableReplicas ?? 0,
        available: status.availableReplicas ?? 0,
        summary: status.phase ? `phase ${status.phase}` : `${status.availableReplicas ?? 0}/${desired} available`,
      };
    },
  };
}

/** health.lua isGenerationObserved: a hash, or a number ahead, is a v0.9 status that always counts. */
function generationObserved(object: Rollout): boolean {
  if (!object.status) return false;
  const observed = statusGeneration(object);
  const generation = object.metadata.generation ?? 0;
  if (observed === undefined || observed > generation) return true;
  return observed === generation;
}

/** health.lua isWorkloadGenerationObserved (v1.1 spec.workloadRef). */
function workloadGenerationObserved(object: Rollout): boolean {
  if (object.spec?.workloadRef === undefined || object.metadata.annotations === undefined) return true;
  const wanted = object.metadata.annotations['rollout.argoproj.io/workload-generation'];
  const seen = object.status?.workloadObservedGeneration;
  return (wanted === undefined ? undefined : Number(wanted)) === (seen === undefined ? undefined : Number(seen));
}

/** health.lua's failing conditions: InvalidSpec, or Progressing of reason RolloutAborted or ProgressDeadlineExceeded. */
function failingCondition(conditions: unknown): { reason: string; message: string } | undefined {
  // conditions: {} is a shape seen in the wild (Argo CD's degraded_statusPhaseMessage.yaml).
  for (const condition of Array.isArray(conditions) ? (conditions as Condition[]) : []) {
    if (condition.type === 'InvalidSpec') return { reason: 'InvalidSpec', message: condition.message ?? '' };
    if (
      condition.type === 'Progressing' &&
      (condition.reason === 'RolloutAborted' || condition.reason === 'ProgressDeadlineExceeded')
    )
      return { reason: condition.reason, message: condition.message ?? '' };
  }
  return undefined;
}

/** health.lua after the generation check, in its order; undefined: healthy. */
export function judgeRollout(object: Rollout): Judgement {
  const status = object.status ?? {};
  if (status.phase !== undefined) {
    if (status.phase === 'Healthy') return undefined;
    if (status.phase === 'Degraded') {
      // The condition that says why, where there is one (RolloutAborted, ProgressDeadlineExceeded, InvalidSpec).
      const why = failingCondition(status.conditions);
      return { state: 'failed', reason: why?.reason ?? 'Degraded', message: status.message ?? why?.message ?? '' };
    }
    const paused = status.phase === 'Paused' ? ', waiting for its promotion' : '';
    return { state: 'wait', why: `phase ${status.phase}${status.message ? `: ${status.message}` : ''}${paused}` };
  }
  const failing = failingCondition(status.conditions);
  if (failing) return { state: 'failed', ...failing };
  if ((status.pauseConditions ?? []).length > 0 || object.spec?.paused === true)
    return { state: 'wait', why: 'the rollout is paused, waiting for its promotion' };
  if (status.currentPodHash === undefined)
    return { state: 'wait', why: 'waiting for the controller to reconcile it (no status.currentPodHash yet)' };
  const desired = object.spec?.replicas ?? 1;
  const replicas = status.replicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated < desired) return { state: 'wait', why: `${updated}/${desired} replicas updated` };
  if (available < updated) return { state: 'wait', why: `${available}/${updated} updated replicas available` };
  const stable = status.stableRS ?? status.canary?.stableRS ?? '';
  if (object.spec?.strategy?.blueGreen !== undefined) {
    if (status.blueGreen?.activeSelector !== status.currentPodHash)
      return { state: 'wait', why: 'the active Service has not been switched to the new pods yet' };
    if (stable !== '' && stable !== status.currentPodHash)
      return { state: 'wait', why: 'waiting for its analysis to complete' };
  } else if (object.spec?.strategy?.canary !== undefined) {
    if (replicas > updated) return { state: 'wait', why: `${replicas - updated} old replicas still terminating` };
    if (stable === '' || stable !== status.currentPodHash)
      return { state: 'wait', why: 'waiting for the canary to finish its steps' };
  }
  return undefined;
}
