// One --verify-job, after the rollout, like `helm test`: the Job is created, judged by the one
// engine as any Job (Complete passes; Failed, FailureTarget, an unstartable pod or
// --verify-timeout fails, with its pods' states and logs), then deleted by uid unless
// --keep-verify. It is never part of the apply's restore set, and it is deleted however its
// check ends (failed, timed out, cancelled): only a second signal or SIGKILL can leave it behind,
// and its labels (kguard.dev/run, kguard.dev/verify) then find it.
import type { Kubectl } from '../kubectl/types.js';
import type { VerifyCheck, VerifyOutcome } from '../model/verify.js';
import { kubectlName, namespaceArgs, objectKey, type KubeObject } from '../objects/model.js';
import { RUN_LABEL } from '../journal/labels.js';
import type { TrackDeps } from '../track/tracker.js';
import { trackWorkloads } from '../track/workloads.js';
import type { PreparedJob } from './job-manifest.js';
import { jobOutcome } from './verdict.js';
import { trackOptions } from '../track/options.js';

export interface JobRun {
  timeoutMs: number;
  pollIntervalMs: number;
  watch: boolean;
  logLines: number;
  keep: boolean;
  /** The deadline of each write (create, delete). */
  writeDeadlineMs: number;
}

export type JobDeps = TrackDeps & {
  kubectl: TrackDeps['kubectl'] & Pick<Kubectl, 'create' | 'getObject' | 'deleteExact' | 'commandLine'>;
};

export async function runVerifyJob(prepared: PreparedJob, run: JobRun, deps: JobDeps): Promise<VerifyOutcome> {
  const check: Extract<VerifyCheck, { type: 'job' }> = { type: 'job', file: prepared.file, job: prepared.ref };
  deps.reporter.emit({ kind: 'verify-started', check, during: 'verify', timeoutMs: run.timeoutMs });
  const startedAt = deps.clock.now();
  const context = () => ({
    during: 'verify' as const,
    elapsedMs: deps.clock.now() - startedAt,
    timeoutMs: run.timeoutMs,
    keep: run.keep,
  });
  let created: KubeObject | undefined;
  let outcome: VerifyOutcome | undefined;
  try {
    const made = await createJob(prepared, run, deps);
    if (typeof made === 'string') {
      outcome = {
        ...jobOutcome(check, undefined, context()),
        summary: `kguard could not create ${kubectlName(prepared.ref)}: ${made}`,
        nextStep: "check the Job and kguard's permissions on jobs there",
      };
    } else {
      created = made;
      const tracked = await trackWorkloads(
        [{ ref: prepared.ref, applied: made, before: undefined }],
        trackOptions(run, 'verify', run.timeoutMs),
        deps,
      );
      outcome = jobOutcome(check, tracked.get(objectKey(prepared.ref)), context());
    }
    deps.reporter.emit(
      outcome.passed ? { kind: 'verify-passed', outcome } : { kind: 'verify-failed', outcome, shown: run.logLines },
    );
  } finally {
    // However the check ended, the Job goes (a cancelled run included: the delete is a write, never cancelled).
    const cleanup = await cleanUp(prepared, created, run, deps);
    if (outcome) outcome.cleanup = cleanup;
  }
  return outcome;
}

/**
 * Creates the Job; its name is fixed (job-manifest.ts), so a create that landed and still failed
 * (a 504 after the write) is found again by name and known as this run's by its label.
 */
async function createJob(prepared: PreparedJob, run: JobRun, deps: JobDeps): Promise<KubeObject | string> {
  const written = await deps.kubectl.create(prepared.job, prepared.collectionPath, run.writeDeadlineMs);
  if (written.ok && written.object) return written.object;
  const ours = await findOurs(prepared, deps).catch(() => undefined);
  if (ours) return ours;
  return written.ok ? 'the API server did not return it' : written.message;
}

async function findOurs(prepared: PreparedJob, deps: JobDeps): Promise<KubeObject | undefined> {
  const live = await deps.kubectl.getObject('jobs.batch', prepared.ref.namespace, prepared.ref.name);
  const runId = prepared.job.metadata.labels?.[RUN_LABEL];
  return live && live.metadata.labels?.[RUN_LABEL] === runId ? live : undefined;
}

async function cleanUp(
  prepared: PreparedJob,
  created: KubeObject | undefined,
  run: JobRun,
  deps: JobDeps,
): Promise<NonNullable<VerifyOutcome['cleanup']>> {
  const job = prepared.ref;
  const deleteCommand = deps.kubectl.commandLine(['delete', kubectlName(job), ...namespaceArgs(job)]);
  if (run.keep) {
    deps.reporter.emit({ kind: 'verify-job-cleanup', job, action: 'kept', commands: [deleteCommand] });
    return { action: 'kept', commands: [deleteCommand] };
  }
  // A create that failed may still have landed: this run's Job is looked for by name and label.
  const target = created ?? (await findOurs(prepared, deps).catch(() => undefined));
  const uid = target?.metadata.uid;
  if (!uid) return { action: 'deleted', commands: [] };
  const deleted = await deps.kubectl.deleteExact(
    `${prepared.collectionPath}/${encodeURIComponent(job.name)}`,
    { uid },
    run.writeDeadlineMs,
  );
  if (deleted.ok || deleted.notFound) {
    deps.reporter.emit({ kind: 'verify-job-cleanup', job, action: 'deleted', commands: [] });
    return { action: 'deleted', commands: [] };
  }
  deps.reporter.emit({
    kind: 'verify-job-cleanup',
    job,
    action: 'failed',
    detail: deleted.message,
    commands: [deleteCommand],
  });
  return { action: 'failed', detail: deleted.message, commands: [deleteCommand] };
}
