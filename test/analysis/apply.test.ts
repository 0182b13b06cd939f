// The analysis inside the whole pipeline (runApply on a faked Kubectl, a scripted Prometheus): a
// failing metric restores the apply (exit 3), --rollback none leaves it with the commands, an
// unjudged one leaves it for a person (exit 4), a passing one keeps it.
import { describe, expect, it } from 'vitest';
import type { PrometheusAnswer } from '../../src/analysis/answer.js';
import type { PrometheusClient } from '../../src/analysis/prometheus.js';
import type { AnalysisConfig } from '../../src/model/analysis.js';
import { runApply } from '../../src/run/apply/apply.js';
import { exitCodeFor, outcomeOf } from '../../src/run/apply/result.js';
import { fakeCluster } from '../run/fake-kubectl.js';
import { configAfter, configBefore, depsFor, options } from '../run/pipeline-fixtures.js';

/** A scripted Prometheus: the check before the apply gets `checked`, every later query `answer`. */
function prometheusAnswering(
  answer: PrometheusAnswer,
  checked: PrometheusAnswer = { ok: true, samples: [{ labels: '{}', value: 0 }] },
): PrometheusClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    query: async (query) => {
      asked.push(query);
      return asked.length === 1 ? checked : answer;
    },
    close: async () => undefined,
  };
}

const analysis: AnalysisConfig = {
  source: 'analysis.yaml',
  prometheus: { address: 'http://prometheus:9090', timeoutMs: 1000 },
  metrics: [
    {
      name: 'error-ratio',
      query: 'sum(rate(errors{namespace="{{ namespace }}"}[1m]))',
      intervalMs: 10_000,
      count: 3,
      initialDelayMs: 0,
      failureLimit: 2,
      inconclusiveLimit: 0,
      noData: 'inconclusive',
      rule: { type: 'threshold', max: 0.05 },
    },
  ],
};

const value = (number: number): PrometheusAnswer => ({ ok: true, samples: [{ labels: '{}', value: number }] });

async function applyWith(answer: PrometheusAnswer, rollback: 'all' | 'none' = 'all', checked?: PrometheusAnswer) {
  const cluster = fakeCluster([configBefore], [configAfter]);
  const prometheus = prometheusAnswering(answer, checked);
  const deps = { ...depsFor(cluster), prometheus, wallNow: () => 1_800_000_000_000 };
  const result = await runApply({ ...options, rollback, analysis }, deps);
  return { result, cluster, prometheus, reporter: deps.reporter };
}

describe('runApply --analysis', () => {
  it('without --bake, evaluates each metric once after the apply, and a failure restores it (exit 3) whatever failureLimit says', async () => {
    const { result, cluster, prometheus, reporter } = await applyWith(value(0.3));
    expect(exitCodeFor(result)).toBe(3);
    expect(result.outcome).toBe('rolled-back');
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
    // Once before the apply (is it PromQL Prometheus takes?), once after it (the verdict).
    expect(prometheus.asked).toEqual([
      'sum(rate(errors{namespace="shop"}[1m]))',
      'sum(rate(errors{namespace="shop"}[1m]))',
    ]);
    expect(result.verification?.analysis).toMatchObject({ verdict: 'failed', during: 'verify', metric: 'error-ratio' });
    expect(reporter.kinds().filter((kind) => kind.startsWith('analysis'))).toEqual(['analysis', 'analysis-verdict']);
    expect(reporter.kinds().indexOf('analysis-verdict')).toBeLessThan(reporter.kinds().indexOf('restoring'));
  });

  it('with --rollback none, leaves the apply and says how to restore it (exit 3)', async () => {
    const { result, cluster } = await applyWith(value(0.3), 'none');
    expect(exitCodeFor(result)).toBe(3);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'new' });
    expect(result.objects[0]!.restore).toMatchObject({
      status: 'kept',
      reason: 'no-rollback',
      commands: [expect.any(String)],
    });
  });

  it('leaves the apply for a person when Prometheus cannot be asked (exit 4), never a pass', async () => {
    const { result, cluster } = await applyWith({
      ok: false,
      badQuery: false,
      message: 'http://prometheus:9090 did not answer (ECONNREFUSED)',
    });
    expect(exitCodeFor(result)).toBe(4);
    expect(result.outcome).toBe('needs-attention');
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'new' });
    expect(result.verification?.analysis?.summary).toMatch(
      /^analysis inconclusive: metric error-ratio: `sum\(rate\(errors\{namespace="shop"\}\[1m\]\)\)` could not be judged/,
    );
  });

  it('refuses a query Prometheus refuses before anything is applied (exit 1), as a check beside the others', async () => {
    const refused = { ok: false as const, badQuery: true, message: 'bad_data: 1:10: parse error: unexpected <by>' };
    const cluster = fakeCluster([configBefore], [configAfter]);
    const deps = { ...depsFor(cluster), prometheus: prometheusAnswering(value(0), refused) };
    const run = runApply({ ...options, analysis }, deps);
    await expect(run).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/metric error-ratio: Prometheus refuses its query .*Nothing was applied/),
    });
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
  });

  it('keeps a release whose metrics pass (exit 0)', async () => {
    const { result, cluster } = await applyWith(value(0.01));
    expect(exitCodeFor(result)).toBe(0);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'new' });
  });
});

describe('outcomeOf with the analysis', () => {
  const objects = [
    {
      ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
      changeKind: 'configured' as const,
      changedFields: [],
    },
  ];
  const outcome = (verdict: 'passed' | 'failed' | 'inconclusive' | 'stopped') => ({
    verdict,
    during: 'bake' as const,
    summary: '',
    metrics: [],
    evaluations: [],
    elapsedMs: 0,
  });
  it('failed is a failed run, inconclusive needs a person, passed and stopped decide nothing', () => {
    const run = (verdict: 'passed' | 'failed' | 'inconclusive' | 'stopped') =>
      outcomeOf({ mode: 'apply', objects, verification: { checks: [], analysis: outcome(verdict) } });
    expect(run('failed')).toBe('failed');
    expect(run('inconclusive')).toBe('needs-attention');
    expect(run('passed')).toBe('succeeded');
    expect(run('stopped')).toBe('succeeded');
  });
});
