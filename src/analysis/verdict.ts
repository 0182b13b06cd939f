// The analysis's verdict from its metrics' verdicts: the first metric that failed decides
// (failed), else the first that could not be judged (inconclusive), else it passed. The verdict
// line names the metric, its query, the value, the expectation and the window. Pure.
import type { AnalysisEvaluation, AnalysisOutcome, AnalysisVerdict, MetricTally } from '../model/analysis.js';
import { round } from './rules.js';

export interface MetricEnd {
  tally: MetricTally;
  /** The evaluation that decided a failed or inconclusive verdict. */
  decisive?: AnalysisEvaluation;
  /** The failures it tolerated (0 in the short form after the rollout). */
  failureLimit: number;
}

export function analysisOutcome(
  ends: readonly MetricEnd[],
  evaluations: AnalysisEvaluation[],
  context: { during: AnalysisOutcome['during']; elapsedMs: number; source: string },
): AnalysisOutcome {
  const metrics = ends.map((end) => end.tally);
  const base = { during: context.during, metrics, evaluations, elapsedMs: context.elapsedMs };
  const deciding =
    ends.find((end) => end.tally.verdict === 'failed') ?? ends.find((end) => end.tally.verdict === 'inconclusive');
  if (!deciding?.decisive) {
    const verdict: AnalysisVerdict = ends.some((end) => end.tally.verdict === 'stopped') ? 'stopped' : 'passed';
    return {
      ...base,
      verdict,
      summary:
        verdict === 'passed'
          ? `analysis passed: ${metrics.map((metric) => `${metric.name} ${metric.evaluations - metric.failures}/${metric.evaluations}`).join(', ')} evaluations within their rules`
          : 'analysis stopped before its verdict',
    };
  }
  const { tally, decisive, failureLimit } = deciding;
  const window = `in the window ${clockTime(decisive.windowStart)}–${clockTime(decisive.at)}`;
  const place = `evaluation ${decisive.index}${decisive.of ? ` of ${decisive.of}` : ''}`;
  if (tally.verdict === 'failed') {
    const value =
      decisive.value === undefined
        ? (decisive.detail ?? 'no value')
        : `= ${round(decisive.value)}${decisive.series ? ` for ${decisive.series}` : ''}`;
    return {
      ...base,
      verdict: 'failed',
      metric: tally.name,
      query: decisive.query,
      summary: `analysis failed: metric ${tally.name}: \`${decisive.query}\` ${value}, expected ${decisive.expectation}, ${window} (${place}; ${tally.failures} failed, failureLimit ${failureLimit})`,
      nextStep: `the metric says the new version is worse; what it changed is restored. Look at ${tally.name} in Prometheus, fix the release (or the rule in ${context.source}) and apply again`,
    };
  }
  return {
    ...base,
    verdict: 'inconclusive',
    metric: tally.name,
    query: decisive.query,
    summary: `analysis inconclusive: metric ${tally.name}: \`${decisive.query}\` could not be judged (${decisive.detail ?? 'no value'}), ${window} (${place})`,
    nextStep: `nothing was restored: the release is in place, unjudged. Look at ${tally.name} yourself (and at Prometheus), then keep the release or restore it with the command that follows (kguard rollback RUN; with --no-journal, the commands for each object)`,
  };
}

/** 16:31:05Z from an ISO time: a bake's windows are minutes apart, the day is the run's. */
function clockTime(iso: string): string {
  return `${iso.slice(11, 19)}Z`;
}
