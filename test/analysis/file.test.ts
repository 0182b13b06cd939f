import { describe, expect, it } from 'vitest';
import { expectShippedSchema, refusalOf } from '../input-files.js';
import { ANALYSIS_SCHEMA } from '../../src/analysis/schema.js';
import { parseAnalysis } from '../../src/analysis/file.js';

const refusal = (text: string): string => refusalOf(() => parseAnalysis(text, '/ci/analysis.yaml'));

const minimal = `prometheus: {address: "http://prometheus:9090"}
metrics:
  - {name: errors, query: "sum(rate(x[1m]))", interval: 30s, count: 3, threshold: {min: 0, max: 0.05}}
`;

describe('parseAnalysis', () => {
  it('the shipped schema file is the one kguard validates with', () => {
    expectShippedSchema('analysis.schema.json', ANALYSIS_SCHEMA);
  });

  it('reads the minimum shape, with the defaults: failureLimit 0, no data inconclusive, 10s per request', () => {
    expect(parseAnalysis(minimal, '/ci/analysis.yaml')).toEqual({
      source: '/ci/analysis.yaml',
      prometheus: { address: 'http://prometheus:9090', timeoutMs: 10_000 },
      metrics: [
        {
          name: 'errors',
          query: 'sum(rate(x[1m]))',
          intervalMs: 30_000,
          count: 3,
          initialDelayMs: 0,
          failureLimit: 0,
          inconclusiveLimit: 0,
          noData: 'inconclusive',
          rule: { type: 'threshold', min: 0, max: 0.05 },
        },
      ],
    });
  });

  it('reads JSON, the previous rule, credentials by reference (files relative to the file) and a CA', () => {
    const config = parseAnalysis(
      JSON.stringify({
        prometheus: {
          address: 'https://prom.example:9090/',
          timeout: '3s',
          basicAuth: { username: 'ci', password: { file: 'secrets/password' } },
          tls: { caFile: 'ca.pem' },
        },
        metrics: [
          {
            name: 'p99',
            query: 'histogram_quantile(0.99, x)',
            interval: 10,
            initialDelay: '1m',
            failureLimit: 2,
            noData: 'fail',
            previous: { deviation: 'higher', tolerance: 0.5 },
          },
        ],
      }),
      '/ci/analysis.json',
    );
    expect(config.prometheus).toEqual({
      address: 'https://prom.example:9090',
      timeoutMs: 3000,
      basicAuth: { username: 'ci', password: { file: '/ci/secrets/password' } },
      caFile: '/ci/ca.pem',
    });
    expect(config.metrics[0]).toMatchObject({
      intervalMs: 10_000,
      initialDelayMs: 60_000,
      failureLimit: 2,
      noData: 'fail',
      rule: { type: 'previous', deviation: 'higher', tolerance: 0.5, margin: 0 },
    });
    expect(config.metrics[0]).not.toHaveProperty('count');
  });

  it('refuses a metric without a rule, or with both', () => {
    expect(refusal(minimal.replace(', threshold: {min: 0, max: 0.05}', ''))).toMatch(
      /\/ci\/analysis\.yaml does not follow schema\/analysis\.schema\.json: \/metrics\/0 needs exactly one rule: threshold or previous/,
    );
    expect(refusal(minimal.replace('threshold:', 'previous: {deviation: higher}, threshold:'))).toMatch(
      /needs exactly one rule/,
    );
  });

  it('refuses a user and password in the address, an unknown field, and a credential written in the file', () => {
    expect(refusal(minimal.replace('http://prometheus', 'http://ci:hunter2@prometheus'))).toMatch(
      /\/prometheus\/address must match pattern/,
    );
    expect(refusal(minimal.replace('threshold:', 'successCondition: "x", threshold:'))).toMatch(
      /unknown field "successCondition"/,
    );
    expect(refusal(minimal.replace('address:', 'bearerToken: "abc", address:'))).toMatch(
      /\/prometheus\/bearerToken must be object/,
    );
  });

  it('refuses an unknown variable in a query, naming the ones there are', () => {
    expect(refusal(minimal.replace('sum(rate(x[1m]))', 'sum(rate(x{ns=\\"{{ args.namespace }}\\"}[1m]))'))).toMatch(
      /metric "errors": its query names \{\{ args\.namespace \}\}, which kguard does not know; the variables are \{\{ namespace \}\}, \{\{ workload \}\}/,
    );
  });

  it('refuses two metrics of one name, min above max, an interval under a second, and a file that is not YAML', () => {
    expect(refusal(`${minimal}${minimal.split('\n')[2]}\n`)).toMatch(/two metrics are named "errors"/);
    expect(refusal(minimal.replace('min: 0, max: 0.05', 'min: 1, max: 0.05'))).toMatch(
      /threshold\.min 1 is above threshold\.max 0\.05/,
    );
    expect(refusal(minimal.replace('interval: 30s', 'interval: 500ms'))).toMatch(/interval 500ms is under 1s/);
    expect(refusal('metrics: [')).toMatch(/--analysis \/ci\/analysis\.yaml: not JSON or YAML/);
  });
});
