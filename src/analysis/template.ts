// The run's facts a query may name, as {{ name }} (spaces optional), in the spirit of Flagger's
// MetricTemplate variables ({{ namespace }}, {{ target }}, {{ interval }}) and Argo Rollouts'
// {{args.NAME}}. Values are written into PromQL as they are: names from Kubernetes (DNS labels,
// no quote or backslash) and numbers. Pure.
import type { AnalysisFacts } from '../model/analysis.js';

export const VARIABLES = ['namespace', 'workload', 'workloads', 'interval', 'since', 'appliedAt', 'runId'] as const;
type Variable = (typeof VARIABLES)[number];

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_.]*)\s*\}\}/g;

/** The names a query uses that are not variables. */
export function unknownVariables(query: string): string[] {
  const known = new Set<string>(VARIABLES);
  return [...new Set([...query.matchAll(PLACEHOLDER)].map((match) => match[1]!))].filter((name) => !known.has(name));
}

/** Whether the query names {{ workload }} or {{ workloads }}. */
export function namesWorkloads(query: string): boolean {
  return [...query.matchAll(PLACEHOLDER)].some((match) => match[1] === 'workload' || match[1] === 'workloads');
}

/**
 * The query with its variables filled in. `now` and `facts.appliedAt` are epoch ms;
 * {{ since }} is the time from the apply to now as a PromQL duration (at least 1s), for a window
 * that covers the whole release: rate(x[{{ since }}]).
 */
export function renderQuery(query: string, facts: AnalysisFacts, intervalMs: number, now: number): string {
  const values: Record<Variable, string> = {
    namespace: facts.namespace,
    workload: facts.workloads[0] ?? '',
    // A regular expression matching every changed workload: name=~"{{ workloads }}".
    workloads: facts.workloads.map(escapeRegex).join('|'),
    interval: promDuration(intervalMs),
    since: promDuration(Math.max(1000, now - facts.appliedAt)),
    appliedAt: String(Math.floor(facts.appliedAt / 1000)),
    runId: facts.runId,
  };
  return query.replace(PLACEHOLDER, (whole, name: string) => (name in values ? values[name as Variable] : whole));
}

/** Whole seconds, as PromQL writes a duration: 30s. */
export function promDuration(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

/** RE2 metacharacters in a name (a Kubernetes name holds only `.` of them), escaped for a PromQL string. */
function escapeRegex(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, (character) => `\\\\${character}`);
}
