// Issue 46, end to end: bin/kguard → real kubectl → simulated cluster, judged by a real Prometheus
// (test/analysis/prometheus-server.ts) scraping an exporter whose metrics follow the release: it
// serves what the Deployment's image in the cluster would (nginx:1.27 answers 30% 5xx, nginx:1.28
// twice as slowly, nginx:1.29 stops reporting its queue). A failing metric restores the apply
// (exit 3), an unjudged one leaves it for a person (exit 4), a query Prometheus refuses refuses the
// run before anything is applied (exit 1).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { startPrometheus, type TestPrometheus } from '../analysis/prometheus-server.js';
import { webAt } from './run-fixtures.js';
import { eventually, sandbox, type Sandbox } from './harness.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

/** What kguard printed as it printed it: the queries' own durations ([3s]) kept. */
const printed = (run: { stdout: string; stderr: string }) => `${run.stdout}\n${run.stderr}`;

/** Per scrape, as a web server would count them: 100 requests, some 5xx, and a latency. */
function exporterFor(sandboxed: Sandbox) {
  let ok = 0;
  let errors = 0;
  return () => {
    const image = sandboxed.imageOf('web') ?? '';
    const errorShare = image.endsWith(':1.27') ? 0.3 : 0.005;
    ok += Math.round(100 * (1 - errorShare));
    errors += Math.round(100 * errorShare);
    const latency = image.endsWith(':1.28') ? 0.2 : 0.1;
    return [
      `app_requests_total{code="200"} ${ok}`,
      `app_requests_total{code="500"} ${errors}`,
      `app_latency_seconds ${latency}`,
      ...(image.endsWith(':1.29') ? [] : ['app_queue_depth 3']),
      '',
    ].join('\n');
  };
}

const ERROR_RATIO = 'sum(rate(app_requests_total{code=~"5.."}[3s])) / sum(rate(app_requests_total[3s]))';

/**
 * The arguments of a `kguard apply` of web at `image`, judged through a bake of `bake` by `metrics`
 * (an analysis file written with `auth`, its Prometheus credentials' lines), with further `flags`.
 */
type AnalysedApply = (
  image: string,
  bake: string,
  metrics: string,
  flags?: string[],
  auth?: string,
) => Promise<string[]>;

/** `test` against web at nginx:1.25, scraped by a Prometheus for a few scrapes already. */
async function withPrometheus(
  test: (run: { sandboxed: Sandbox; prometheus: TestPrometheus; analysed: AnalysedApply }) => Promise<void>,
): Promise<void> {
  const sandboxed = await sandbox();
  let prometheus: TestPrometheus | undefined;
  try {
    await webAt(sandboxed, 'nginx:1.25');
    prometheus = await startPrometheus(exporterFor(sandboxed));
    // The window before the apply: a few scrapes of the old version.
    await prometheus.scraped(4);
    const address = prometheus.address;
    const analysed: AnalysedApply = async (image, bake, metrics, flags = [], auth = '') => {
      const analysis = await sandboxed.write('analysis.yaml', analysisFile(address, metrics, auth));
      const file = await sandboxed.write('web.yaml', deploymentYaml('web', image));
      return ['apply', '-f', file, ...fast, '--bake', bake, '--analysis', analysis, ...flags];
    };
    await test({ sandboxed, prometheus, analysed });
  } finally {
    await prometheus?.stop();
    await sandboxed.stop();
  }
}

function analysisFile(address: string, metrics: string, extra = ''): string {
  return `prometheus:\n  address: ${address}\n  timeout: 3s\n${extra}metrics:\n${metrics}`;
}

const errorRatio = (interval = '2s', count = 3) =>
  `  - name: error-ratio\n    query: '${ERROR_RATIO}'\n    interval: ${interval}\n    count: ${count}\n    threshold: {max: 0.05}\n`;
const latencyVsBefore = () =>
  `  - name: latency\n    query: avg_over_time(app_latency_seconds{job="app"}[3s])\n    interval: 2s\n    count: 2\n    initialDelay: 4s\n    previous: {deviation: higher, tolerance: 0.3}\n`;

describe.concurrent('kguard apply --analysis (against a real Prometheus)', () => {
  it('passes a healthy release: every evaluation within its rule, the apply kept', () =>
    withPrometheus(async ({ sandboxed, analysed }) => {
      const run = await sandboxed.kguard(
        await analysed('nginx:1.26', '4s', errorRatio() + latencyVsBefore(), [
          '--output',
          'json',
          '--events',
          'events.ndjson',
        ]),
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(/✔ analysis passed: error-ratio 3\/3, latency 2\/2 evaluations within their rules/);
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report.analysis).toMatchObject({ verdict: 'passed', during: 'bake' });
      expect(report.analysis!.evaluations.filter((evaluation) => evaluation.metric === 'error-ratio')).toHaveLength(3);
      const latency = report.analysis!.evaluations.filter((evaluation) => evaluation.metric === 'latency');
      expect(latency.map((evaluation) => evaluation.previous)).toEqual([
        expect.closeTo(0.1, 2),
        expect.closeTo(0.1, 2),
      ]);
      const events = readFileSync(join(sandboxed.dir, 'events.ndjson'), 'utf8');
      expect(events.split('\n').filter((line) => line.includes('"kind":"analysis"'))).toHaveLength(5);
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    }));

  it('restores the whole apply when the error ratio passes its threshold during the bake (exit 3), naming query, value, expectation and window', () =>
    withPrometheus(async ({ sandboxed, analysed }) => {
      const run = await sandboxed.kguard(await analysed('nginx:1.27', '6s', errorRatio(), ['--junit', 'junit.xml']));
      expect(run.exitCode, run.output).toBe(3);
      const verdict = printed(run)
        .split('\n')
        .find((line) => line.includes('analysis failed'));
      expect(verdict).toMatch(
        /✖ analysis failed: metric error-ratio: `sum\(rate\(app_requests_total\{code=~"5\.\."\}\[3s\]\)\) \/ sum\(rate\(app_requests_total\[3s\]\)\)` = 0\.\d+, expected ≤ 0\.05, in the window \d\d:\d\d:\d\dZ–\d\d:\d\d:\d\dZ \(evaluation 1 of 3; 1 failed, failureLimit 0\)/,
      );
      expect(run.output).toMatch(/the bake stopped: metric error-ratio failed \(--analysis\)/);
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      const junit = readFileSync(join(sandboxed.dir, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testcase name="analysis: error-ratio" classname="kguard.analysis"[^>]*>\s*<failure/);
    }));

  it('restores a release twice as slow as the window before the apply, under the previous rule (exit 3)', () =>
    withPrometheus(async ({ sandboxed, analysed }) => {
      const run = await sandboxed.kguard(await analysed('nginx:1.28', '2s', latencyVsBefore(), ['--output', 'json']));
      expect(run.exitCode, run.output).toBe(3);
      expect(printed(run)).toMatch(
        /analysis failed: metric latency: `avg_over_time\(app_latency_seconds\{job="app"\}\[3s\]\)` = 0\.2 for \{instance="127\.0\.0\.1:\d+",job="app"\}, expected ≤ 0\.1\d* \(0\.1\d* at the apply's moment, \+30% allowed\)/,
      );
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report).toMatchObject({
        outcome: 'rolled-back',
        exitCode: 3,
        analysis: { verdict: 'failed', metric: 'latency' },
      });
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    }));

  it('treats no data as the file says: noData fail restores (exit 3)', () =>
    withPrometheus(async ({ sandboxed, analysed }) => {
      const queue =
        '  - name: queue\n    query: app_queue_depth\n    interval: 1s\n    count: 2\n    initialDelay: 2s\n    noData: fail\n    threshold: {max: 10}\n';
      const run = await sandboxed.kguard(await analysed('nginx:1.29', '2s', queue));
      expect(run.exitCode, run.output).toBe(3);
      expect(run.output).toMatch(
        /analysis failed: metric queue: `app_queue_depth` no data: the query returned no value \(noData: fail\), expected ≤ 10/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    }));

  it(
    'ends inconclusive when Prometheus stops mid-bake: exit 4 naming the query, the release kept for a person, no credential printed',
    () =>
      withPrometheus(async ({ sandboxed, prometheus, analysed }) => {
        const token = 'prom-token-4f1c9e0b7d';
        // kguardProcess passes the test's environment on: the token reaches kguard by its name only.
        process.env.KGUARD_TEST_PROM_TOKEN = token;
        const running = sandboxed.kguardProcess(
          await analysed(
            'nginx:1.26',
            '10s',
            errorRatio('1s', 10),
            ['--events', 'events.ndjson', '--junit', 'junit.xml', '--output', 'json'],
            '  bearerToken: {env: KGUARD_TEST_PROM_TOKEN}\n',
          ),
        );
        // The first evaluation passed: Prometheus answered, with the token.
        const events = join(sandboxed.dir, 'events.ndjson');
        await eventually(
          () => (existsSync(events) && readFileSync(events, 'utf8').includes('"result":"passed"') ? true : undefined),
          60_000,
        );
        await prometheus.kill();
        const run = await running.done;
        expect(run.exitCode, run.output).toBe(4);
        expect(run.output).toMatch(
          /analysis inconclusive: metric error-ratio: `sum\(rate\(app_requests_total.*` could not be judged \(Prometheus: http:\/\/127\.0\.0\.1:\d+ did not answer \(connection refused: connect ECONNREFUSED 127\.0\.0\.1:\d+\)\)/,
        );
        expect(run.output).toMatch(/kguard rollback /);
        expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
        expect(JSON.parse(run.stdout)).toMatchObject({
          outcome: 'needs-attention',
          exitCode: 4,
          analysis: { verdict: 'inconclusive', metric: 'error-ratio' },
        });
        for (const text of [
          run.stdout,
          run.stderr,
          readFileSync(join(sandboxed.dir, 'events.ndjson'), 'utf8'),
          readFileSync(join(sandboxed.dir, 'junit.xml'), 'utf8'),
        ])
          expect(text).not.toContain(token);
      }),
    120_000,
  );

  it('refuses a query Prometheus cannot parse before anything is applied (exit 1)', () =>
    withPrometheus(async ({ sandboxed, analysed }) => {
      const broken =
        '  - name: broken\n    query: sum(rate(app_requests_total[1m])\n    interval: 2s\n    threshold: {max: 1}\n';
      const run = await sandboxed.kguard(await analysed('nginx:1.26', '2s', broken));
      expect(run.exitCode, run.output).toBe(1);
      expect(run.output).toMatch(
        /--analysis .*analysis\.yaml: metric broken: Prometheus refuses its query `sum\(rate\(app_requests_total\[1m\]\)` \(bad_data: .*\)\. Nothing was applied/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    }));
});
