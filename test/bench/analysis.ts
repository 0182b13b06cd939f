// What --analysis costs and how fast it acts: `node dist/test/bench/analysis.js [--runs 5] [--interval 1s]`.
// Against a real Prometheus (test/analysis/prometheus-server.ts, 1 s scrapes) and the simulated
// cluster, web goes from nginx:1.25 to nginx:1.27, whose exporter answers 30% 5xx from the moment
// the image is in the cluster. Measured per run: from the first scrape that served a 5xx (the bad
// metric is in Prometheus from then on) to kguard's verdict line, to its restore line, and to its
// exit (--late MS: the release turns bad that long after the apply, during the bake); and each evaluation's cost (Prometheus's answer time, from the `analysis` events).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { startCluster } from '../kube-sim/cluster.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { startPrometheus } from '../analysis/prometheus-server.js';

const { values: flags } = parseArgs({
  options: {
    kguard: { type: 'string' },
    runs: { type: 'string' },
    interval: { type: 'string' },
    late: { type: 'string' },
  },
});
const kguard = flags.kguard ?? fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
const runs = Number(flags.runs ?? 5);
const interval = flags.interval ?? '1s';
/** --late 5000: the release turns bad this long after it is in the cluster (mid-bake), not at once. */
const lateMs = Number(flags.late ?? 0);

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `min ${sorted[0]!.toFixed(0)} / median ${at(0.5).toFixed(0)} / max ${sorted.at(-1)!.toFixed(0)} ms`;
};

async function once(): Promise<{ verdict: number; restoring: number; exit: number; costs: number[] }> {
  const cluster = await startCluster({ timeScale: 10 });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-analysis-'));
  let firstBad: number | undefined;
  let released: number | undefined;
  let ok = 0;
  let errors = 0;
  const prometheus = await startPrometheus(() => {
    const release =
      cluster.store.get('Deployment', 'default', 'web')?.spec.template.spec.containers[0].image === 'nginx:1.27';
    if (release) released ??= Date.now();
    const bad = release && Date.now() - released! >= lateMs;
    if (bad) firstBad ??= Date.now();
    ok += bad ? 70 : 100;
    errors += bad ? 30 : 0;
    return `app_requests_total{code="200"} ${ok}\napp_requests_total{code="500"} ${errors}\n`;
  });
  try {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'));
    await prometheus.scraped(4);
    await writeFile(
      join(dir, 'analysis.yaml'),
      `prometheus: {address: "${prometheus.address}"}\nmetrics:\n  - name: error-ratio\n    query: 'sum(rate(app_requests_total{code=~"5.."}[3s])) / sum(rate(app_requests_total[3s]))'\n    interval: ${interval}\n    threshold: {max: 0.05}\n`,
    );
    await writeFile(join(dir, 'web.yaml'), deploymentYaml('web', 'nginx:1.27'));
    const seen: Record<string, number> = {};
    const child = execa(
      kguard,
      [
        'apply',
        '-f',
        join(dir, 'web.yaml'),
        '--poll-interval',
        '300ms',
        '--bake',
        '60s',
        '--analysis',
        join(dir, 'analysis.yaml'),
        '--events',
        join(dir, 'events.ndjson'),
      ],
      {
        env: {
          ...process.env,
          ...cluster.env,
          CI: 'true',
          NO_COLOR: '1',
          HTTPS_PROXY: 'http://127.0.0.1:9',
          NO_PROXY: '127.0.0.1',
        },
        reject: false,
        all: true,
      },
    );
    child.all?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('analysis failed')) seen.verdict ??= Date.now();
      if (text.includes('restoring')) seen.restoring ??= Date.now();
    });
    const result = await child;
    const exitAt = Date.now();
    if (result.exitCode !== 3 || firstBad === undefined) throw new Error(`expected exit 3:\n${result.all}`);
    const events = (await readFile(join(dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; evaluation?: { elapsedMs: number } });
    return {
      verdict: seen.verdict! - firstBad,
      restoring: seen.restoring! - firstBad,
      exit: exitAt - firstBad,
      costs: events.flatMap((event) =>
        event.kind === 'analysis' && event.evaluation ? [event.evaluation.elapsedMs] : [],
      ),
    };
  } finally {
    await prometheus.stop();
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let run = 0; run < runs; run += 1) results.push(await once());
console.log(
  `--analysis, interval ${interval}, Prometheus scraping every 1s, the release bad ${lateMs} ms after the apply, ${runs} runs (bad metric = the first scrape that served a 5xx):`,
);
console.log(`  bad metric → verdict line:   ${stats(results.map((result) => result.verdict))}`);
console.log(`  bad metric → restore starts: ${stats(results.map((result) => result.restoring))}`);
console.log(`  bad metric → kguard exits 3: ${stats(results.map((result) => result.exit))}`);
console.log(
  `  one evaluation (Prometheus's answer, ${results.flatMap((result) => result.costs).length} evaluations): ${stats(results.flatMap((result) => result.costs))}`,
);
