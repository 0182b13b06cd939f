// Starts one real control plane for the whole test/real suite and hands its kubeconfigs to the
// test files (inject('realCluster')); stops it, every process by PID, when the suite ends.
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startRealCluster, type RealCluster } from '../control-plane/cluster.js';
import { REAL_SCENARIO } from './scenario.js';

export interface ProvidedRealCluster {
  env: RealCluster['env'];
  restrictedEnv: RealCluster['restrictedEnv'];
  server: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    realCluster: ProvidedRealCluster;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const cluster = await startRealCluster({
    scenario: REAL_SCENARIO,
    deadlineMs: 15 * 60_000,
    log: (line) => console.log(`[control plane] ${line}`),
  });
  console.log(`[control plane] ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cluster.server}`);
  project.provide('realCluster', { env: cluster.env, restrictedEnv: cluster.restrictedEnv, server: cluster.server });
  return async () => {
    // What each process holds at the end of the suite, for the README's numbers.
    const rss = cluster.processes.map((process) => `${process.name} ${residentMiB(process.pid)}`).join(', ');
    console.log(`[control plane] resident memory at the end: ${rss}`);
    await cluster.stop();
  };
}

function residentMiB(pid: number): string {
  try {
    const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return `${Math.round(kib / 1024)} MiB`;
  } catch {
    return '(gone)';
  }
}
