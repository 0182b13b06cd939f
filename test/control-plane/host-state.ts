// What a real node leaves on the host besides its processes, and how to remove it: its cgroup trees
// (the kubelet's cgroupRoot, with containerd, its shims and every container under it) and its CNI
// bridge. Everything else a node makes lives in its own mount namespace (node.ts) and goes with it.
// Used by ProcessGroup.stopAll (processes.ts) and by the watchdog after a kill -9 of the parent,
// so no node outlives the run that started it.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

export interface HostState {
  /** A top-level cgroup name (e.g. kguard-1a2b3c-1), made in every mounted hierarchy. */
  cgroup?: string;
  /** A network interface (the node's CNI bridge). */
  link?: string;
}

/** The mounted cgroup hierarchies (v1 controllers, or the v2 unified one), from /proc/mounts. */
export function cgroupHierarchies(): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[2] === 'cgroup' || fields[2] === 'cgroup2')
    .map((fields) => fields[1]!)
    .filter((path) => path.startsWith('/sys/fs/cgroup'));
}

/** Every folder of a cgroup tree, deepest first. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const below = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => tree(join(dir, entry.name)));
  return [...below, dir];
}

/** The PIDs in a cgroup tree of every hierarchy. */
export function pidsIn(cgroup: string): number[] {
  const pids = new Set<number>();
  for (const hierarchy of cgroupHierarchies())
    for (const dir of tree(join(hierarchy, cgroup))) {
      try {
        for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
          if (Number(pid) > 0) pids.add(Number(pid));
      } catch {
        // Removed meanwhile.
      }
    }
  return [...pids];
}

/** SIGKILLs everything in the cgroup tree until it is empty (or `deadlineMs` passes), then removes it. */
export async function removeCgroup(cgroup: string, deadlineMs = 10_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const pids = pidsIn(cgroup);
    if (pids.length === 0 || Date.now() > until) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const hierarchy of cgroupHierarchies())
    for (const dir of tree(join(hierarchy, cgroup))) {
      // An emptied cgroup may take a moment to be released.
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          rmdirSync(dir);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
}

export function deleteLink(name: string): void {
  try {
    execFileSync('ip', ['link', 'delete', name], { stdio: 'ignore', timeout: 5_000 });
  } catch {
    // Not there (never made, or gone with its last pod).
  }
}

export async function removeHostState(state: HostState): Promise<void> {
  if (state.cgroup) await removeCgroup(state.cgroup);
  if (state.link) deleteLink(state.link);
}
