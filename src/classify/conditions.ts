// What the status of kinds other than Deployment says when their rollout cannot succeed: a
// Job's terminal reasons, a pod that failed, a claim that lost its volume, the kstatus Stalled
// convention. Rows as in table.ts: the controller's own verdict is fatal at once; the evidence
// rows (a container that exited with an error) explain, they do not decide.
import type { ReasonRule } from '../model/findings.js';

/**
 * The pods' last lines come with the diagnosis, read before any restore: a restore deletes a Job
 * the apply created, and its pods with it, so the hint names no pod and asks kubectl only while
 * the Job is there.
 */
const JOB_LOGS_STEP =
  'read why its pods failed in their last lines with this diagnosis (read before any restore); while the Job exists: kubectl logs job/NAME -n NAMESPACE, and kubectl describe job NAME -n NAMESPACE';

/**
 * A controller's own verdict (the kubelet's, for a pod): it has given up on this generation, so
 * the rollout fails at once. Most are `stalled` (the job controller, kstatus, the PV controller).
 */
function givenUp(
  cannot: string,
  nextStep: string,
  { category, family }: Pick<ReasonRule, 'category' | 'family'> = { category: 'stalled', family: 'other' },
): ReasonRule {
  return { category, family, policy: { when: 'now' }, cannot, nextStep };
}

/** Reasons of a Job's Failed (and, since 1.31, FailureTarget) condition, as the job controller writes them. */
export const JOB_CONDITION_REASONS: Readonly<Record<string, ReasonRule>> = {
  // job controller (job_controller.go): more failed pods than spec.backoffLimit, or with
  // restartPolicy OnFailure that many container restarts.
  BackoffLimitExceeded: givenUp('complete: its pods failed more often than backoffLimit allows', JOB_LOGS_STEP),
  // job controller: the Job was active longer than spec.activeDeadlineSeconds.
  DeadlineExceeded: givenUp(
    'complete within activeDeadlineSeconds',
    'see what its pods were doing: kubectl describe job NAME -n NAMESPACE; raise activeDeadlineSeconds if the work is just slow',
    { category: 'progress-deadline', family: 'other' },
  ),
  // job controller: a pod failure matched a FailJob rule of spec.podFailurePolicy.
  PodFailurePolicy: givenUp('complete: a pod failure matched a FailJob rule of its podFailurePolicy', JOB_LOGS_STEP),
  // job controller (Indexed Jobs with backoffLimitPerIndex): too many indexes failed.
  MaxFailedIndexesExceeded: givenUp('complete: more indexes failed than maxFailedIndexes allows', JOB_LOGS_STEP),
  // job controller (Indexed Jobs with backoffLimitPerIndex): every index ended and some failed.
  FailedIndexes: givenUp('complete: some of its indexes failed', JOB_LOGS_STEP),
};

/** A Job Failed condition whose reason the table does not know (a newer controller's). */
export const JOB_FAILED: ReasonRule = givenUp('complete', JOB_LOGS_STEP);

/**
 * kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status, checkGenericProperties): a Stalled condition
 * that is True means the controller has given up on this generation (FailedStatus).
 */
export const STALLED: ReasonRule = givenUp(
  'be reconciled (its controller says Stalled)',
  'read its conditions and events: kubectl describe KIND NAME -n NAMESPACE',
);

/** persistentvolume controller: phase Lost, the claim's PersistentVolume is gone. */
export const CLAIM_LOST: ReasonRule = givenUp(
  'keep its volume (phase Lost: the PersistentVolume is gone)',
  'find out what happened to its volume: kubectl describe pvc NAME -n NAMESPACE',
);

/**
 * kubelet getPhase: phase Failed, every container ended and none will be restarted (a bare pod with
 * restartPolicy Never or OnFailure, or an eviction: status.reason Evicted).
 */
export const POD_FAILED: ReasonRule = givenUp(
  'run: it failed',
  'read why it exited: kubectl logs POD -n NAMESPACE, and kubectl describe pod POD -n NAMESPACE',
  { category: 'crash-loop', family: 'crash' },
);

/**
 * kubelet: a container of a finished pod ended with a non-zero exit code (terminated reason Error,
 * OOMKilled...). Evidence for Jobs: the Job's backoffLimit decides whether that fails it.
 */
export const CONTAINER_FAILED: ReasonRule = {
  category: 'crash-loop',
  family: 'crash',
  policy: { when: 'never' },
  cannot: 'finish their work',
  nextStep: 'read why it failed: kubectl logs POD -c CONTAINER -n NAMESPACE',
};
