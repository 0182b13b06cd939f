// The rules that judge one evaluation (threshold, previous), what no data means, and a metric's
// tally against its failure and inconclusive limits, as Argo Rollouts counts them (a metric fails
// when its failures pass failureLimit). Pure: the queries happen in run.ts.
import type { AnalysisEvaluation, AnalysisVerdict, MetricCheck, MetricRule } from '../model/analysis.js';
import type { PrometheusAnswer, Sample } from './answer.js';

/** The evaluation's place: which metric, which time, which window. */
export interface EvaluationPlace {
  check: MetricCheck;
  query: string;
  index: number;
  at: string;
  windowStart: string;
  elapsedMs: number;
}

interface Judged {
  passed: boolean;
  expectation: string;
}

/** One evaluation from Prometheus's answer (and, under `previous`, its answer at the apply's moment). */
export function evaluate(
  place: EvaluationPlace,
  answer: PrometheusAnswer,
  baseline?: PrometheusAnswer,
): AnalysisEvaluation {
  const { check } = place;
  const base = {
    metric: check.name,
    query: place.query,
    index: place.index,
    ...(check.count === undefined ? {} : { of: check.count }),
    at: place.at,
    windowStart: place.windowStart,
    elapsedMs: place.elapsedMs,
  };
  const expectation = describeRule(check.rule);
  if (!answer.ok) return { ...base, result: 'inconclusive', expectation, detail: `Prometheus: ${answer.message}` };
  if (check.rule.type === 'previous' && baseline && !baseline.ok)
    return {
      ...base,
      result: 'inconclusive',
      expectation,
      detail: `Prometheus, at the apply's moment: ${baseline.message}`,
    };
  const samples = answer.samples.filter((sample) => !Number.isNaN(sample.value));
  if (samples.length === 0) return noData(base, expectation, check, 'no data: the query returned no value');
  let worst: { sample: Sample; judged: Judged; previous?: number } | undefined;
  for (const sample of samples) {
    const previous = check.rule.type === 'previous' ? baselineFor(sample, samples.length, baseline) : undefined;
    if (check.rule.type === 'previous' && previous === undefined)
      return noData(
        base,
        expectation,
        check,
        `no data at the apply's moment for ${sample.labels}: nothing to compare with`,
      );
    const judged = judge(check.rule, sample.value, previous);
    if (!worst || (worst.judged.passed && !judged.passed)) worst = { sample, judged, previous };
  }
  const { sample, judged, previous } = worst!;
  return {
    ...base,
    result: judged.passed ? 'passed' : 'failed',
    value: sample.value,
    ...(samples.length > 1 || sample.labels !== '{}' ? { series: sample.labels } : {}),
    ...(previous === undefined ? {} : { previous }),
    expectation: judged.expectation,
  };
}

function noData(
  base: Omit<AnalysisEvaluation, 'result' | 'expectation'>,
  expectation: string,
  check: MetricCheck,
  detail: string,
): AnalysisEvaluation {
  const result = check.noData === 'fail' ? 'failed' : check.noData === 'pass' ? 'passed' : 'inconclusive';
  return { ...base, result, expectation, detail: `${detail} (noData: ${check.noData})` };
}

/** The same series at the apply's moment; a lone series is its own match whatever its labels. */
function baselineFor(sample: Sample, count: number, baseline: PrometheusAnswer | undefined): number | undefined {
  if (!baseline?.ok) return undefined;
  const values = baseline.samples.filter((candidate) => !Number.isNaN(candidate.value));
  const match =
    values.find((candidate) => candidate.labels === sample.labels) ??
    (count === 1 && values.length === 1 ? values[0] : undefined);
  return match?.value;
}

export function judge(rule: MetricRule, value: number, previous?: number): Judged {
  if (rule.type === 'threshold') {
    const passed = (rule.min === undefined || value >= rule.min) && (rule.max === undefined || value <= rule.max);
    return { passed, expectation: describeRule(rule) };
  }
  const before = previous ?? 0;
  const slack = Math.abs(before) * rule.tolerance + rule.margin;
  const max = rule.deviation === 'lower' ? undefined : before + slack;
  const min = rule.deviation === 'higher' ? undefined : before - slack;
  const passed = (min === undefined || value >= min) && (max === undefined || value <= max);
  const bounds = [min === undefined ? '' : `≥ ${round(min)}`, max === undefined ? '' : `≤ ${round(max)}`]
    .filter(Boolean)
    .join(' and ');
  return { passed, expectation: `${bounds} (${round(before)} at the apply's moment, ${describeAllowance(rule)})` };
}

export function describeRule(rule: MetricRule): string {
  if (rule.type === 'previous') return `within the value at the apply's moment (${describeAllowance(rule)})`;
  if (rule.min !== undefined && rule.max !== undefined) return `between ${rule.min} and ${rule.max}`;
  return rule.max !== undefined ? `≤ ${rule.max}` : `≥ ${rule.min}`;
}

function describeAllowance(rule: Extract<MetricRule, { type: 'previous' }>): string {
  const way = rule.deviation === 'either' ? '±' : rule.deviation === 'higher' ? '+' : '-';
  const parts = [`${way}${round(rule.tolerance * 100)}%`, ...(rule.margin > 0 ? [`${way}${rule.margin}`] : [])];
  return `${parts.join(' ')} allowed`;
}

/** Enough digits to read a ratio or a latency; no float noise. */
export function round(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

export interface Tally {
  evaluations: number;
  failures: number;
  inconclusive: number;
}

export const EMPTY_TALLY: Tally = { evaluations: 0, failures: 0, inconclusive: 0 };

export function tallied(tally: Tally, evaluation: AnalysisEvaluation): Tally {
  return {
    evaluations: tally.evaluations + 1,
    failures: tally.failures + (evaluation.result === 'failed' ? 1 : 0),
    inconclusive: tally.inconclusive + (evaluation.result === 'inconclusive' ? 1 : 0),
  };
}

/**
 * A metric's verdict so far: failed once its failures pass failureLimit, inconclusive once its
 * inconclusive evaluations pass inconclusiveLimit, passed once it has had all its evaluations
 * (`done`), else undefined (it goes on). `once`: the short form after the rollout (no --bake),
 * a single evaluation whose verdict is final, so no limit applies.
 */
export function metricVerdict(
  check: MetricCheck,
  tally: Tally,
  done: boolean,
  once = false,
): AnalysisVerdict | undefined {
  const failureLimit = once ? 0 : check.failureLimit;
  const inconclusiveLimit = once ? 0 : check.inconclusiveLimit;
  if (tally.failures > failureLimit) return 'failed';
  if (tally.inconclusive > inconclusiveLimit) return 'inconclusive';
  return done ? 'passed' : undefined;
}
