// Everything kguard tells a person, as a union of events. Reporters decide how each looks.
import type { Diagnosis } from '../classify/diagnosis.js';
import type { Finding } from '../classify/pod.js';
import type { AppliedObject } from '../kubectl/apply-output.js';
import type { WorkloadRef } from '../manifests/parse.js';
import type { SkipReason } from '../rollback/plan.js';
import type { Outcome } from '../run/result.js';
import type { Progress } from '../track/verdict.js';

export type RunEvent =
  | { kind: 'manifests-read'; objects: number; workloads: WorkloadRef[]; untracked: string[] }
  | { kind: 'applied'; objects: AppliedObject[]; dryRun: boolean }
  | { kind: 'unchanged'; workload: WorkloadRef; detail: string }
  | { kind: 'tracking'; workload: WorkloadRef; fromRevision?: number; detail: string }
  | { kind: 'progress'; workload: WorkloadRef; progress: Progress; waitingFor: string; phase: Phase }
  | { kind: 'pod-problem'; workload: WorkloadRef; finding: Finding; phase: Phase }
  | { kind: 'poll-error'; namespace: string; message: string }
  | { kind: 'healthy'; workload: WorkloadRef; progress: Progress; elapsedMs: number }
  | { kind: 'failed'; workload: WorkloadRef; diagnosis: Diagnosis; elapsedMs: number }
  | { kind: 'timed-out'; workload: WorkloadRef; diagnosis: Diagnosis; elapsedMs: number }
  | { kind: 'interrupted'; workload: WorkloadRef; progress: Progress; waitingFor: string }
  | { kind: 'conflict'; workload: WorkloadRef; detail: string; commands: string[] }
  | { kind: 'gone'; workload: WorkloadRef; detail: string; commands: string[] }
  | { kind: 'rollback-started'; workload: WorkloadRef; toRevision: number }
  | { kind: 'rolled-back'; workload: WorkloadRef; toRevision: number; progress: Progress; elapsedMs: number }
  | { kind: 'rollback-failed'; workload: WorkloadRef; toRevision: number; reason: string; commands: string[] }
  | { kind: 'rollback-skipped'; workload: WorkloadRef; reason: SkipReason; commands: string[] }
  | { kind: 'finished'; outcome: Outcome; exitCode: number; failedWorkloads: number };

/** Whether an event is about the new rollout or about undoing it. */
export type Phase = 'rollout' | 'rollback';

export type RunEventKind = RunEvent['kind'];

export interface Reporter {
  emit(event: RunEvent): void;
  /** Called once at the end, with the exit code's error message when kguard could not do its job. */
  close(): void;
}
