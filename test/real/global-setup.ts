// Starts one real control plane for the whole test/real suite and hands its kubeconfigs to the
// test files (inject('realCluster')); stops it, every process by PID, when the suite ends, and
// then checks that the host is as it was before (host.ts).
// The cluster has kwok's fake nodes (the scenario's) and one real node (a kubelet and containerd,
// test/control-plane/node.ts) tainted kguard.dev/real-node: only pods that tolerate it run there
// (real-pods.ts onRealNode), so the kwok files' pods stay on kwok.
import { readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startRealCluster, type RealCluster } from '../control-plane/cluster.js';
import { REAL_NODE_TAINT, REAL_SCENARIO } from './scenario.js';
import { hostDifferences, snapshotHost } from './host.js';

export interface ProvidedRealCluster {
  env: RealCluster['env'];
  restrictedEnv: RealCluster['restrictedEnv'];
  server: string;
  /** The real node's open registry ("127.0.0.1:PORT", plain HTTP) and its private one. */
  registry: string;
  privateRegistry: { host: string; username: string; password: string };
  realNode: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    realCluster: ProvidedRealCluster;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const before = snapshotHost();
  const cluster = await startRealCluster({
    scenario: REAL_SCENARIO,
    deadlineMs: 15 * 60_000,
    log: (line) => console.log(`[control plane] ${line}`),
    realNodes: 1,
    realNodeTaints: [REAL_NODE_TAINT],
  });
  console.log(`[control plane] ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cluster.server}`);
  project.provide('realCluster', {
    env: cluster.env,
    restrictedEnv: cluster.restrictedEnv,
    server: cluster.server,
    registry: cluster.registry!,
    privateRegistry: { host: cluster.privateRegistry!.host, ...cluster.privateRegistry!.credentials },
    realNode: cluster.realNodes[0]!.name,
  });
  return async () => {
    // What each process holds at the end of the suite, for the README's numbers.
    const rss = cluster.processes.map((process) => `${process.name} ${residentMiB(process.pid)}`).join(', ');
    console.log(`[control plane] resident memory at the end: ${rss}`);
    await cluster.stop();
    const left = hostDifferences(before, snapshotHost());
    if (left.length > 0) throw new Error(`the real suite changed the host:\n${left.join('\n')}`);
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
