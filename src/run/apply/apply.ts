// The whole of `kguard apply`, split at its one invariant, "has anything been written yet?":
//   before the first write (before-write/): read the inputs once, kubectl's reading (the server dry
//     run), a dead run finished first, the checks (before-write/checks.ts rows); a signal here means
//     exit 130 and nothing applied;
//   the guard (guard.ts): leases, the pre-apply copies read again under them, the journal;
//   after the first write (after-write.ts): apply phase by phase, detect, track, verify, restore,
//     history; a signal here means restore.
import { runPrometheusClient } from '../../analysis/prometheus.js';
import { interruptible } from '../../clock.js';
import { InterruptedError } from '../../errors.js';
import { stopOnRequest } from '../../journal/stop.js';
import type { ApplyOptions } from '../../model/options.js';
import type { RunResult } from '../../model/result.js';
import { afterTheWrite } from './after-write.js';
import { startChecks } from './before-write/checks.js';
import { previewRun } from './before-write/preview.js';
import { readTheApply, type Reading, type RunHolds } from './before-write/reading.js';
import { changesNothingAtAll, nothingToChange } from './before-write/unchanged.js';
import { cancelReason, type Deps } from './deps.js';
import { takeTheGuard, type Guard } from './guard.js';

export type { Deps };

export async function runApply(options: ApplyOptions, rawDeps: Deps): Promise<RunResult> {
  // A signal, or a stop request on the run's Lease (kguard rollback from anywhere): the same cancellation.
  const stopping = stopOnRequest(rawDeps.signal, { poll: options.poll });
  // One Prometheus client for the run (--analysis): the query check and the analysis share it.
  const prometheus =
    rawDeps.prometheus ?? (options.analysis ? runPrometheusClient(options.analysis.prometheus) : undefined);
  const deps = {
    ...rawDeps,
    prometheus,
    signal: stopping.signal,
    clock: interruptible(rawDeps.clock, stopping.signal),
  };
  const started = { at: deps.clock.now(), iso: new Date().toISOString() };
  const holds: RunHolds = { release: [] };
  const ended = (result: RunResult) => {
    deps.announce?.(result);
    return result;
  };
  let result: RunResult | undefined;
  try {
    let reading: Reading;
    let guard: Guard;
    try {
      // Before the apply every kubectl call is a read: a signal stops them at once.
      deps.kubectl.cancelReadsOn(deps.signal);
      reading = await readTheApply(options, deps, holds);
      if (changesNothingAtAll(reading, options))
        return (result = ended(await nothingToChange(reading, options, deps, started.at)));
      const checks = startChecks(reading, options, deps);
      guard = await takeTheGuard(
        reading,
        checks,
        options,
        {
          ...deps,
          renewalClock: rawDeps.clock,
          leased: (held) =>
            stopping.watch(deps.kubectl, held, reading.runId, { clock: rawDeps.clock, reporter: deps.reporter }),
        },
        holds,
      );
      if (options.dryRun) return (result = ended(await previewRun(reading, guard.before, options, deps, started.at)));
    } catch (error) {
      throw beforeTheApply(error, deps.signal);
    }
    result = ended(await afterTheWrite(reading, guard, started, options, deps, holds));
    return result;
  } finally {
    // However the run ended, letting its leases go must land: a signal no longer stops kubectl.
    stopping.end();
    deps.kubectl.stopCancelling();
    await Promise.all([
      holds.ending,
      ...holds.release.map((release) => release()),
      holds.inputs?.cleanup(),
      holds.plan?.cleanup(),
      rawDeps.prometheus ? undefined : prometheus?.close(),
    ]);
    // Every kubectl process of the run is counted, the cleanup's included.
    if (result) result.kubectlProcesses = deps.kubectl.spawned;
  }
}

/** A signal before the apply: whatever failed on the way (a stopped read), nothing was applied. */
function beforeTheApply(error: unknown, signal: AbortSignal | undefined): unknown {
  // One that says more (a dead run's restore stopped part way: restore/recovery/dead-runs.ts) stands.
  return signal?.aborted && !(error instanceof InterruptedError)
    ? new InterruptedError(`${cancelReason(signal)} before the apply: nothing was applied.`)
    : error;
}
