// A fleet apply's types: the waves of contexts, what to restore when one cluster fails, and
// where each cluster ended. Types only.

/** When a cluster fails: restore every cluster this fleet run changed (all), only the failed one (failed), or none. */
export type FleetRollbackMode = 'all' | 'failed' | 'none';

export interface FleetPlan {
  /** Contexts in waves: a wave's clusters run in parallel; a wave starts when the one before it is healthy. */
  waves: string[][];
  rollback: FleetRollbackMode;
}

/**
 * Where one cluster ended. A run's own outcome when it ran; `error` when kguard could not run
 * there (unreachable, refused: nothing was applied); `restored` when the fleet restored a
 * healthy cluster because another failed; `not-reached` when its wave never started.
 */
export type ClusterOutcome =
  | 'succeeded'
  | 'unchanged'
  | 'previewed'
  | 'rolled-back'
  | 'failed'
  | 'timed-out'
  | 'needs-attention'
  | 'interrupted'
  | 'error'
  | 'restored'
  | 'not-reached';

export interface ClusterEnd {
  context: string;
  /** 1-based. */
  wave: number;
  outcome: ClusterOutcome;
  /** The exit code this cluster alone would have; null when it was not reached. */
  exitCode: number | null;
  /** The cluster's run (its journal); null when nothing was journalled there. */
  runId: string | null;
  /** Why kguard could not run there, or what the fleet's restore left to a person. */
  message: string | null;
}

export type FleetOutcome = 'succeeded' | 'rolled-back' | 'failed' | 'timed-out' | 'needs-attention' | 'interrupted' | 'error';
