// What one run of a command costs the cluster, counted (deterministic, unlike its time): the
// kubectl processes it starts (a kubectl on PATH that notes each start, then runs the real one)
// and the API requests the simulator answered, with the whole-namespace lists among them.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Cluster } from '../kube-sim/cluster.js';

export interface Counted {
  exitCode: number;
  stdout: string;
  /** kubectl processes started, proxies included. */
  processes: number;
  requests: number;
  /** Lists of a whole namespace (a GET of a collection: no name, no selector, no watch), by path, with how often each was read. */
  lists: Map<string, number>;
  /** The kubectl command lines, in order of their start. */
  commands: string[];
  /** The requests, method and path, in order (to say what a figure is made of). */
  log: string[];
}

/** Runs `command args` once with the cluster's kubeconfig and a counting kubectl first on PATH. */
export async function counted(
  cluster: Cluster,
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Counted> {
  const real = (await execa('sh', ['-c', 'command -v kubectl'])).stdout.trim();
  const dir = await mkdtemp(join(tmpdir(), 'kguard-count-'));
  try {
    const tally = join(dir, 'starts');
    await writeFile(tally, '');
    await writeFile(join(dir, 'kubectl'), `#!/bin/sh\necho "$*" >> '${tally}'\nexec '${real}' "$@"\n`);
    await chmod(join(dir, 'kubectl'), 0o755);
    const seen = cluster.requests.length;
    const run = await execa(command, args, {
      env: { ...process.env, ...cluster.env, CI: 'true', NO_COLOR: '1', ...env, PATH: `${dir}:${process.env.PATH}` },
      reject: false,
    });
    const requests = cluster.requests.slice(seen);
    const lists = new Map<string, number>();
    for (const request of requests) {
      const url = new URL(request.url, 'http://sim');
      if (request.method !== 'GET' || url.searchParams.has('watch')) continue;
      if (url.searchParams.has('labelSelector') || url.searchParams.has('fieldSelector')) continue;
      if (!/\/namespaces\/[^/]+\/[^/]+$/.test(url.pathname)) continue;
      lists.set(url.pathname, (lists.get(url.pathname) ?? 0) + 1);
    }
    const starts = (await readFile(tally, 'utf8')).split('\n').filter(Boolean);
    return {
      exitCode: run.exitCode ?? -1,
      stdout: run.stdout,
      processes: starts.length,
      commands: starts,
      requests: requests.length,
      lists,
      log: requests.map((request) => `${request.method} ${request.url}`),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The most any whole-namespace list was read in one run. */
export const mostListed = (run: Counted): number => Math.max(0, ...run.lists.values());
