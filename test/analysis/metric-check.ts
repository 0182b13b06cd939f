// One metric of an analysis file as src/analysis/file.ts reads it, for the analysis unit tests:
// a 5xx ratio judged 3 times, 10 s apart, that fails above 5 %; `overrides` change what a test needs.
import type { MetricCheck } from '../../src/model/analysis.js';

export function metricCheck(overrides: Partial<MetricCheck> = {}): MetricCheck {
  return {
    name: 'errors',
    query: 'sum(rate(x{namespace="{{ namespace }}"}[{{ interval }}]))',
    intervalMs: 10_000,
    count: 3,
    initialDelayMs: 0,
    failureLimit: 0,
    inconclusiveLimit: 0,
    noData: 'inconclusive',
    rule: { type: 'threshold', max: 0.05 },
    ...overrides,
  };
}
