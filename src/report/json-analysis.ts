// The report's account of the metric analysis (--analysis): part of the --output json report
// (json.ts), described by schema/report.schema.json (AnalysisReport). Fields are never omitted:
// an absent value is null. Pure.
import type { AnalysisEvaluation, AnalysisOutcome, MetricTally } from '../model/analysis.js';
import type { Verification } from '../model/verify.js';

type Nulled<T> = { [K in keyof T]-?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };

export type JsonAnalysisEvaluation = Nulled<AnalysisEvaluation>;

export type JsonAnalysis = Omit<Nulled<AnalysisOutcome>, 'evaluations' | 'metrics'> & {
  metrics: MetricTally[];
  evaluations: JsonAnalysisEvaluation[];
};

export function analysisReport(verification: Verification | undefined): JsonAnalysis | null {
  const analysis = verification?.analysis;
  if (!analysis) return null;
  return {
    verdict: analysis.verdict,
    during: analysis.during,
    summary: analysis.summary,
    metric: analysis.metric ?? null,
    query: analysis.query ?? null,
    nextStep: analysis.nextStep ?? null,
    metrics: analysis.metrics.map((metric) => ({ ...metric })),
    evaluations: analysis.evaluations.map(evaluationReport),
    elapsedMs: Math.round(analysis.elapsedMs),
  };
}

function evaluationReport(evaluation: AnalysisEvaluation): JsonAnalysisEvaluation {
  return {
    metric: evaluation.metric,
    query: evaluation.query,
    index: evaluation.index,
    of: evaluation.of ?? null,
    at: evaluation.at,
    windowStart: evaluation.windowStart,
    result: evaluation.result,
    // JSON has no Infinity: Prometheus's +Inf is said as null with the expectation beside it.
    value: evaluation.value !== undefined && Number.isFinite(evaluation.value) ? evaluation.value : null,
    series: evaluation.series ?? null,
    previous: evaluation.previous !== undefined && Number.isFinite(evaluation.previous) ? evaluation.previous : null,
    expectation: evaluation.expectation,
    detail: evaluation.detail ?? null,
    elapsedMs: Math.round(evaluation.elapsedMs),
  };
}
