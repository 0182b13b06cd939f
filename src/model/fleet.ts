// A fleet apply's types: the waves of contexts, what to restore when one cluster fails, and
// where each cluster ended. Types only.
import type { Outcome } from './result.js';

/** When a cluster fails: restore every cluster this fleet run changed (all), only the failed one (failed), or none. */
export type FleetRollbackMode = 'all' | 'failed' | 'none';

/** What a fleet file (--fleet) may set for one context, over the command line's. */
export interface ContextOverrides {
  /** The namespace for objects that name none (-n). */
  namespace?: string;
  /** The kubeconfig file this context is read from. */
  kubeconfig?: string;
  /** More kubectl flags: connection flags (--as, --server…) go to every call, the others to the apply. */
  kubectlArgs?: string[];
}

export interface FleetWave {
  /** Its clusters: they run in parallel, at most `parallel` at once (default: all). */
  contexts: string[];
  parallel?: number;
  /** Each cluster of the wave bakes this long (--bake) before the wave ends; default the command line's --bake. */
  bakeMs?: number;
}

export interface FleetPlan {
  /** Contexts in waves: a wave starts when the one before it is healthy (and baked). */
  waves: FleetWave[];
  rollback: FleetRollbackMode;
  /** Per context, from a fleet file. */
  overrides?: Record<string, ContextOverrides>;
  /** Where the plan came from (a fleet file), for messages. */
  source?: string;
}

/** A fleet run: its id, journalled in every cluster it changes, and every context it names. */
export interface FleetRun {
  runId: string;
  contexts: string[];
}

/**
 * Where one cluster ended. A run's own outcome when it ran; `error` when kguard could not run
 * there (unreachable, refused: nothing was applied); `restored` when the fleet restored a
 * healthy cluster because another failed; `not-reached` when its wave never started.
 */
export type ClusterOutcome = Outcome | 'error' | 'restored' | 'not-reached';

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

export type FleetOutcome =
  | 'succeeded'
  | 'rolled-back'
  | 'failed'
  | 'timed-out'
  | 'needs-attention'
  | 'interrupted'
  | 'error';
