// The apply as kubectl reads it, before anything is written: the inputs read once, the target
// pinned, kubectl's reading (the server dry run), a dead run's journal finished first, and what a
// restore could not put back said now. Every step here only reads, but finishing a dead run, whose
// writes are that run's restore, not this apply.
import { digestOfInputs, prepareInputs, refuseOversized, type PreparedInputs } from '../../../manifests/inputs.js';
import { probeHolder } from '../../../journal/holder.js';
import { makeRunId, type JournalSecretRef } from '../../../journal/store.js';
import type { ApplyOptions } from '../../../model/options.js';
import type { RecoveredRun, RunResult } from '../../../model/result.js';
import type { ObjectRef } from '../../../objects/model.js';
import { finishDeadRuns, lookAhead } from '../../../restore/recovery/dead-runs.js';
import type { Deps } from '../deps.js';
import { homeNamespace, journalPlace, type JournalPlace } from '../journal-life.js';
import { planRun, understandPlan, type RunPlan } from '../parts.js';
import { changesNothing, type Understood } from '../understand.js';
import { restoreLimits } from './restore-limits.js';

/** What the run has to let go however it ends: its inputs' copies, its plan's files, its leases, its journal's end. */
export interface RunHolds {
  inputs?: PreparedInputs;
  plan?: RunPlan;
  release: Array<() => Promise<unknown>>;
  ending?: Promise<void>;
}

/** Everything known before the first write. */
export interface Reading {
  inputs: PreparedInputs;
  target: RunResult['target'];
  plan: RunPlan;
  understood: Understood;
  /** What the apply holds and what --prune would delete. */
  refs: ObjectRef[];
  runId: string;
  place: JournalPlace;
  recovered: RecoveredRun[];
  /** Objects a live run holds: an unfinished rollout of theirs is not this run's to judge. */
  heldByLive: Set<string>;
  /** Journals whose runs ended long ago: removed while this run takes its leases. */
  expired: JournalSecretRef[][];
  /** The apply's own namespace (its first namespaced object's): verify Jobs run there. */
  home: string;
  /** The server dry run leaves every object as it is and nothing is pruned. */
  unchanged: boolean;
  /** This run keeps a journal and leases: it changes something and may need to restore it. */
  journalled: boolean;
  /** The digest of the bytes kubectl reads (for the history), read while kubectl works. */
  inputsDigest?: Promise<string | undefined>;
}

export async function readTheApply(options: ApplyOptions, deps: Deps, holds: RunHolds): Promise<Reading> {
  const inputs = await prepareInputs(options.manifests, deps.inputs);
  holds.inputs = inputs;
  await refuseOversized(inputs);
  await deps.inputs.learnFiles?.(inputs);
  const inputsDigest =
    options.history !== 0 && !options.dryRun ? digestOfInputs(inputs).catch(() => undefined) : undefined;
  // The run's target, resolved once and passed on every later call: a context switched while
  // kguard watches cannot send the restore to another cluster.
  const target = await deps.kubectl.pinTarget();
  if (target) deps.reporter.emit({ kind: 'target', ...target });
  const probe = deps.probe ?? probeHolder;
  // The dead-run look where the objects most likely are, beside the dry run (through the proxy only).
  const ahead = !options.dryRun && deps.kubectl.openChannel() ? (options.namespace ?? target?.namespace) : undefined;
  const looked = ahead ? lookAhead(ahead, { kubectl: deps.kubectl, probe }) : undefined;
  const plan = await planRun(inputs, options);
  holds.plan = plan;
  // A refused dry run ends the run before kguard writes anything, its own leases included.
  let understood = await understandPlan(plan, options, deps);
  let refs = [...understood.refs, ...understood.pruned];
  // Each namespace's copies are journalled in it; cluster-scoped ones in --journal-namespace, where their Leases go too.
  let place = journalPlace(refs, understood.current, options.journalNamespace);
  // A dead run's journal on these objects holds their true "before": that run is finished first
  // (restore/recovery/dead-runs.ts), and what kubectl reads of the objects is read again after it.
  const { recovered, heldByLive, expired } = options.dryRun
    ? { recovered: [], heldByLive: new Set<string>(), expired: [] }
    : await finishDeadRuns(
        refs,
        place.namespaces,
        { deadlineMs: options.rollbackTimeoutMs },
        { ...deps, probe, looked },
      );
  if (recovered.length > 0) {
    understood = await understandPlan(plan, options, deps);
    refs = [...understood.refs, ...understood.pruned];
    place = journalPlace(refs, understood.current, options.journalNamespace);
  }
  // What a restore could not put back, or would put back another way: said before anything changes.
  for (const limit of restoreLimits(understood)) deps.reporter.emit(limit);
  // Parts kubectl can read only once this apply's CRDs exist cannot be judged unchanged now.
  const unchanged = plan.parts.every((part) => part.understood) && changesNothing(understood);
  return {
    inputs,
    target,
    plan,
    understood,
    refs,
    runId: deps.runId ?? makeRunId(),
    place,
    recovered,
    heldByLive,
    expired,
    home: homeNamespace(refs, options.namespace),
    unchanged,
    // An apply the API server says changes nothing writes nothing of kguard's either: no lease, no journal.
    journalled: options.journal && !options.dryRun && !unchanged,
    inputsDigest,
  };
}
