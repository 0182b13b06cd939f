// How the analysis's events read (--analysis): one line per evaluation, then the verdict line
// that names the metric, its query, the value, the expectation and the window. The analysis rows
// of the one exhaustive table of formatters (format.ts).
import type { AnalysisEvaluation } from '../../model/analysis.js';
import type { RunEvent } from '../../model/events.js';
import type { Line } from './line.js';

type AnalysisFormatters = {
  [K in 'analysis' | 'analysis-verdict']: (event: Extract<RunEvent, { kind: K }>) => Line;
};

export const ANALYSIS_FORMATTERS: AnalysisFormatters = {
  analysis: ({ evaluation }) => ({
    // One failed evaluation is not yet the verdict (failureLimit): a warning until it is.
    tone: evaluation.result === 'passed' ? 'ok' : 'warn',
    text: `analysis: ${evaluation.metric} ${evaluation.index}${evaluation.of ? `/${evaluation.of}` : ''}: ${evaluationText(evaluation)} (Prometheus answered in ${evaluation.elapsedMs}ms)`,
  }),
  'analysis-verdict': ({ outcome }) => ({
    tone:
      outcome.verdict === 'passed'
        ? 'ok'
        : outcome.verdict === 'failed'
          ? 'fail'
          : outcome.verdict === 'stopped'
            ? 'info'
            : 'alarm',
    text: outcome.summary,
    details: outcome.nextStep ? [`next: ${outcome.nextStep}`] : [],
  }),
};

function evaluationText(evaluation: AnalysisEvaluation): string {
  if (evaluation.value === undefined) return `${evaluation.result}: ${evaluation.detail ?? 'no value'}`;
  const series = evaluation.series ? ` ${evaluation.series}` : '';
  return `${evaluation.result}:${series} ${round(evaluation.value)}, expected ${evaluation.expectation}`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}
