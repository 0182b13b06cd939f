// A real Prometheus for the tests (Debian's `prometheus` package, installed by .ci/run): started on
// a free loopback port with its own config and a temporary storage directory, scraping every
// second an exporter the test controls (a small Node HTTP server answering /metrics in
// Prometheus's text format). Both end with stop(): nothing outlives the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN || 'prometheus';

/** What the exporter serves at one scrape: metric lines in the text exposition format. */
export type Exposition = () => string;

export interface TestPrometheus {
  address: string;
  /** Stops Prometheus (SIGTERM, SIGKILL after 5s), as a test does mid-run; stop() stops the rest. */
  kill(): Promise<void>;
  /** Resolves once Prometheus has scraped the exporter `scrapes` more times. */
  scraped(scrapes?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrometheus(exposition: Exposition): Promise<TestPrometheus> {
  let scrapes = 0;
  const waiters: Array<{ at: number; resolve(): void }> = [];
  const exporter = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    scrapes += 1;
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(exposition());
    for (const waiter of waiters.filter((candidate) => scrapes >= candidate.at)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  await listen(exporter);
  const exporterPort = (exporter.address() as AddressInfo).port;
  const dir = await mkdtemp(join(tmpdir(), 'kguard-prometheus-'));
  const port = await freePort();
  await writeFile(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: app',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${exporterPort}']`,
      '',
    ].join('\n'),
  );
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const address = `http://127.0.0.1:${port}`;
  const server: TestPrometheus = {
    address,
    kill: () => ended(child),
    scraped: (more = 1) => new Promise<void>((resolve) => waiters.push({ at: scrapes + more, resolve })),
    async stop() {
      await ended(child);
      await new Promise<void>((resolve) => exporter.close(() => resolve()));
      exporter.closeAllConnections();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await ready(address, child, () => log);
    // Two scrapes: a rate() over the first seconds has its two samples.
    await server.scraped(2);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function ready(address: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log()}`);
    const answer = await fetch(`${address}/-/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
    if (answer?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus was not ready within 30s:\n${log()}`);
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await listen(probe);
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
