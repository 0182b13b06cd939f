// What kguard finds wrong with a pod, and what a verdict's evidence looks like. Types only: the
// reason table that fills them in is classify/table.ts.

export type Category =
  | 'image-pull'
  | 'crash-loop'
  | 'start'
  | 'config'
  | 'volume'
  | 'evicted'
  | 'unschedulable'
  | 'not-ready'
  | 'unknown'
  | 'replica-failure'
  | 'progress-deadline'
  /** The object's own controller says it cannot go on (kstatus Stalled, a lost volume, a failed Job). */
  | 'stalled';

/**
 * Findings of one container (or pod) that belong together: the kubelet alternates between the
 * reasons of one family (ErrImagePull ↔ ImagePullBackOff, RunContainerError ↔ CrashLoopBackOff),
 * so a grace period runs from the first time the container failed for the family, not the reason.
 */
export type Family =
  | 'image-pull'
  | 'start'
  | 'crash'
  | 'config'
  | 'volume'
  | 'eviction'
  | 'schedule'
  | 'readiness'
  | 'other';

/**
 * When a finding makes the rollout fail:
 * - now: the first time it is seen;
 * - after: once its family has been seen for `seconds`, or the container restarted `restarts`
 *   times, or `pods` pods of the new revision show it; a hiccup the kubelet retries away is not
 *   a restore;
 * - never: it is reported (and explains a timeout) but does not fail the rollout by itself.
 */
export type FatalPolicy =
  | { when: 'now' }
  | { when: 'after'; seconds: number; restarts?: number; pods?: number }
  | { when: 'never' };

export interface ReasonRule {
  category: Category;
  family: Family;
  policy: FatalPolicy;
  /** The policy depends on what the pull error says (classify/pull-errors.ts), not on the reason alone. */
  judgedByPullError?: boolean;
  /** What the new pods cannot do, for "new pods cannot …". */
  cannot: string;
  /** The next step for a person; IMAGE, CONTAINER, REASON, NAMESPACE and POD are filled in. It never
   *  sends them to a pod the restore removes: what such a command would show is printed instead. */
  nextStep: string;
}

/**
 * What a pull error says about the image: final (not found, denied), transient, lag (the tag
 * exists but a layer is not there yet: final only after a grace), or unknown.
 */
export type PullCause = 'final' | 'transient' | 'lag' | 'unknown';

export interface Finding {
  pod: string;
  namespace: string;
  /** Absent for pod-level findings (unschedulable, volumes, evictions). */
  container?: string;
  initContainer: boolean;
  image?: string;
  reason: string;
  /** The kubelet's, scheduler's or event's message, sanitised. */
  message: string;
  restartCount: number;
  /** The previous run's end, when the container has restarted: exit code and reason (Error, OOMKilled). */
  lastTermination?: { exitCode?: number; reason?: string };
  /** Whether the container's process ever ran, so it may have printed something. */
  ran: boolean;
  /** Whether it is running right now (its logs are the current run's; --previous has the crashed one). */
  running: boolean;
  /** The family this finding's grace period is counted in. */
  family: Family;
  /** For image pulls: what the last known pull error says, and that text. */
  pullCause?: PullCause;
  pullError?: string;
  rule: ReasonRule;
  /** The policy that applies: the rule's, or the one its pull error or exit reason calls for. */
  policy: FatalPolicy;
}

/** What one container printed last, read when the verdict was reached (before any restore). */
export interface ContainerLog {
  pod: string;
  container: string;
  /** From the run before the last restart (`kubectl logs --previous`), not the current one. */
  previous: boolean;
  /** Sanitised, oldest first; the text output shows only the last `shown`. */
  lines: string[];
  shown: number;
  /** Why nothing could be read, when nothing could. */
  error?: string;
}

export interface Diagnosis {
  /** One clause: "new pods cannot pull image "x:1": ErrImagePull". */
  summary: string;
  /** Evidence, one line each: grouped pod and container states, then events that add something. */
  evidence: string[];
  nextStep: string;
  /** The pod whose events are shown, for the report. */
  pod?: string;
  /** The failing containers' last lines (none when none ran, or with --log-lines 0). */
  logs?: ContainerLog[];
}
