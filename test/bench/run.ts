// Benchmarks (timing belongs here, not in tests). Run with `npm run bench`.
// 1. Verdict latency: wall time from the simulator's first ImagePullBackOff on a new pod to
//    kguard printing its failure verdict, at the default and a short poll interval.
// 2. kubectl processes per poll cycle with 1 and with 10 tracked Deployments.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import type { KubeObject } from '../kube-sim/types.js';

const kguard = fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
const MISSING = 'xxxxxnginx:1.17';

interface Run {
  exitCode: number;
  stdout: string;
  verdictAt?: number;
}

async function runKguard(cluster: Cluster, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const child = execa(kguard, args, { env: { ...process.env, ...cluster.env, CI: 'true', NO_COLOR: '1', ...extraEnv }, reject: false });
  let stdout = '';
  let verdictAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (verdictAt === undefined && /✖ deployment\//.test(stdout)) verdictAt = performance.now();
  });
  const result = await child;
  return { exitCode: result.exitCode ?? -1, stdout, verdictAt };
}

function firstBackOff(cluster: Cluster): { at: () => number | undefined; stop: () => void } {
  let at: number | undefined;
  const stop = cluster.store.subscribe(({ object }: { object: KubeObject }) => {
    if (at !== undefined || object.kind !== 'Pod') return;
    const statuses: Array<{ state?: { waiting?: { reason?: string } } }> = object.status?.containerStatuses ?? [];
    if (statuses.some((status) => status.state?.waiting?.reason === 'ImagePullBackOff')) at = performance.now();
  });
  return { at: () => at, stop };
}

async function verdictLatency(pollInterval: string, timeScale: number): Promise<number> {
  const cluster = await startCluster({ timeScale, scenario: { registry: { [MISSING]: 'missing' } } });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-'));
  try {
    await writeFile(join(dir, 'good.yaml'), deploymentYaml('web', 'nginx:1.25', { replicas: 3 }));
    await writeFile(join(dir, 'bad.yaml'), deploymentYaml('web', MISSING, { replicas: 3 }));
    const base = await runKguard(cluster, ['apply', '-f', join(dir, 'good.yaml'), '--poll-interval', '200ms']);
    if (base.exitCode !== 0) throw new Error(`healthy deploy failed:\n${base.stdout}`);
    const probe = firstBackOff(cluster);
    const bad = await runKguard(cluster, ['apply', '-f', join(dir, 'bad.yaml'), '--poll-interval', pollInterval]);
    probe.stop();
    const backOffAt = probe.at();
    if (bad.exitCode !== 3 || backOffAt === undefined || bad.verdictAt === undefined) {
      throw new Error(`unexpected run (exit ${bad.exitCode}):\n${bad.stdout}`);
    }
    return bad.verdictAt - backOffAt;
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function processesPerCycle(deployments: number): Promise<{ cycles: number; polling: number; total: number }> {
  // Slow image pulls keep the rollout going for several poll cycles.
  const cluster = await startCluster({ timeScale: 1, scenario: { timing: { pullMs: 4000 } } });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-'));
  try {
    const log = join(dir, 'kubectl.log');
    const wrapper = join(dir, 'kubectl-counting');
    await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec kubectl "$@"\n`);
    await chmod(wrapper, 0o755);
    const manifest = Array.from({ length: deployments }, (_, index) => deploymentYaml(`app-${index}`, 'nginx:1.25', { replicas: 2 })).join('\n---\n');
    await writeFile(join(dir, 'apps.yaml'), manifest);
    const run = await runKguard(cluster, ['apply', '-f', join(dir, 'apps.yaml'), '--poll-interval', '500ms'], { KGUARD_KUBECTL: wrapper });
    if (run.exitCode !== 0) throw new Error(`rollout failed:\n${run.stdout}`);
    const calls = (await readFile(log, 'utf8')).trim().split('\n');
    const applyIndex = calls.findIndex((line) => / apply /.test(` ${line} `) && !line.includes('--dry-run'));
    const afterApply = calls.slice(applyIndex + 1);
    const cycles = afterApply.filter((line) => line.includes('get deployments.apps,replicasets.apps,pods')).length;
    const polling = afterApply.filter((line) => line.includes('get deployments.apps,replicasets.apps,pods') || line.includes('get events')).length;
    return { cycles, polling, total: calls.length };
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  return `min ${Math.round(sorted[0] ?? NaN)} ms, median ${Math.round(median)} ms, max ${Math.round(sorted.at(-1) ?? NaN)} ms (n=${values.length})`;
}

async function clusterStartTimes(runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const began = performance.now();
    const cluster = await startCluster();
    times.push(performance.now() - began);
    await cluster.stop();
  }
  return times;
}

async function main(): Promise<void> {
  console.log(`simulated cluster start (startCluster): ${stats(await clusterStartTimes(20))}`);
  for (const [pollInterval, timeScale] of [
    ['2s', 1],
    ['500ms', 1],
  ] as const) {
    const latencies: number[] = [];
    for (let run = 0; run < 5; run += 1) latencies.push(await verdictLatency(pollInterval, timeScale));
    console.log(`first ImagePullBackOff → kguard verdict, --poll-interval ${pollInterval}, sim time scale ${timeScale}: ${stats(latencies)}`);
  }
  for (const count of [1, 10]) {
    const { cycles, polling, total } = await processesPerCycle(count);
    console.log(
      `${count} tracked Deployment(s): ${cycles} poll cycles, ${polling} kubectl processes while polling ` +
        `(${(polling / cycles).toFixed(2)} per cycle), ${total} kubectl processes in the whole run`,
    );
  }
}

await main();
