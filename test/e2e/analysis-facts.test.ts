// What --analysis sends Prometheus, end to end: bin/kguard → real kubectl → simulated cluster, with
// a scripted Prometheus (an HTTP server answering /api/v1/query as Prometheus's HTTP API does, and
// noting each query and connection) where the question is what kguard asks, not what a metric says
// (test/e2e/analysis.test.ts judges releases against a real Prometheus). One client per run (one
// connection for the check before the apply and the evaluations after it); {{ workloads }} when the
// apply changed only configuration, and refused when the apply holds no workload; {{ appliedAt }}
// of a phased apply at its main phase's write; an inconclusive analysis with --no-journal prints
// the commands that undo the apply.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml, jobYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';
import { configMapYaml } from './manifests.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

interface Asked {
  query: string;
  /** Prometheus's `time=` (seconds). */
  time: number;
  /** When it came (epoch ms). */
  at: number;
}

/** A scripted Prometheus: every query answered 0 (or, after `healthyAnswers`, an error), each one noted. */
async function scriptedPrometheus(healthyAnswers = Number.POSITIVE_INFINITY) {
  const asked: Asked[] = [];
  let connections = 0;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://prometheus');
    if (url.pathname !== '/api/v1/query') {
      response.writeHead(404).end();
      return;
    }
    const time = Number(url.searchParams.get('time'));
    asked.push({ query: url.searchParams.get('query') ?? '', time, at: Date.now() });
    if (asked.length > healthyAnswers) {
      // Prometheus's envelope for a failed evaluation (web/api/v1/api.go errorExec: 422 execution).
      response.writeHead(422, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 'error',
          errorType: 'execution',
          error: 'query processing would load too many samples',
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: {}, value: [time, '0'] }] },
      }),
    );
  });
  server.on('connection', () => (connections += 1));
  // An idle connection stays open for the whole run: a second one means a second client.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    connections: () => connections,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Scripted = Awaited<ReturnType<typeof scriptedPrometheus>>;

async function withScripted(
  test: (sandboxed: Sandbox, prometheus: Scripted) => Promise<void>,
  healthyAnswers?: number,
): Promise<void> {
  const sandboxed = await sandbox();
  const prometheus = await scriptedPrometheus(healthyAnswers);
  try {
    await test(sandboxed, prometheus);
  } finally {
    await prometheus.stop();
    await sandboxed.stop();
  }
}

async function analysisFile(sandboxed: Sandbox, address: string, query: string): Promise<string> {
  return sandboxed.write(
    'analysis.yaml',
    `prometheus:\n  address: ${address}\n  timeout: 3s\nmetrics:\n  - name: errors\n    query: '${query}'\n    interval: 1s\n    count: 1\n    threshold: {max: 1}\n`,
  );
}

/** The manifest with `kguard.dev/phase: pre` on its object. */
function inPre(yaml: string): string {
  return yaml.replace(/^metadata:\n {2}name: (\S+)\n/m, (line) => `${line}  annotations:\n    kguard.dev/phase: pre\n`);
}

describe.concurrent('kguard apply --analysis: what it asks Prometheus', () => {
  it('asks through one client for the whole run: the check before the apply and the evaluation after it share one connection', () =>
    withScripted(async (sandboxed, prometheus) => {
      await sandboxed.deployHealthy('web', 'nginx:1.25');
      const analysis = await analysisFile(sandboxed, prometheus.address, 'sum(errors{deployment=~"{{ workloads }}"})');
      const file = await sandboxed.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--analysis', analysis]);
      expect(run.exitCode, run.output).toBe(0);
      expect(prometheus.asked.map(({ query }) => query)).toEqual([
        'sum(errors{deployment=~"check"})',
        'sum(errors{deployment=~"web"})',
      ]);
      expect(prometheus.connections()).toBe(1);
    }));

  it('names the workloads the apply holds in {{ workloads }} when it changed only their configuration (a ConfigMap)', () =>
    withScripted(async (sandboxed, prometheus) => {
      const first = await sandboxed.write(
        'app.yaml',
        `${deploymentYaml('web', 'nginx:1.25')}---\n${configMapYaml('web-config', { level: 'info' })}`,
      );
      expect((await sandboxed.kguard(['apply', '-f', first, ...fast])).exitCode).toBe(0);
      const analysis = await analysisFile(sandboxed, prometheus.address, 'sum(errors{deployment=~"{{ workloads }}"})');
      const second = await sandboxed.write(
        'app.yaml',
        `${deploymentYaml('web', 'nginx:1.25')}---\n${configMapYaml('web-config', { level: 'debug' })}`,
      );
      const run = await sandboxed.kguard(['apply', '-f', second, ...fast, '--analysis', analysis]);
      expect(run.exitCode, run.output).toBe(0);
      expect(prometheus.asked.at(-1)?.query).toBe('sum(errors{deployment=~"web"})');
    }));

  it('refuses a query that names {{ workloads }} when the apply holds no workload (exit 1, nothing applied)', () =>
    withScripted(async (sandboxed, prometheus) => {
      const analysis = await analysisFile(sandboxed, prometheus.address, 'sum(errors{deployment=~"{{ workloads }}"})');
      const file = await sandboxed.write('config.yaml', configMapYaml('web-config', { level: 'debug' }));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--analysis', analysis]);
      expect(run.exitCode, run.output).toBe(1);
      expect(run.output).toContain(
        'metric errors: its query names {{ workloads }} (or {{ workload }}), but the apply holds no workload for it to name',
      );
      expect(sandboxed.cluster.store.get('ConfigMap', 'default', 'web-config')).toBeUndefined();
    }));

  it("gives {{ appliedAt }} of a phased apply as the main phase's write, after the pre phase's Job", () =>
    withScripted(async (sandboxed, prometheus) => {
      await sandboxed.deployHealthy('web', 'nginx:1.25');
      const analysis = await analysisFile(sandboxed, prometheus.address, 'sum(errors @ {{ appliedAt }})');
      // The migration runs 20 s of the simulator's clock: 2 s here (timeScale 10).
      const file = await sandboxed.write(
        'release.yaml',
        `${inPre(jobYaml('migrate', 'nginx:1.25', { runSeconds: 20 }))}---\n${deploymentYaml('web', 'nginx:1.26')}`,
      );
      const run = await sandboxed.kguard([
        'apply',
        '-f',
        file,
        ...fast,
        '--analysis',
        analysis,
        '--events',
        'events.ndjson',
      ]);
      expect(run.exitCode, run.output).toBe(0);
      const phases = readFileSync(join(sandboxed.dir, 'events.ndjson'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { kind: string; phase?: string; time: string })
        .filter((event) => event.kind === 'phase');
      const [pre, main] = ['pre', 'main'].map((phase) =>
        Date.parse(phases.find((event) => event.phase === phase)!.time),
      );
      const evaluation = prometheus.asked.at(-1)!;
      const appliedAt = Number(/@ (\d+)\)$/.exec(evaluation.query)?.[1]);
      // The main phase began once the Job had run its 2 s: {{ appliedAt }} is then, not the pre phase's start.
      expect(main! - pre!).toBeGreaterThanOrEqual(2000);
      expect(appliedAt).toBeGreaterThanOrEqual(Math.floor(main! / 1000));
      expect(appliedAt).toBeLessThanOrEqual(evaluation.at / 1000);
    }));

  it('with --no-journal, an inconclusive analysis (exit 4) prints the commands that undo each change, as --rollback none does', () =>
    withScripted(async (sandboxed, prometheus) => {
      await sandboxed.deployHealthy('web', 'nginx:1.25');
      const analysis = await analysisFile(sandboxed, prometheus.address, 'sum(errors)');
      const file = await sandboxed.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--analysis', analysis, '--no-journal']);
      expect(run.exitCode, run.output).toBe(4);
      expect(run.output).toMatch(
        /deployment\/web \(namespace default\): left as applied: the analysis could not judge the release \(--no-journal keeps no run for kguard rollback\)\. If it should not stay, restore it by hand:\n\s+kubectl replace -f \S+\/deployment-default-web\.json\n/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    }, 1));
});
