// What the tracker and the bake share about one watched object: the target, how its kind is
// judged (its row and the engine's rules), its deadline, and where the looks come from.
import type { Clock } from '../clock.js';
import type { RolloutRules } from '../kinds/engine.js';
import { NO_OVERRIDES, type Overrides } from '../kinds/overrides.js';
import { rowFor, type KindRow } from '../kinds/table.js';
import type { Kubectl } from '../kubectl/types.js';
import type { Reporter } from '../model/events.js';
import type { TrackOptions } from '../model/options.js';
import type { Expectation } from '../model/verdict.js';
import type { ObjectRef } from '../objects/model.js';
import { perCopy } from '../objects/per-copy.js';
import { pollingSource, WatchSource, WATCH_SOURCE_DEFAULTS, type WorkloadSource } from './sources.js';
import { watchQueries } from './watch-scope.js';

export interface TrackTarget {
  workload: ObjectRef;
  expected: Expectation;
  /** How to judge it; by default the row of its kind. */
  row?: KindRow;
  /** Its annotations' overrides (its own timeout, must-succeed). */
  overrides?: Overrides;
  /** Its label selector (spec.selector) as a query string: its watches take only its objects. */
  selector?: string;
}

export interface TrackDeps {
  kubectl: Pick<Kubectl, 'workloadSnapshot' | 'events'> &
    Partial<Pick<Kubectl, 'logs' | 'listCollection' | 'watchCollection' | 'apiResources'>>;
  clock: Clock;
  reporter: Reporter;
  /** Aborted when the run is cancelled: tracking stops and each rollout keeps its last verdict. */
  signal?: AbortSignal;
}

export function rowOf(target: TrackTarget): KindRow {
  return target.row ?? rowFor(target.workload);
}

/**
 * The engine's rules for a watched target (only kinds with rules are ever watched), made once a
 * target (objects/per-copy.ts): a look asks for them twice for every pending workload, and making
 * them anew each time was seconds of CPU and garbage a run at 334 Deployments (docs/performance.md).
 */
export const rulesOf = perCopy((target: TrackTarget): RolloutRules<unknown> => {
  const rules = rowOf(target).rules(target.overrides ?? NO_OVERRIDES);
  if (!rules)
    throw new Error(`kguard has no rules to watch ${target.workload.kind}: it should have been planned as applied`);
  return rules;
});

/** An object's own deadline (kguard.dev/timeout) or the run's. */
export function timeoutOf(target: TrackTarget, options: TrackOptions): number {
  return target.overrides?.timeoutMs ?? options.timeoutMs;
}

/** Watches when asked to and kubectl can; the queries cover every type each target's row reads. */
export function sourceFor(
  targets: readonly TrackTarget[],
  options: Pick<TrackOptions, 'watch' | 'pollIntervalMs'>,
  deps: TrackDeps,
): WorkloadSource {
  const { listCollection, watchCollection } = deps.kubectl;
  if (!options.watch || !listCollection || !watchCollection) return pollingSource(deps.kubectl, deps.clock);
  const queries = watchQueries(
    targets.map((target) => ({
      workload: target.workload,
      reads: rowOf(target).reads(target.workload),
      selector: target.selector,
      siblings: rowOf(target).readsSiblings,
    })),
  );
  const kubectl = {
    workloadSnapshot: deps.kubectl.workloadSnapshot.bind(deps.kubectl),
    listCollection: listCollection.bind(deps.kubectl),
    watchCollection: watchCollection.bind(deps.kubectl),
  };
  return new WatchSource(
    queries,
    { kubectl, clock: deps.clock, reporter: deps.reporter },
    { ...WATCH_SOURCE_DEFAULTS, pollIntervalMs: options.pollIntervalMs },
  );
}
