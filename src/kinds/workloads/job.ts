// Job: all its pods are new (a Job's template is immutable); it is done at its Complete condition
// (what `kubectl wait --for=condition=complete` waits for) and failed at Failed (or, from 1.31,
// the FailureTarget that precedes it) with the job controller's reason. Its pods' crashes are the
// Job's backoffLimit's to judge, so they are evidence; pods that cannot start (image, config) fail
// it at once. With kguard.dev/must-succeed: "false" it is done once a pod runs.
import { CONTAINER_FAILED, JOB_CONDITION_REASONS, JOB_FAILED } from '../../classify/conditions.js';
import type { Finding } from '../../model/findings.js';
import { conditionOf, type Job, type KubeEvent, type Pod } from '../../kube.js';
import type { Verdict } from '../../model/verdict.js';
import type { ConditionCause, RolloutRules } from '../engine.js';
import { podsControlledBy } from '../look-index.js';
import type { Overrides } from '../overrides.js';
import type { KubeObject } from '../../objects/model.js';
import type { RecreateRule } from '../refusals.js';

export function jobRules(overrides: Pick<Overrides, 'mustSucceed'>): RolloutRules<Job> {
  return {
    controller: 'job controller',
    readsOwnedOnly: true,
    observed: () => true,
    newPods: (job, snapshot) => podsControlledBy(job, snapshot.pods),
    wait(job, snapshot) {
      if (conditionOf(job, 'Complete')?.status === 'True') return undefined;
      if (!overrides.mustSucceed) {
        const running = podsControlledBy(job, snapshot.pods).some(
          (pod) => pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded',
        );
        if (running || (job.status?.succeeded ?? 0) > 0) return undefined;
        return 'waiting for a pod of the job to run (kguard.dev/must-succeed: "false")';
      }
      // The counts are in the progress summary.
      return 'waiting for the job to complete';
    },
    failure: jobFailure,
    progress(job) {
      const status = job.status ?? {};
      const completions = completionsOf(job);
      const parts = [`${status.succeeded ?? 0}/${completions} completions succeeded`];
      if ((status.active ?? 0) > 0) parts.push(`${status.active} running`);
      if ((status.failed ?? 0) > 0) parts.push(`${status.failed} failed`);
      return {
        desired: completions,
        updated: status.active ?? 0,
        ready: status.succeeded ?? 0,
        available: status.succeeded ?? 0,
        summary: parts.join(', '),
      };
    },
    judgesItself: (finding) => finding.rule.category === 'crash-loop',
    evidence: failedContainers,
  };
}

/** The Failed condition, or the FailureTarget the 1.31+ controller writes first (job_controller.go delayTerminalCondition). */
export function jobFailure(job: Job): ConditionCause | undefined {
  const condition = [conditionOf(job, 'Failed'), conditionOf(job, 'FailureTarget')].find(
    (candidate) => candidate?.status === 'True',
  );
  if (!condition) return undefined;
  const reason = condition.reason ?? 'Failed';
  return {
    source: 'condition',
    reason,
    message: condition.message ?? '',
    rule: JOB_CONDITION_REASONS[reason] ?? JOB_FAILED,
  };
}

/** A suspended Job runs nothing until someone resumes it. */
export function unwatchedJob(applied: Job): Verdict | undefined {
  if (applied.spec?.suspend !== true) return undefined;
  return {
    state: 'applied',
    detail: 'spec.suspend is true: it runs nothing until it is resumed, so there is nothing to watch',
  };
}

/** completions unset: one success completes it (parallelism pods may run). */
function completionsOf(job: Job): number {
  return job.spec?.completions ?? 1;
}

/** Containers of failed pods that exited with an error: why the Job's pods fail, for the diagnosis. */
function failedContainers(_job: Job, pods: readonly Pod[]): Finding[] {
  return pods
    .filter((pod) => pod.status?.phase === 'Failed')
    .flatMap((pod) =>
      (pod.status?.containerStatuses ?? []).flatMap((status): Finding[] => {
        const terminated = status.state?.terminated;
        if (!terminated || terminated.exitCode === 0) return [];
        return [
          {
            pod: pod.metadata.name,
            namespace: pod.metadata.namespace ?? '',
            container: status.name,
            initContainer: false,
            image: pod.spec?.containers?.find((container) => container.name === status.name)?.image,
            reason: terminated.reason ?? 'Error',
            message: `exited with code ${terminated.exitCode ?? '?'}${terminated.message ? `: ${terminated.message}` : ''}`,
            restartCount: status.restartCount ?? 0,
            // It exited with an error: it ran, and its logs say why.
            ran: true,
            running: false,
            family: 'crash',
            rule: CONTAINER_FAILED,
            policy: CONTAINER_FAILED.policy,
          },
        ];
      }),
    );
}

/**
 * A Job that completed and then went: the TTL-after-finished controller deletes a finished Job
 * ttlSecondsAfterFinished after its Complete or Failed condition (pkg/controller/ttlafterfinished/
 * ttlafterfinished_controller.go), so once it had completed its disappearance is its success, not
 * someone else's delete. Complete is known from the last look at it, or, when it went between two
 * looks, from the job controller's `Completed` event ("Job completed", job_controller.go) about
 * this uid. A Job without the TTL, or one that never completed, stays someone else's delete.
 */
export function completedThenDeleted(
  applied: Job,
  lastSeen: Job | undefined,
  events: readonly KubeEvent[],
): string | undefined {
  const ttl = applied.spec?.ttlSecondsAfterFinished;
  if (typeof ttl !== 'number' || !applied.metadata.uid) return undefined;
  const sawComplete =
    lastSeen?.metadata.uid === applied.metadata.uid && conditionOf(lastSeen, 'Complete')?.status === 'True';
  const toldComplete = events.some(
    (event) =>
      event.reason === 'Completed' &&
      (event.involvedObject?.kind ?? 'Job') === 'Job' &&
      event.involvedObject?.uid === applied.metadata.uid,
  );
  if (!sawComplete && !toldComplete) return undefined;
  return `completed, then deleted by the TTL-after-finished controller (ttlSecondsAfterFinished: ${ttl})`;
}

/** Whether a Job's disappearance may be its success: the TTL controller deletes it once finished. */
export function mayVanishWhenDone(applied: Job): boolean {
  return typeof applied.spec?.ttlSecondsAfterFinished === 'number';
}

/** The labels generateSelector writes with the Job's uid (pkg/registry/batch/job/strategy.go; batch.ControllerUidLabel and its legacy form). */
const CONTROLLER_UID_LABELS = ['batch.kubernetes.io/controller-uid', 'controller-uid'];

/**
 * What a restore creates from the pre-apply copy of a Job the apply deleted (--prune, or a
 * replace). A Job that had finished (Complete or Failed) is never created again: a copy would run
 * its pods again (a migration twice). Any other is created without the selector and the
 * controller-uid labels generateSelector wrote for the old uid: with manualSelector unset the API
 * server generates them anew and refuses a copy that names the old uid
 * (pkg/apis/batch/validation/validation.go validateGeneratedSelector: `spec.selector: Invalid
 * value: …: \`selector\` not auto-generated`, `spec.template.metadata.labels[controller-uid]:
 * Invalid value: …: must be '<new uid>'`).
 */
export function jobRecreate(before: KubeObject): RecreateRule {
  const job = before as unknown as Job;
  const finished = ['Complete', 'Failed'].find((type) => conditionOf(job, type)?.status === 'True');
  if (finished) {
    const what = finished === 'Complete' ? 'completed' : 'failed';
    return {
      how: 'never',
      why: `it had ${what} before the apply, and created again it would run its pods again: a restore never runs a finished Job twice`,
    };
  }
  const copy = structuredClone(before) as unknown as Job & KubeObject;
  if (copy.spec && copy.spec.manualSelector !== true) {
    delete copy.spec.selector;
    delete copy.spec.manualSelector;
    const uid = before.metadata.uid;
    for (const labels of [copy.spec.template?.metadata?.labels, copy.metadata.labels]) {
      for (const key of CONTROLLER_UID_LABELS) if (labels && labels[key] === uid) delete labels[key];
    }
  }
  for (const key of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'])
    delete (copy.metadata as Record<string, unknown>)[key];
  delete (copy as { status?: unknown }).status;
  return { how: 'create', copy };
}
