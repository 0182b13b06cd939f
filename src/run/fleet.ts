// The fleet's decisions, pure: its waves from the command line, which clusters the fleet restores
// after a failure, and the one exit code of the whole fleet.
import { ExitCode, InputError } from '../errors.js';
import type { ClusterEnd, FleetOutcome, FleetPlan, FleetRollbackMode } from '../model/fleet.js';

/** --contexts a,b,c: one wave each, in order; --canary c: a wave of c, then every other context in one wave. */
export function fleetWaves(contexts: readonly string[], canary: string | undefined): string[][] {
  const named = contexts.map((context) => context.trim()).filter((context) => context !== '');
  const duplicate = named.find((context, index) => named.indexOf(context) !== index);
  if (duplicate !== undefined) throw new InputError(`--contexts names ${duplicate} twice; give each context once.`);
  if (canary === undefined) {
    if (named.length === 0) throw new InputError('--contexts names no context; give them comma-separated, e.g. --contexts staging,eu-1,us-1.');
    return named.map((context) => [context]);
  }
  const rest = named.filter((context) => context !== canary);
  return rest.length > 0 ? [[canary], rest] : [[canary]];
}

export function parseFleetRollback(value: string): FleetRollbackMode {
  if (value === 'all' || value === 'failed' || value === 'none') return value;
  throw new InputError(`--fleet-rollback ${JSON.stringify(value)} is not one of all, failed, none.`);
}

/**
 * After a failure, the healthy clusters whose changes the fleet takes back: with `all`, every
 * cluster this run changed (a journal and an outcome of succeeded); never one not reached.
 */
export function clustersToRestore(ends: readonly ClusterEnd[], mode: FleetPlan['rollback']): ClusterEnd[] {
  if (mode !== 'all') return [];
  return ends.filter((end) => end.outcome === 'succeeded' && end.runId !== null);
}

/** The first cluster that failed on its own (not one the fleet restored). */
export function firstFailure(ends: readonly ClusterEnd[]): ClusterEnd | undefined {
  return ends.find((end) => end.exitCode !== null && end.exitCode !== ExitCode.Success && end.outcome !== 'restored');
}

/**
 * The fleet's exit code, as for one cluster: 0 when every cluster is healthy; 4 when any cluster
 * needs a person; else the failing cluster's own code, except that a cluster kguard could not
 * run on (exit 2, nothing applied there) with other clusters restored is a restored fleet (3).
 */
export function fleetExitCode(ends: readonly ClusterEnd[]): number {
  if (ends.some((end) => end.exitCode === ExitCode.RollbackFailed)) return ExitCode.RollbackFailed;
  const failed = firstFailure(ends);
  if (!failed) return ExitCode.Success;
  const restoredOthers = ends.some((end) => end.outcome === 'restored');
  if ((failed.exitCode === ExitCode.ClusterError || failed.exitCode === ExitCode.InputError) && restoredOthers) return ExitCode.RolledBack;
  return failed.exitCode ?? ExitCode.ClusterError;
}

const OUTCOMES: Record<number, FleetOutcome> = {
  [ExitCode.Success]: 'succeeded',
  [ExitCode.RolledBack]: 'rolled-back',
  [ExitCode.RollbackFailed]: 'needs-attention',
  [ExitCode.TimedOut]: 'timed-out',
  [ExitCode.Interrupted]: 'interrupted',
  [ExitCode.ClusterError]: 'error',
  [ExitCode.InputError]: 'error',
};

export function fleetOutcome(ends: readonly ClusterEnd[]): FleetOutcome {
  const exitCode = fleetExitCode(ends);
  // Exit 3 is a failed rollout; it is "failed" when nothing was restored (--fleet-rollback none).
  if (exitCode === ExitCode.RolledBack && !ends.some((end) => end.outcome === 'rolled-back' || end.outcome === 'restored')) return 'failed';
  return OUTCOMES[exitCode] ?? 'error';
}
