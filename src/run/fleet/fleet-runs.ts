// A fleet run across its clusters, after the fact: which run of each context belongs to it (its
// journal names the fleet run), what `kguard status --contexts` says of them, and the exit of
// `kguard rollback FLEET --contexts`. Pure: the caller lists each context's runs.
import { ExitCode } from '../../errors.js';
import { statusLine, type RunRecord } from '../../journal/runs.js';

/** One context's runs as listed, or why they could not be. */
export type ContextRuns = { context: string; runs: RunRecord[] } | { context: string; error: string };

/** The runs of one context that belong to the fleet run (one, unless a run of it was started twice there). */
export function runsOfFleet(runs: readonly RunRecord[], fleetRunId: string): RunRecord[] {
  return runs.filter((run) => run.journal?.fleet?.runId === fleetRunId);
}

/**
 * `kguard status --contexts a,b,c`: each fleet run found, with one line per context it names (or
 * the contexts asked about): its run there, live, dead or finished; then every other run, by context.
 */
export function fleetStatusLines(listings: readonly ContextRuns[], now: Date): string[] {
  const asked = listings.map((listing) => listing.context);
  const fleets = new Map<string, string[]>();
  for (const listing of listings) {
    if (!('runs' in listing)) continue;
    for (const run of listing.runs) {
      const fleet = run.journal?.fleet;
      if (fleet && !fleets.has(fleet.runId)) fleets.set(fleet.runId, fleet.contexts);
    }
  }
  const lines: string[] = [];
  for (const [fleetRunId, contexts] of [...fleets].sort(([left], [right]) => left.localeCompare(right))) {
    const named = [...new Set([...contexts, ...asked])];
    const runs = named.map((context) => ({
      context,
      listing: listings.find((candidate) => candidate.context === context),
    }));
    const unfinished = runs.some(
      ({ listing }) =>
        listing &&
        'runs' in listing &&
        runsOfFleet(listing.runs, fleetRunId).some(
          (run) => run.liveness.state !== 'live' && run.liveness.state !== 'finished',
        ),
    );
    lines.push(
      `fleet run ${fleetRunId} (contexts ${contexts.join(', ')})${unfinished ? `  →  kguard rollback ${fleetRunId} --contexts ${named.join(',')}` : ''}`,
    );
    for (const { context, listing } of runs) {
      if (!listing) lines.push(`  context ${context}: not asked about (add it to --contexts)`);
      else if (!('runs' in listing)) lines.push(`  context ${context}: cannot tell: ${listing.error}`);
      else {
        const mine = runsOfFleet(listing.runs, fleetRunId);
        if (mine.length === 0)
          lines.push(`  context ${context}: no journal of this fleet run (not reached, or its run there ended)`);
        for (const run of mine)
          lines.push(`  context ${context}: ${run.liveness.state}  ${statusLine(run, now, false)}`);
      }
    }
  }
  for (const listing of listings) {
    if (!('runs' in listing)) {
      if (fleets.size === 0) lines.push(`context ${listing.context}: cannot tell: ${listing.error}`);
      continue;
    }
    for (const run of listing.runs.filter((candidate) => !candidate.journal?.fleet))
      lines.push(`context ${listing.context}: ${statusLine(run, now)}`);
  }
  return lines.length > 0 ? lines : [`no unfinished kguard runs in contexts ${asked.join(', ')}`];
}

/** How `kguard rollback FLEET --contexts` ended in one context. */
export interface FleetRestoreEnd {
  context: string;
  /** The fleet's run there, or null when the context holds none. */
  runId: string | null;
  outcome: 'restored' | 'no-journal' | 'needs-attention';
  restored: number;
  untouched: number;
  needsPerson: number;
  message: string | null;
}

/** 0 when every context with the fleet's journal was restored; 4 when any needs a person (a refusal, an unreachable cluster, a live run). */
export function fleetRestoreExitCode(ends: readonly FleetRestoreEnd[]): number {
  return ends.some((end) => end.outcome === 'needs-attention') ? ExitCode.RollbackFailed : ExitCode.Success;
}

const WORDS: Record<FleetRestoreEnd['outcome'], string> = {
  restored: 'restored',
  'no-journal': 'no journal of this fleet run: nothing to restore',
  'needs-attention': 'needs a person',
};

export function fleetRestoreLines(fleetRunId: string, ends: readonly FleetRestoreEnd[]): string[] {
  const lines = ends.map((end) => {
    const run = end.runId ? ` run ${end.runId}` : '';
    const counts =
      end.runId && end.outcome !== 'no-journal'
        ? ` (${end.restored} restored, ${end.untouched} already as before, ${end.needsPerson} for a person)`
        : '';
    return `context ${end.context}:${run} ${WORDS[end.outcome]}${counts}${end.message ? `: ${end.message}` : ''}`;
  });
  const exitCode = fleetRestoreExitCode(ends);
  return [
    ...lines,
    `fleet run ${fleetRunId}: ${exitCode === ExitCode.Success ? 'restored' : 'needs a person'} (exit ${exitCode})`,
  ];
}
