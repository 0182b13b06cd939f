// A fleet's report (--output json) and its closing lines on the terminal: one line per cluster.
import type { ClusterEnd, ClusterOutcome, FleetOutcome, FleetPlan } from '../model/fleet.js';
import type { JsonReport } from './json.js';

export interface FleetReport {
  reportVersion: number;
  fleet: true;
  /** The fleet run's id, journalled in every cluster it changed (kguard status/rollback --contexts). */
  fleetRunId: string;
  outcome: FleetOutcome;
  exitCode: number;
  fleetRollback: FleetPlan['rollback'];
  /** Every cluster of the fleet, in wave order, with the report of its own run (null when none ran). */
  clusters: Array<ClusterEnd & { report: JsonReport | null }>;
}

const WORDS: Record<ClusterOutcome, string> = {
  succeeded: 'healthy',
  unchanged: 'unchanged',
  previewed: 'previewed',
  'rolled-back': 'failed, restored',
  failed: 'failed, not restored',
  'timed-out': 'timed out',
  'needs-attention': 'needs a person',
  interrupted: 'interrupted',
  error: 'not applied: kguard could not run there',
  restored: 'healthy, restored because another cluster failed',
  'not-reached': 'not reached: untouched',
};

/** `context staging (wave 1): healthy, restored because another cluster failed (exit 3)`, then the fleet's line. */
export function fleetLines(report: FleetReport): string[] {
  const lines = report.clusters.map((cluster) => {
    const exit = cluster.exitCode === null ? '' : ` (exit ${cluster.exitCode})`;
    const message = cluster.message ? `: ${cluster.message}` : '';
    return `context ${cluster.context} (wave ${cluster.wave}): ${WORDS[cluster.outcome]}${exit}${message}`;
  });
  return [...lines, `fleet: ${report.outcome} (exit ${report.exitCode})`];
}
