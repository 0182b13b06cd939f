// The fleet's decisions, pure: its waves from the command line, which clusters the fleet restores
// after a failure, and the one exit code of the whole fleet.
import { ExitCode, InputError } from '../../errors.js';
import { splitPassThrough } from '../../kubectl/passthrough.js';
import type {
  ClusterEnd,
  ContextOverrides,
  FleetOutcome,
  FleetPlan,
  FleetRollbackMode,
  FleetRun,
  FleetWave,
} from '../../model/fleet.js';
import type { GuardedApplyOptions } from '../../model/options.js';

/** --contexts a,b,c: one wave each, in order; --canary c: a wave of c, then every other context in one wave. */
export function fleetWaves(contexts: readonly string[], canary: string | undefined): string[][] {
  const named = contexts.map((context) => context.trim()).filter((context) => context !== '');
  const duplicate = named.find((context, index) => named.indexOf(context) !== index);
  if (duplicate !== undefined) throw new InputError(`--contexts names ${duplicate} twice; give each context once.`);
  if (canary === undefined) {
    if (named.length === 0)
      throw new InputError(
        '--contexts names no context; give them comma-separated, e.g. --contexts staging,eu-1,us-1.',
      );
    return named.map((context) => [context]);
  }
  const rest = named.filter((context) => context !== canary);
  return rest.length > 0 ? [[canary], rest] : [[canary]];
}

/** Waves of contexts as the plan's waves: every cluster of a wave at once, each with the command line's --bake. */
export function planWaves(waves: readonly string[][]): FleetWave[] {
  return waves.map((contexts) => ({ contexts: [...contexts] }));
}

/**
 * One cluster's options: the fleet's, with the context pinned, the fleet run journalled, the
 * wave's bake, and the fleet file's overrides for this context (its namespace, kubeconfig and
 * kubectl flags: a connection flag reaches every call, any other the apply).
 */
export function clusterOptions(
  options: GuardedApplyOptions,
  context: string,
  wave: FleetWave,
  plan: Pick<FleetPlan, 'rollback' | 'overrides'>,
  fleet: FleetRun,
): GuardedApplyOptions {
  const overrides: ContextOverrides = plan.overrides?.[context] ?? {};
  const extra = splitPassThrough(overrides.kubectlArgs ?? []);
  const replaced = (arg: string) =>
    (overrides.kubeconfig !== undefined && arg.startsWith('--kubeconfig=')) ||
    extra.connection.some((flag) => flag.split('=')[0] === arg.split('=')[0]);
  return {
    ...options,
    namespace: overrides.namespace ?? extra.namespace ?? options.namespace,
    connectionArgs: [
      ...options.connectionArgs.filter((arg) => !replaced(arg)),
      ...(overrides.kubeconfig !== undefined ? [`--kubeconfig=${overrides.kubeconfig}`] : []),
      ...extra.connection,
      `--context=${context}`,
    ],
    applyArgs: [...options.applyArgs, ...extra.apply],
    selectionArgs: [...options.selectionArgs, ...extra.selection],
    bakeMs: wave.bakeMs ?? options.bakeMs,
    keepJournal: true,
    fleet,
    // `none`: the fleet restores nothing, the failing cluster included.
    rollback: plan.rollback === 'none' ? 'none' : options.rollback,
  };
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
  if ((failed.exitCode === ExitCode.ClusterError || failed.exitCode === ExitCode.InputError) && restoredOthers)
    return ExitCode.RolledBack;
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
  if (
    exitCode === ExitCode.RolledBack &&
    !ends.some((end) => end.outcome === 'rolled-back' || end.outcome === 'restored')
  )
    return 'failed';
  return OUTCOMES[exitCode] ?? 'error';
}
