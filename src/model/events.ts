// Everything kguard tells a person, as a union of events. Reporters decide how each looks. Types only.
import type { AnalysisEvaluation, AnalysisOutcome } from './analysis.js';
import type { ObjectRef } from '../objects/model.js';
import type { Diagnosis, Finding } from './findings.js';
import type { AppliedObject, ApplyPhase, ChangeKind, KeepReason, Outcome } from './result.js';
import type { Progress } from './verdict.js';
import type { BakeOutcome, VerifyCheck, VerifyOutcome, CheckedDuring } from './verify.js';

export type RunEvent =
  /** Where every kubectl call of the run goes: resolved once from the kubeconfig, then pinned. */
  | { kind: 'target'; context: string; cluster: string; user: string; namespace: string }
  /** With `phase`: one part of a phased apply (its objects are applied in that phase). */
  | { kind: 'understood'; objects: ObjectRef[]; applyPhase?: ApplyPhase }
  | { kind: 'dry-run-waived'; namespace: string; objects: ObjectRef[] }
  /** Documents of kinds a CRD of this apply defines: kubectl reads (and dry-runs) them once that CRD is Established. */
  | { kind: 'phase-deferred'; phase: ApplyPhase; documents: string[]; dryRun: boolean }
  /** A phase of a phased apply starts (its own kubectl apply). */
  | { kind: 'phase'; phase: ApplyPhase; number: number; of: number; objects: ObjectRef[] }
  /** A phase that was not applied because an earlier one failed: its objects are as they were. */
  | { kind: 'phase-skipped'; phase: ApplyPhase; objects: ObjectRef[]; documents: string[]; because: string }
  /** What the API server warned about in the server dry run (deprecated APIs, unknown fields…), once. */
  | { kind: 'kubectl-warnings'; lines: string[] }
  /**
   * Before the apply, and in a preview: what a restore could not put back (cannot-restore: a
   * claim's storage request that grows; finished-job: a pruned Job that had finished), or would
   * put back by deleting and creating it (an immutable ConfigMap), by the kind's restore rules.
   */
  | {
      kind: 'restore-limit';
      object: ObjectRef;
      how: 'cannot-restore' | 'finished-job' | 'delete-and-create';
      detail: string;
    }
  /**
   * Before the apply, what the registry said of one image the apply changes (--image-check): it
   * exists; it does not (the run is refused); or kguard cannot know (the run goes on).
   */
  | { kind: 'image-exists'; object: ObjectRef; container: string; image: string; detail: string }
  | { kind: 'image-missing'; object: ObjectRef; container: string; image: string; detail: string }
  | { kind: 'image-not-checked'; object: ObjectRef; container: string; image: string; detail: string }
  | { kind: 'applied'; objects: AppliedObject[]; dryRun: boolean }
  /** The server dry run leaves every object as it is and nothing is pruned: kguard applies nothing (kubectl would write nothing). */
  | { kind: 'nothing-to-change'; objects: ObjectRef[] }
  | { kind: 'apply-failed'; message: string; applied: AppliedObject[] }
  | { kind: 'changes'; objects: ChangedObject[] }
  | { kind: 'preview'; strategy: 'client' | 'server'; objects: ChangedObject[] }
  | { kind: 'diff'; object: ObjectRef; lines: string[] }
  | { kind: 'tracking'; workload: ObjectRef; fromRevision?: number | string; detail: string }
  /** Changed, but with nothing to watch: an OnDelete StatefulSet, a CronJob, kguard.dev/track: "false". */
  | { kind: 'not-watched'; workload: ObjectRef; detail: string }
  | { kind: 'progress'; workload: ObjectRef; progress: Progress; waitingFor: string; phase: Watching }
  | { kind: 'pod-problem'; workload: ObjectRef; finding: Finding; phase: Watching }
  /** Seen once and no reason to wait: a new pod its node ended (its replacement counts), replicas an autoscaler writes. */
  | { kind: 'note'; workload: ObjectRef; text: string; phase: Watching }
  /**
   * Reads of a namespace fail: said once when they start failing (`since`, wall-clock ISO time),
   * then once a minute while they go on (`forMs`), not at every look (track/outage.ts).
   */
  | { kind: 'poll-error'; namespace: string; message: string; since?: string; forMs?: number }
  /** Reads of a namespace answer again after an outage that lasted `afterMs`. */
  | { kind: 'poll-recovered'; namespace: string; afterMs: number }
  /** Watching a namespace does not work (RBAC refuses watch, a proxy cuts streams): it is polled. */
  | { kind: 'watch-fallback'; namespace: string; reason: string; pollIntervalMs: number }
  /** detail: how it ended healthy when that is not a rollout (a Job deleted by its TTL once complete). */
  | { kind: 'healthy'; workload: ObjectRef; progress: Progress; elapsedMs: number; detail?: string }
  | { kind: 'failed'; workload: ObjectRef; diagnosis: Diagnosis; elapsedMs: number }
  | { kind: 'timed-out'; workload: ObjectRef; diagnosis: Diagnosis; elapsedMs: number }
  /**
   * kguard stopped watching a rollout still in progress: another workload of this apply failed
   * (`another-failed`), or the run was cancelled (`cancelled`: a signal or a stop request, named by
   * `reason`; `restoring` says whether what the apply changed is now restored, false with --rollback none).
   */
  | {
      kind: 'interrupted';
      workload: ObjectRef;
      progress: Progress;
      waitingFor: string;
      cause: 'another-failed' | 'cancelled';
      reason?: string;
      restoring?: boolean;
    }
  | { kind: 'conflict'; workload: ObjectRef; detail: string; commands: string[] }
  | { kind: 'gone'; workload: ObjectRef; detail: string; commands: string[] }
  | { kind: 'restoring'; objects: ObjectRef[] }
  | {
      kind: 'restored';
      object: ObjectRef;
      action: 'restored' | 'deleted' | 'recreated' | 'replaced';
      differences: string[];
      notes?: string[];
    }
  | { kind: 'restore-kept'; object: ObjectRef; reason: KeepReason; detail?: string; commands: string[] }
  | { kind: 'restore-failed'; object: ObjectRef; reason: string; commands: string[]; copyFile?: string }
  | { kind: 'rolled-back'; workload: ObjectRef; progress: Progress; elapsedMs: number }
  | { kind: 'rollback-unhealthy'; workload: ObjectRef; reason: string; commands: string[] }
  /** Restored to its pre-apply copy, and not healthy as it was not before the apply (kinds/before.ts): restored all the same. */
  | { kind: 'restored-failing-before'; workload: ObjectRef; before: string; now: string; command: string }
  /** `pieces`: where its Secrets are (namespace → how many); `namespace`: the run's home. */
  | { kind: 'journal'; runId: string; namespace: string; pieces?: Record<string, number>; runLabel?: string }
  | { kind: 'journal-kept'; runId: string; namespace: string; pieces?: Record<string, number>; command: string }
  /** `kguard undo --dry-run`: what undoing a run would do to one object, with the differences `kubectl diff` style. */
  | {
      kind: 'undo-preview';
      runId: string;
      object: ObjectRef;
      action: 'put-back' | 'replace' | 'delete' | 'recreate' | 'keep' | 'none';
      detail: string;
      lines: string[];
    }
  | {
      kind: 'undo-finished';
      runId: string;
      restored: number;
      untouched: number;
      needsPerson: number;
      exitCode: number;
      dryRun: boolean;
    }
  /** A successful run is kept in the history (--history): `kguard undo RUN` puts back the state before it. */
  /** A successful run's record: one Secret per namespace it changed (`<run>-history`). */
  | { kind: 'history-kept'; runId: string; namespaces: string[]; keep: number }
  /** With `commands`: what a person runs to finish what kguard could not (a Lease left behind). */
  | { kind: 'journal-warning'; message: string; commands?: string[] }
  /** A fleet: this cluster's section starts, its run (apply) or the fleet's restore of its healthy run (restore). */
  | { kind: 'fleet-cluster'; context: string; wave: number; step: 'apply' | 'restore'; fleetRunId: string }
  /** `kguard rollback` of a run killed during its apply waits out that apply's request timeout first. */
  | { kind: 'rollback-wait'; runId: string; waitMs: number }
  /** `kguard rollback` of a dead run another kguard is restoring (a retry of its apply: restore/recovery/claim.ts): it waits for it. */
  | { kind: 'rollback-claimed'; runId: string; by: string }
  /** A live run read a stop request on its Lease (`kguard rollback` from anywhere): it restores and exits 130, as on SIGTERM. */
  | { kind: 'stop-requested'; runId: string; by: string; at: string }
  /** `kguard rollback` of a live run: it asked the run to stop (asked), the run answered, did not answer, or ended. */
  | { kind: 'stopping-run'; runId: string; step: 'asked' | 'answered' | 'unanswered' | 'ended'; detail: string }
  | {
      kind: 'rollback-finished';
      runId: string;
      restored: number;
      untouched: number;
      needsPerson: number;
      exitCode: number;
    }
  | { kind: 'lock-wait'; object: ObjectRef; holder: string }
  /** A dead run's unfinished journal holds objects of this apply: it is finished first (restore/recovery/dead-runs.ts). */
  /** `by`: another kguard (host and pid) is finishing it already: this run waits for it (restore/recovery/claim.ts). */
  | { kind: 'recovering-run'; runId: string; why: string; objects: ObjectRef[]; by?: string }
  /** That dead run is finished: its objects are back as they were before it; this run reads its "before" now. */
  | { kind: 'recovered-run'; runId: string; restored: number; untouched: number; by?: string }
  /** A check (--verify, --verify-job) starts, right after the rollout or again during the bake. */
  | { kind: 'verify-started'; check: VerifyCheck; during: CheckedDuring; timeoutMs: number }
  | { kind: 'verify-passed'; outcome: VerifyOutcome }
  /** `shown`: how many of its last lines the text output prints (--log-lines). */
  | { kind: 'verify-failed'; outcome: VerifyOutcome; shown: number }
  /** The checks are not run: a workload failed, or the apply changed nothing. */
  | { kind: 'verify-skipped'; reason: string }
  /** A verify Job after its check: deleted by uid, kept (--keep-verify), or not deleted (with the command that does). */
  | {
      kind: 'verify-job-cleanup';
      job: ObjectRef;
      action: 'deleted' | 'kept' | 'failed';
      detail?: string;
      commands: string[];
    }
  | { kind: 'bake-started'; workloads: ObjectRef[]; durationMs: number; verifyIntervalMs: number }
  | { kind: 'baked'; outcome: BakeOutcome; workloads: number }
  /** The bake ended early; `workload` is the one that broke, when one did. */
  | { kind: 'bake-failed'; workload?: ObjectRef; outcome: BakeOutcome; shown: number }
  /** One evaluation of one metric of the analysis (--analysis). */
  | { kind: 'analysis'; evaluation: AnalysisEvaluation }
  /** The analysis's verdict: the line that names the metric, its query, the value, the expectation and the window. */
  | { kind: 'analysis-verdict'; outcome: AnalysisOutcome }
  /** Something broke after the apply: what the apply changed is restored anyway. */
  | { kind: 'internal-error'; message: string }
  | {
      kind: 'finished';
      outcome: Outcome;
      exitCode: number;
      failedWorkloads: number;
      restored: boolean;
      /** The apply changed nothing; a rollout left unfinished before it was judged (run/apply/changes.ts judgeUnsettled). */
      changedNothing?: boolean;
    }
  /** One kubectl process kguard ran, when it ended (only with --verbose); credentials in args masked. */
  | {
      kind: 'kubectl';
      args: string[];
      durationMs: number;
      exitCode: number;
      timedOut: boolean;
      stream: boolean /** The call went through the run's kubectl proxy as one request (kubectl/channel/api-channel.ts). */;
      proxied?: boolean;
      /** The process started before the run, as the CLI read its command line (kubectl/early-start.ts); durationMs is how long the run waited for it. */
      early?: boolean;
    };

/** One kubectl process that ended: its arguments (the binary aside), how long it ran, how it ended (timedOut: killed at its deadline; stream: a watch). */
export type KubectlCall = Omit<Extract<RunEvent, { kind: 'kubectl' }>, 'kind'>;

/** One object of the apply and what the apply did (or would do) to it. */
export interface ChangedObject {
  ref: ObjectRef;
  change: ChangeKind;
  changedFields: string[];
}

/**
 * What was being watched when an event came: the new rollout, the workloads a restore wrote back, or
 * a verify Job (--verify-job). Events carry it as their `phase` field (eventsVersion 1).
 */
export type Watching = 'rollout' | 'rollback' | 'verify';

export type RunEventKind = RunEvent['kind'];

export interface Reporter {
  emit(event: RunEvent): void;
  /** Called once at the end, with the exit code's error message when kguard could not do its job. */
  close(): void;
}
