// Reading an --analysis file's text (JSON or YAML) into the typed analysis, validated by the shipped
// JSON Schema (schema.ts) with ajv, its durations parsed and its queries' variables checked. A bad
// file is an InputError (exit 1) naming the file, where in it and what is wrong. Pure: the caller
// reads the file.
import path from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { parseDuration } from '../duration.js';
import { InputError } from '../errors.js';
import type { AnalysisConfig, MetricCheck, MetricRule, SecretSource } from '../model/analysis.js';
import { ANALYSIS_SCHEMA } from './schema.js';
import { unknownVariables, VARIABLES } from './template.js';

/** Each request's deadline when the file gives none. */
export const DEFAULT_TIMEOUT_MS = 10_000;

type Duration = string | number;
type Secret = { file: string } | { env: string };

interface AnalysisFile {
  prometheus: {
    address: string;
    timeout?: Duration;
    bearerToken?: Secret;
    basicAuth?: { username: string; password: Secret };
    tls?: { caFile?: string };
  };
  metrics: Array<{
    name: string;
    query: string;
    interval: Duration;
    count?: number;
    initialDelay?: Duration;
    failureLimit?: number;
    inconclusiveLimit?: number;
    noData?: MetricCheck['noData'];
    threshold?: { min?: number; max?: number };
    previous?: { deviation: 'higher' | 'lower' | 'either'; tolerance?: number; margin?: number };
  }>;
}

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

function validate(): NonNullable<typeof validator> {
  validator ??= new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(ANALYSIS_SCHEMA);
  return validator;
}

export function parseAnalysis(text: string, file: string): AnalysisConfig {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new InputError(
      `--analysis ${file}: not JSON or YAML (${(error as Error).message.split('\n')[0]}); see schema/analysis.schema.json.`,
    );
  }
  const check = validate();
  if (!check(data)) {
    const problems = (check.errors ?? [])
      .filter((error) => !isRuleChoice(error) && (error.keyword !== 'oneOf' || METRIC_ITEM.test(error.instancePath)))
      .slice(0, 5)
      .map(say);
    throw new InputError(`--analysis ${file} does not follow schema/analysis.schema.json: ${problems.join('; ')}.`);
  }
  const read = data as AnalysisFile;
  const names = new Set<string>();
  const metrics = read.metrics.map((metric): MetricCheck => {
    const where = `--analysis ${file}: metric ${JSON.stringify(metric.name)}`;
    if (names.has(metric.name))
      throw new InputError(
        `--analysis ${file}: two metrics are named ${JSON.stringify(metric.name)}; give each its own name.`,
      );
    names.add(metric.name);
    const unknown = unknownVariables(metric.query);
    if (unknown.length > 0)
      throw new InputError(
        `${where}: its query names ${unknown.map((name) => `{{ ${name} }}`).join(', ')}, which kguard does not know; the variables are ${VARIABLES.map((name) => `{{ ${name} }}`).join(', ')}.`,
      );
    const threshold = metric.threshold;
    if (threshold?.min !== undefined && threshold.max !== undefined && threshold.min > threshold.max)
      throw new InputError(`${where}: threshold.min ${threshold.min} is above threshold.max ${threshold.max}.`);
    const intervalMs = parseDuration(String(metric.interval), `${where}: interval`);
    if (intervalMs < 1000)
      throw new InputError(
        `${where}: interval ${metric.interval} is under 1s; Prometheus is asked at most once a second per metric.`,
      );
    return {
      name: metric.name,
      query: metric.query,
      intervalMs,
      ...(metric.count === undefined ? {} : { count: metric.count }),
      initialDelayMs:
        metric.initialDelay === undefined ? 0 : parseDuration(String(metric.initialDelay), `${where}: initialDelay`),
      failureLimit: metric.failureLimit ?? 0,
      inconclusiveLimit: metric.inconclusiveLimit ?? 0,
      noData: metric.noData ?? 'inconclusive',
      rule: ruleOf(metric),
    };
  });
  const { prometheus } = read;
  const relative = (name: string) => path.resolve(path.dirname(file), name);
  const secret = (source: Secret): SecretSource => ('file' in source ? { file: relative(source.file) } : source);
  return {
    source: file,
    prometheus: {
      address: prometheus.address.replace(/\/+$/, ''),
      timeoutMs:
        prometheus.timeout === undefined
          ? DEFAULT_TIMEOUT_MS
          : parseDuration(String(prometheus.timeout), `--analysis ${file}: prometheus.timeout`),
      ...(prometheus.bearerToken ? { bearerToken: secret(prometheus.bearerToken) } : {}),
      ...(prometheus.basicAuth
        ? { basicAuth: { username: prometheus.basicAuth.username, password: secret(prometheus.basicAuth.password) } }
        : {}),
      ...(prometheus.tls?.caFile ? { caFile: relative(prometheus.tls.caFile) } : {}),
    },
    metrics,
  };
}

function ruleOf(metric: AnalysisFile['metrics'][number]): MetricRule {
  if (metric.previous)
    return {
      type: 'previous',
      deviation: metric.previous.deviation,
      tolerance: metric.previous.tolerance ?? 0,
      margin: metric.previous.margin ?? 0,
    };
  return { type: 'threshold', ...metric.threshold };
}

/** The oneOf between threshold and previous: said once, plainly, by say(). */
function isRuleChoice(error: ErrorObject): boolean {
  return (
    error.keyword === 'required' &&
    /threshold|previous/.test(String((error.params as { missingProperty?: string }).missingProperty))
  );
}

const METRIC_ITEM = /^\/metrics\/\d+$/;

function say(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the file' : error.instancePath;
  if (error.keyword === 'additionalProperties')
    return `${where} has an unknown field ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}`;
  if (error.keyword === 'oneOf' && METRIC_ITEM.test(error.instancePath))
    return `${where} needs exactly one rule: threshold or previous`;
  return `${where} ${error.message ?? 'is not valid'}`;
}
