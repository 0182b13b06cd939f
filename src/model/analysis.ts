// The metric analysis (--analysis FILE): Prometheus queries run during the bake (once after the
// rollout when there is no bake), each judged by a rule; a failing one fails the apply as a unit,
// one that cannot be judged ends the run for a person (exit 4). The file's shape is
// schema/analysis.schema.json; the names follow Argo Rollouts' AnalysisTemplate, Flagger's metric
// checks and PipeCD's ANALYSIS stage where they fit (docs/analysis.md). Types only.

/** What an evaluation without a value means (Prometheus answered an empty vector, or NaN). */
export type NoDataMeans = 'fail' | 'pass' | 'inconclusive';

/** Which way a value may not move from the window before the apply (PipeCD's deviation: HIGH, LOW, EITHER). */
export type Deviation = 'higher' | 'lower' | 'either';

/** A secret read when the analysis starts, never written in the file: a file's contents or an environment variable's value. */
export type SecretSource = { file: string } | { env: string };

export interface PrometheusProvider {
  /** Its base URL, e.g. http://prometheus.monitoring:9090 (no user or password in it: basicAuth). */
  address: string;
  /** Each request's deadline (default 10s). */
  timeoutMs: number;
  bearerToken?: SecretSource;
  basicAuth?: { username: string; password: SecretSource };
  /** A PEM file of the CA that signed Prometheus's certificate, besides the system's. */
  caFile?: string;
}

export type MetricRule =
  /** The value must stay within min and max (either may be absent). */
  | { type: 'threshold'; min?: number; max?: number }
  /**
   * The value compared with the same query evaluated at the apply's moment (an equal window ending
   * at the apply): it may move against `deviation` by at most `tolerance` (a fraction of the value
   * before) plus `margin` (an absolute amount).
   */
  | { type: 'previous'; deviation: Deviation; tolerance: number; margin: number };

export interface MetricCheck {
  name: string;
  /** PromQL, with the run's facts as {{ variables }} (analysis/template.ts). */
  query: string;
  intervalMs: number;
  /** How many evaluations; undefined: every interval until the bake ends. */
  count?: number;
  /** Before the first evaluation (Argo's initialDelay). */
  initialDelayMs: number;
  /** Failed evaluations tolerated: the metric fails at failureLimit + 1 (Argo's failureLimit, default 0). */
  failureLimit: number;
  /** Inconclusive evaluations tolerated (Prometheus unreachable, an error, no data that means inconclusive). */
  inconclusiveLimit: number;
  noData: NoDataMeans;
  rule: MetricRule;
}

export interface AnalysisConfig {
  /** The file it was read from, to name it in messages. */
  source: string;
  prometheus: PrometheusProvider;
  metrics: MetricCheck[];
}

/** The facts of the run a query may name (analysis/template.ts). */
export interface AnalysisFacts {
  runId: string;
  namespace: string;
  /** The changed workloads' names. */
  workloads: string[];
  /** When the apply was made, epoch ms. */
  appliedAt: number;
}

/** How one evaluation of one metric went. */
export interface AnalysisEvaluation {
  metric: string;
  /** The query as sent, its variables filled in. */
  query: string;
  /** 1 for the first evaluation of this metric. */
  index: number;
  /** How many evaluations the metric will have, when it is a count. */
  of?: number;
  /** When it was evaluated (ISO 8601, UTC): the end of its window. */
  at: string;
  /** The window it judges: from the previous evaluation (or the apply) to `at`. */
  windowStart: string;
  result: 'passed' | 'failed' | 'inconclusive';
  /** The value judged (the worst series' when the query returns several). */
  value?: number;
  /** That series' labels, when the query returned several: {code="500"}. */
  series?: string;
  /** Under `previous`: the value at the apply's moment. */
  previous?: number;
  /** What the rule expects: "≤ 0.05", "≤ 0.12 (0.1 before the apply, +20%)". */
  expectation: string;
  /** Why it is inconclusive or has no value: Prometheus's error, no data. Never a credential. */
  detail?: string;
  /** How long Prometheus took to answer, ms. */
  elapsedMs: number;
}

export type AnalysisVerdict = 'passed' | 'failed' | 'inconclusive' | 'stopped';

/** A metric's tally at the end. */
export interface MetricTally {
  name: string;
  query: string;
  verdict: AnalysisVerdict;
  evaluations: number;
  failures: number;
  inconclusive: number;
}

export interface AnalysisOutcome {
  verdict: AnalysisVerdict;
  /** After the rollout once (no --bake), or during the bake. */
  during: 'verify' | 'bake';
  /** The verdict line: the metric, its query, the value, the expectation and the window. */
  summary: string;
  /** The metric that decided a failed or inconclusive verdict. */
  metric?: string;
  query?: string;
  nextStep?: string;
  metrics: MetricTally[];
  evaluations: AnalysisEvaluation[];
  elapsedMs: number;
}
