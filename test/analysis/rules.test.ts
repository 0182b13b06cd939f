// The pure parts of the analysis, on the real Prometheus's answers (test/fixtures/prometheus/).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAnswer, type PrometheusAnswer } from '../../src/analysis/answer.js';
import { evaluate, judge, metricVerdict, tallied, EMPTY_TALLY } from '../../src/analysis/rules.js';
import { analysisOutcome } from '../../src/analysis/verdict.js';
import type { MetricCheck } from '../../src/model/analysis.js';
import { metricCheck } from './metric-check.js';

function fixture(name: string): PrometheusAnswer {
  const { status, body } = JSON.parse(
    readFileSync(new URL(`../fixtures/prometheus/${name}.json`, import.meta.url), 'utf8'),
  ) as { status: number; body: unknown };
  return readAnswer(status, JSON.stringify(body));
}

const check: MetricCheck = metricCheck({ name: 'error-ratio', query: 'q' });
const place = {
  check,
  query: 'q',
  index: 2,
  at: '2026-12-07T16:31:05.000Z',
  windowStart: '2026-12-07T16:30:55.000Z',
  elapsedMs: 4,
};

describe('readAnswer', () => {
  it('reads a vector, a scalar and a range selector as samples, NaN kept', () => {
    expect(fixture('vector-one')).toEqual({ ok: true, samples: [{ labels: '{}', value: 0.09090909090909091 }] });
    expect(fixture('scalar')).toEqual({ ok: true, samples: [{ labels: '{}', value: 0.1 }] });
    const series = fixture('vector-two-series');
    expect(series.ok && series.samples.map((sample) => sample.labels)).toEqual([
      expect.stringMatching(/^\{code="200",instance="127\.0\.0\.1:\d+",job="app"\}$/),
      expect.stringMatching(/^\{code="500",/),
    ]);
    const matrix = fixture('matrix');
    expect(matrix.ok && matrix.samples).toEqual([
      { labels: expect.stringContaining('__name__="app_latency_seconds"'), value: 0.1 },
    ]);
    expect(fixture('vector-nan')).toEqual({ ok: true, samples: [{ labels: '{}', value: Number.NaN }] });
  });

  it('tells a query Prometheus cannot parse (400 bad_data) from one it cannot execute (422)', () => {
    expect(fixture('bad-data-parse')).toEqual({
      ok: false,
      badQuery: true,
      message: 'bad_data: invalid parameter "query": 1:33: parse error: unclosed left parenthesis',
    });
    expect(fixture('execution-error')).toMatchObject({
      ok: false,
      badQuery: false,
      message: expect.stringMatching(/^execution: found duplicate series/),
    });
    expect(readAnswer(502, '<html>Bad Gateway</html>')).toEqual({
      ok: false,
      badQuery: false,
      message: "it answered HTTP 502 that is not Prometheus's JSON (<html>Bad Gateway</html>)",
    });
  });
});

describe('evaluate', () => {
  it('fails a value above the threshold and passes one within it', () => {
    expect(evaluate(place, fixture('vector-one'))).toMatchObject({
      result: 'failed',
      value: 0.09090909090909091,
      expectation: '≤ 0.05',
      index: 2,
      of: 3,
    });
    expect(
      evaluate({ ...place, check: { ...check, rule: { type: 'threshold', min: 0, max: 0.1 } } }, fixture('vector-one')),
    ).toMatchObject({
      result: 'passed',
      expectation: 'between 0 and 0.1',
    });
  });

  it('judges every series and reports the one that fails, with its labels', () => {
    const evaluation = evaluate(
      { ...place, check: { ...check, rule: { type: 'threshold', max: 50 } } },
      fixture('vector-two-series'),
    );
    expect(evaluation).toMatchObject({ result: 'failed', value: 100, series: expect.stringContaining('code="200"') });
  });

  it('says no data (an empty vector or NaN) as the metric says: fail, pass or inconclusive', () => {
    for (const name of ['vector-empty', 'vector-nan']) {
      expect(evaluate(place, fixture(name))).toMatchObject({
        result: 'inconclusive',
        detail: 'no data: the query returned no value (noData: inconclusive)',
      });
      expect(evaluate({ ...place, check: { ...check, noData: 'fail' } }, fixture(name)).result).toBe('failed');
      expect(evaluate({ ...place, check: { ...check, noData: 'pass' } }, fixture(name)).result).toBe('passed');
    }
  });

  it('counts an error of Prometheus as inconclusive, with its message', () => {
    expect(
      evaluate(place, { ok: false, badQuery: false, message: 'http://p:9090 did not answer (ECONNREFUSED)' }),
    ).toMatchObject({
      result: 'inconclusive',
      detail: 'Prometheus: http://p:9090 did not answer (ECONNREFUSED)',
    });
  });

  it('compares with the same query at the apply moment under previous', () => {
    const previous = {
      ...check,
      rule: { type: 'previous' as const, deviation: 'higher' as const, tolerance: 0.5, margin: 0 },
    };
    const before = { ok: true as const, samples: [{ labels: '{}', value: 0.1 }] };
    const twice = { ok: true as const, samples: [{ labels: '{}', value: 0.2 }] };
    expect(evaluate({ ...place, check: previous }, twice, before)).toMatchObject({
      result: 'failed',
      value: 0.2,
      previous: 0.1,
      expectation: "≤ 0.15 (0.1 at the apply's moment, +50% allowed)",
    });
    expect(evaluate({ ...place, check: previous }, fixture('scalar'), before).result).toBe('passed');
    expect(evaluate({ ...place, check: previous }, twice, { ok: true, samples: [] })).toMatchObject({
      result: 'inconclusive',
      detail: "no data at the apply's moment for {}: nothing to compare with (noData: inconclusive)",
    });
  });
});

describe('judge', () => {
  it('previous: higher fails only a rise, lower only a fall, either both; margin is absolute', () => {
    const rule = (deviation: 'higher' | 'lower' | 'either', margin = 0) => ({
      type: 'previous' as const,
      deviation,
      tolerance: 0.2,
      margin,
    });
    expect(judge(rule('higher'), 1.3, 1).passed).toBe(false);
    expect(judge(rule('higher'), 0.1, 1).passed).toBe(true);
    expect(judge(rule('lower'), 0.7, 1).passed).toBe(false);
    expect(judge(rule('lower'), 5, 1).passed).toBe(true);
    expect(judge(rule('either'), 0.7, 1)).toEqual({
      passed: false,
      expectation: "≥ 0.8 and ≤ 1.2 (1 at the apply's moment, ±20% allowed)",
    });
    // Zero errors before: a relative tolerance allows nothing; the margin allows a little.
    expect(judge(rule('higher'), 0.01, 0).passed).toBe(false);
    expect(judge(rule('higher', 0.02), 0.01, 0).passed).toBe(true);
  });
});

describe('metricVerdict', () => {
  const failed = { result: 'failed' as const } as Parameters<typeof tallied>[1];
  const passed = { result: 'passed' as const } as Parameters<typeof tallied>[1];
  const inconclusive = { result: 'inconclusive' as const } as Parameters<typeof tallied>[1];

  it('fails a metric once its failures pass failureLimit, as Argo Rollouts counts them', () => {
    const limited = { ...check, failureLimit: 1 };
    const once = tallied(EMPTY_TALLY, failed);
    expect(metricVerdict(limited, once, false)).toBeUndefined();
    expect(metricVerdict(limited, tallied(once, failed), false)).toBe('failed');
    expect(metricVerdict(limited, tallied(once, passed), true)).toBe('passed');
  });

  it('ends inconclusive past inconclusiveLimit, and the short form (once) tolerates nothing', () => {
    expect(metricVerdict(check, tallied(EMPTY_TALLY, inconclusive), false)).toBe('inconclusive');
    expect(metricVerdict({ ...check, failureLimit: 3 }, tallied(EMPTY_TALLY, failed), true, true)).toBe('failed');
  });
});

describe('analysisOutcome', () => {
  it('names the metric, the query, the value, the expectation and the window in the verdict line', () => {
    const decisive = evaluate(place, fixture('vector-one'));
    const outcome = analysisOutcome(
      [
        {
          tally: { name: 'latency', query: 'l', verdict: 'stopped', evaluations: 1, failures: 0, inconclusive: 0 },
          failureLimit: 0,
        },
        {
          tally: { name: 'error-ratio', query: 'q', verdict: 'failed', evaluations: 2, failures: 1, inconclusive: 0 },
          decisive,
          failureLimit: 0,
        },
      ],
      [decisive],
      { during: 'bake', elapsedMs: 20_000, source: 'analysis.yaml' },
    );
    expect(outcome).toMatchObject({ verdict: 'failed', metric: 'error-ratio', query: 'q' });
    expect(outcome.summary).toBe(
      'analysis failed: metric error-ratio: `q` = 0.09091, expected ≤ 0.05, in the window 16:30:55Z–16:31:05Z (evaluation 2 of 3; 1 failed, failureLimit 0)',
    );
  });

  it('is inconclusive (never a pass) when a metric could not be judged', () => {
    const decisive = evaluate(place, { ok: false, badQuery: false, message: 'x did not answer (ECONNREFUSED)' });
    const outcome = analysisOutcome(
      [
        {
          tally: {
            name: 'error-ratio',
            query: 'q',
            verdict: 'inconclusive',
            evaluations: 2,
            failures: 0,
            inconclusive: 1,
          },
          decisive,
          failureLimit: 0,
        },
      ],
      [decisive],
      { during: 'bake', elapsedMs: 1, source: 'analysis.yaml' },
    );
    expect(outcome.verdict).toBe('inconclusive');
    expect(outcome.summary).toMatch(
      /^analysis inconclusive: metric error-ratio: `q` could not be judged \(Prometheus: x did not answer \(ECONNREFUSED\)\)/,
    );
    expect(outcome.nextStep).toMatch(/nothing was restored/);
  });
});
