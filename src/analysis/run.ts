// The analysis as it runs: each metric on its own schedule (initialDelay, then every interval,
// `count` times or until the bake ends), each evaluation an `analysis` event, judged by rules.ts;
// the first metric that fails (or cannot be judged) ends it at once and stops the others. Under
// `previous`, the same query (its variables as now) is asked at the apply's moment too: an equal
// window ending at the apply. Time comes from the passed-in clock; the wall clock only stamps the
// queries.
import type { Clock } from '../clock.js';
import type { Reporter } from '../model/events.js';
import type {
  AnalysisConfig,
  AnalysisEvaluation,
  AnalysisFacts,
  AnalysisOutcome,
  MetricCheck,
} from '../model/analysis.js';
import type { PrometheusClient } from './prometheus.js';
import { EMPTY_TALLY, evaluate, metricVerdict, tallied, type Tally } from './rules.js';
import { renderQuery } from './template.js';
import { analysisOutcome, type MetricEnd } from './verdict.js';

export interface AnalysisDeps {
  clock: Clock;
  reporter: Reporter;
  signal?: AbortSignal;
  prometheus: PrometheusClient;
  /** Epoch ms, for Prometheus's `time=`. */
  wallNow(): number;
}

export interface AnalysisRun {
  /** How long the bake lasts (ms); a metric without a count is evaluated until then. */
  durationMs: number;
  /** No --bake: each metric once, now, and that evaluation is its verdict. */
  once: boolean;
}

export interface RunningAnalysis {
  /** Resolves once every metric has its verdict, at the first failed or inconclusive one, or when stopped. */
  ended: Promise<AnalysisOutcome>;
  /** Stops the metrics still running (their requests are cancelled); `ended` resolves soon after. */
  stop(): void;
}

/** When the last evaluation of the slowest metric is due, from the start (the bake lasts at least this). */
export function analysisSpanMs(config: Pick<AnalysisConfig, 'metrics'>): number {
  return Math.max(
    0,
    ...config.metrics.map((check) =>
      check.count === undefined ? check.initialDelayMs : check.initialDelayMs + (check.count - 1) * check.intervalMs,
    ),
  );
}

export function startAnalysis(
  config: AnalysisConfig,
  facts: AnalysisFacts,
  run: AnalysisRun,
  deps: AnalysisDeps,
): RunningAnalysis {
  const stopping = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stopping.signal]) : stopping.signal;
  const startedAt = deps.clock.now();
  const evaluations: AnalysisEvaluation[] = [];
  const loops = config.metrics.map(async (check): Promise<MetricEnd> => {
    const end = await metricLoop(check, { facts, run, startedAt, signal, evaluations }, deps);
    // The first metric that fails or cannot be judged ends the analysis: the others stop.
    if (end.tally.verdict === 'failed' || end.tally.verdict === 'inconclusive') stopping.abort();
    return end;
  });
  const ended = Promise.all(loops).then((ends) => {
    const outcome = analysisOutcome(ends, evaluations, {
      during: run.once ? 'verify' : 'bake',
      elapsedMs: deps.clock.now() - startedAt,
      source: config.source,
    });
    // Stopped by something else (a workload broke, a signal): that is the run's news, not this.
    if (outcome.verdict !== 'stopped') deps.reporter.emit({ kind: 'analysis-verdict', outcome });
    return outcome;
  });
  return { ended, stop: () => stopping.abort() };
}

interface LoopContext {
  facts: AnalysisFacts;
  run: AnalysisRun;
  startedAt: number;
  signal: AbortSignal;
  evaluations: AnalysisEvaluation[];
}

async function metricLoop(check: MetricCheck, context: LoopContext, deps: AnalysisDeps): Promise<MetricEnd> {
  const { run, signal } = context;
  let tally: Tally = EMPTY_TALLY;
  // The first evaluation judges the release since the apply; each next one since the one before.
  let windowStart = context.facts.appliedAt;
  const failureLimit = run.once ? 0 : check.failureLimit;
  const endOf = (verdict: MetricEnd['tally']['verdict'], decisive?: AnalysisEvaluation): MetricEnd => ({
    tally: { name: check.name, query: check.query, verdict, ...tally },
    failureLimit,
    ...(decisive ? { decisive } : {}),
  });
  for (let index = 1; ; index += 1) {
    const dueAt = context.startedAt + (run.once ? 0 : check.initialDelayMs + (index - 1) * check.intervalMs);
    const wait = dueAt - deps.clock.now();
    if (wait > 0) await deps.clock.sleep(wait, signal);
    if (signal.aborted) return endOf('stopped');
    const evaluation = await evaluateOnce(check, index, windowStart, context, deps);
    if (signal.aborted && evaluation.result === 'inconclusive') return endOf('stopped');
    context.evaluations.push(evaluation);
    deps.reporter.emit({ kind: 'analysis', evaluation });
    tally = tallied(tally, evaluation);
    const nextDue = check.initialDelayMs + index * check.intervalMs;
    const last = run.once || (check.count !== undefined ? index >= check.count : nextDue > run.durationMs);
    const verdict = metricVerdict(check, tally, last, run.once);
    if (verdict) return endOf(verdict, verdict === 'passed' ? undefined : evaluation);
    windowStart = Date.parse(evaluation.at);
  }
}

async function evaluateOnce(
  check: MetricCheck,
  index: number,
  windowStart: number,
  context: LoopContext,
  deps: AnalysisDeps,
): Promise<AnalysisEvaluation> {
  const atWall = deps.wallNow();
  const query = renderQuery(check.query, context.facts, check.intervalMs, atWall);
  const asked = deps.clock.now();
  const [answer, baseline] = await Promise.all([
    deps.prometheus.query(query, atWall, context.signal),
    check.rule.type === 'previous'
      ? deps.prometheus.query(query, context.facts.appliedAt, context.signal)
      : Promise.resolve(undefined),
  ]);
  return evaluate(
    {
      check,
      query,
      index,
      at: new Date(atWall).toISOString(),
      windowStart: new Date(windowStart).toISOString(),
      elapsedMs: deps.clock.now() - asked,
    },
    answer,
    baseline,
  );
}
