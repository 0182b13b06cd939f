// Everything kguard tells a person, as a union of events. Reporters decide how each looks.
import type { Diagnosis } from '../classify/diagnosis.js';
import type { Finding } from '../classify/pod.js';
import type { AppliedObject } from '../kubectl/apply-output.js';
import type { WorkloadRef } from '../manifests/parse.js';
import type { KeepReason } from '../rollback/plan.js';
import type { ObjectChange } from '../objects/compare.js';
import type { ObjectRef } from '../objects/model.js';
import type { Outcome } from '../run/result.js';
import type { Progress } from '../track/verdict.js';

export type RunEvent =
  | { kind: 'understood'; objects: ObjectRef[] }
  | { kind: 'dry-run-waived'; namespace: string; objects: ObjectRef[] }
  | { kind: 'applied'; objects: AppliedObject[]; dryRun: boolean }
  | { kind: 'apply-failed'; message: string; applied: AppliedObject[] }
  | { kind: 'changes'; objects: ChangedObject[] }
  | { kind: 'preview'; strategy: 'client' | 'server'; objects: ChangedObject[] }
  | { kind: 'diff'; object: ObjectRef; lines: string[] }
  | { kind: 'unchanged'; workload: WorkloadRef; detail: string }
  | { kind: 'tracking'; workload: WorkloadRef; fromRevision?: number; detail: string }
  | { kind: 'unverified'; workload: WorkloadRef; detail: string }
  /** Changed, but with nothing to watch: an OnDelete StatefulSet, a CronJob, kguard.dev/track: "false". */
  | { kind: 'not-watched'; workload: WorkloadRef; detail: string }
  | { kind: 'progress'; workload: WorkloadRef; progress: Progress; waitingFor: string; phase: Phase }
  | { kind: 'pod-problem'; workload: WorkloadRef; finding: Finding; phase: Phase }
  | { kind: 'poll-error'; namespace: string; message: string }
  /** Watching a namespace does not work (RBAC refuses watch, a proxy cuts streams): it is polled. */
  | { kind: 'watch-fallback'; namespace: string; reason: string; pollIntervalMs: number }
  | { kind: 'healthy'; workload: WorkloadRef; progress: Progress; elapsedMs: number }
  | { kind: 'failed'; workload: WorkloadRef; diagnosis: Diagnosis; elapsedMs: number }
  | { kind: 'timed-out'; workload: WorkloadRef; diagnosis: Diagnosis; elapsedMs: number }
  | { kind: 'interrupted'; workload: WorkloadRef; progress: Progress; waitingFor: string }
  | { kind: 'conflict'; workload: WorkloadRef; detail: string; commands: string[] }
  | { kind: 'gone'; workload: WorkloadRef; detail: string; commands: string[] }
  | { kind: 'restoring'; objects: ObjectRef[] }
  | { kind: 'restored'; object: ObjectRef; action: 'restored' | 'deleted' | 'recreated'; differences: string[]; notes?: string[] }
  | { kind: 'restore-kept'; object: ObjectRef; reason: KeepReason; detail?: string; commands: string[] }
  | { kind: 'restore-failed'; object: ObjectRef; reason: string; commands: string[]; copyFile?: string }
  | { kind: 'rolled-back'; workload: WorkloadRef; progress: Progress; elapsedMs: number }
  | { kind: 'rollback-unhealthy'; workload: WorkloadRef; reason: string; commands: string[] }
  | { kind: 'journal'; runId: string; namespace: string }
  | { kind: 'journal-kept'; runId: string; namespace: string; command: string }
  | { kind: 'journal-warning'; message: string }
  | { kind: 'rollback-finished'; runId: string; restored: number; untouched: number; needsPerson: number; exitCode: number }
  | { kind: 'lock-wait'; object: ObjectRef; holder: string }
  | { kind: 'finished'; outcome: Outcome; exitCode: number; failedWorkloads: number; restored: boolean };

/** One object of the apply and what the apply did (or would do) to it. */
export interface ChangedObject {
  ref: ObjectRef;
  change: ObjectChange['change'];
  changedFields: string[];
}

/** Whether an event is about the new rollout or about undoing it. */
export type Phase = 'rollout' | 'rollback';

export type RunEventKind = RunEvent['kind'];

export interface Reporter {
  emit(event: RunEvent): void;
  /** Called once at the end, with the exit code's error message when kguard could not do its job. */
  close(): void;
}
