// The analysis loop with a fake clock and a scripted Prometheus: its schedule, its events, and the
// first failing (or unjudged) metric ending it.
import { describe, expect, it } from 'vitest';
import type { PrometheusAnswer } from '../../src/analysis/answer.js';
import type { PrometheusClient } from '../../src/analysis/prometheus.js';
import { analysisSpanMs, startAnalysis } from '../../src/analysis/run.js';
import type { AnalysisConfig, MetricCheck } from '../../src/model/analysis.js';
import { FakeClock, RecordingReporter } from '../fakes.js';
import { metricCheck as metric } from './metric-check.js';

const APPLIED = 1_800_000_000_000;
const facts = { runId: 'r', namespace: 'shop', workloads: ['web'], appliedAt: APPLIED };

function scripted(values: Array<number | 'down'>, before = 0.1) {
  const asked: Array<{ query: string; at: number }> = [];
  let next = 0;
  const client: PrometheusClient = {
    async query(query, at): Promise<PrometheusAnswer> {
      asked.push({ query, at });
      if (at === APPLIED) return { ok: true, samples: [{ labels: '{}', value: before }] };
      const value = values[Math.min(next++, values.length - 1)]!;
      return value === 'down'
        ? { ok: false, badQuery: false, message: 'http://p:9090 did not answer (ECONNREFUSED)' }
        : { ok: true, samples: [{ labels: '{}', value }] };
    },
    close: async () => undefined,
  };
  return { client, asked };
}

const config = (...metrics: MetricCheck[]): AnalysisConfig => ({
  source: 'a.yaml',
  prometheus: { address: 'http://p:9090', timeoutMs: 1000 },
  metrics,
});

function run(analysis: AnalysisConfig, client: PrometheusClient, options = { durationMs: 60_000, once: false }) {
  const clock = new FakeClock(0);
  const reporter = new RecordingReporter();
  const running = startAnalysis(analysis, facts, options, {
    clock,
    reporter,
    prometheus: client,
    wallNow: () => APPLIED + 5000 + clock.now(),
  });
  return { running, reporter, clock };
}

describe('startAnalysis', () => {
  it('evaluates count times, interval apart, with the variables filled in, an event each, and passes', async () => {
    const { client, asked } = scripted([0.01, 0.02, 0.03]);
    const { running, reporter } = run(config(metric()), client);
    const outcome = await running.ended;
    expect(outcome).toMatchObject({
      verdict: 'passed',
      metrics: [{ name: 'errors', verdict: 'passed', evaluations: 3, failures: 0 }],
    });
    expect(asked.map((question) => question.at - APPLIED)).toEqual([5000, 15_000, 25_000]);
    expect(asked[0]!.query).toBe('sum(rate(x{namespace="shop"}[10s]))');
    expect(reporter.kinds()).toEqual(['analysis', 'analysis', 'analysis', 'analysis-verdict']);
  });

  it('tolerates failureLimit failures, and fails at the next one without waiting for the rest', async () => {
    const { client } = scripted([0.2, 0.01, 0.3, 0.01]);
    const { running } = run(config(metric({ count: 5, failureLimit: 1 })), client);
    const outcome = await running.ended;
    expect(outcome).toMatchObject({ verdict: 'failed', metric: 'errors', metrics: [{ evaluations: 3, failures: 2 }] });
    expect(outcome.summary).toMatch(
      /^analysis failed: metric errors: `sum\(rate\(x\{namespace="shop"\}\[10s\]\)\)` = 0\.3, expected ≤ 0\.05, in the window .* \(evaluation 3 of 5; 2 failed, failureLimit 1\)$/,
    );
  });

  it('ends inconclusive at the first unanswered query, and stops the other metrics', async () => {
    const { client } = scripted(['down']);
    const { running, reporter } = run(
      config(metric({ name: 'a', intervalMs: 5000 }), metric({ name: 'b', initialDelayMs: 30_000 })),
      client,
    );
    const outcome = await running.ended;
    expect(outcome.verdict).toBe('inconclusive');
    expect(outcome.metrics.map((tally) => [tally.name, tally.verdict])).toEqual([
      ['a', 'inconclusive'],
      ['b', 'stopped'],
    ]);
    expect(reporter.events.at(-1)).toMatchObject({ kind: 'analysis-verdict', outcome: { verdict: 'inconclusive' } });
  });

  it('asks the same query at the apply moment under previous, each evaluation', async () => {
    const { client, asked } = scripted([0.2], 0.1);
    const { running } = run(
      config(metric({ count: 2, rule: { type: 'previous', deviation: 'higher', tolerance: 0.5, margin: 0 } })),
      client,
    );
    const outcome = await running.ended;
    expect(outcome.verdict).toBe('failed');
    expect(asked.map((question) => question.at)).toContain(APPLIED);
    expect(new Set(asked.map((question) => question.query)).size).toBe(1);
  });

  it('once (no --bake): one evaluation per metric, now, whatever the count', async () => {
    const { client, asked } = scripted([0.01]);
    const { running } = run(config(metric({ count: 5, initialDelayMs: 60_000 })), client, {
      durationMs: 0,
      once: true,
    });
    expect(await running.ended).toMatchObject({ verdict: 'passed', during: 'verify', metrics: [{ evaluations: 1 }] });
    expect(asked).toHaveLength(1);
  });

  it('without a count, evaluates every interval until the bake ends', async () => {
    const { client, asked } = scripted([0.01]);
    const { running } = run(config(metric({ count: undefined })), client, { durationMs: 30_000, once: false });
    await running.ended;
    expect(asked).toHaveLength(4);
  });

  it('stops when told, with no verdict event', async () => {
    const { client } = scripted([0.01]);
    const { running, reporter } = run(config(metric({ initialDelayMs: 1000 })), client);
    running.stop();
    expect((await running.ended).verdict).toBe('stopped');
    expect(reporter.kinds()).not.toContain('analysis-verdict');
  });

  it('knows how long the bake must last for the slowest metric', () => {
    expect(analysisSpanMs(config(metric(), metric({ initialDelayMs: 5000, count: 4, intervalMs: 2000 })))).toBe(20_000);
  });
});
