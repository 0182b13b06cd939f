// What a real node could leave on the host, read before and after a run: the suite's teardown
// and host.test.ts (after a kill -9 of `npm run cluster:real`) require no difference. Each entry
// names a place a kubelet, containerd, runc or a CNI plugin writes to by default, or that
// test/control-plane/node.ts makes and removes: /run, /var/lib and /var/log entries, /etc/cni,
// top-level cgroups, network links and routes, the sysctls a kubelet or the bridge plugin sets,
// mount points, and node processes (containerd, its shims, kubelets, the test program).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupHierarchies } from '../control-plane/host-state.js';
import { SHADOWED_SYSCTLS } from '../control-plane/node.js';

export type HostSnapshot = Record<string, string[]>;

// The ones a node shadows in its own namespace, and those only the host's own could change.
const SYSCTLS = [
  ...SHADOWED_SYSCTLS,
  'net/ipv4/conf/all/forwarding',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
];
const NODE_PROGRAMS = /^(containerd|containerd-shim-runc-v2|kubelet|runc|testapp)$/;

const list = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);
const lines = (command: string, args: string[]): string[] => {
  try {
    return execFileSync(command, args, { encoding: 'utf8', timeout: 5_000 }).trim().split('\n').filter(Boolean).sort();
  } catch {
    return [];
  }
};

export function snapshotHost(): HostSnapshot {
  const processes: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
      const name = exe.split('/').pop() ?? '';
      // With its top-level pids cgroup: a process of a node that was there before is that node's.
      const cgroup = /^\d+:pids:\/([^/\n]*)/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1] ?? '';
      if (NODE_PROGRAMS.test(name)) processes.push(`${pid} ${exe} in /${cgroup}`);
    } catch {
      // Gone, or a kernel thread.
    }
  }
  return {
    '/run': list('/run'),
    '/var/lib': list('/var/lib').filter((name) => /^(cni|containerd|kubelet|dockershim|calico)$/.test(name)),
    '/var/log': list('/var/log').filter((name) => /^(pods|containers)$/.test(name)),
    '/etc/cni': list('/etc/cni'),
    cgroups: cgroupHierarchies().flatMap((hierarchy) =>
      list(hierarchy)
        .filter((name) => !name.includes('.') && existsSync(join(hierarchy, name, 'cgroup.procs')))
        .map((name) => join(hierarchy, name)),
    ),
    // With the bridge a link is enslaved to: a pod's veth on a bridge that was there before is that node's.
    links: lines('ip', ['-o', 'link', 'show']).map((line) => {
      const name = line.split(': ')[1]?.split('@')[0] ?? line;
      const master = / master (\S+)/.exec(line)?.[1];
      return master ? `${name} on ${master}` : name;
    }),
    // A route is an entry; `linkdown` is its bridge's state of the moment (no pod's veth up on it),
    // which a node that runs before and after (the suite's own) changes as its pods come and go.
    routes: lines('ip', ['-4', 'route', 'show', 'table', 'all']).map((line) => line.replace(/ linkdown\b/g, '').trim()),
    sysctls: SYSCTLS.map(
      (name) => `${name}=${existsSync(`/proc/sys/${name}`) ? readFileSync(`/proc/sys/${name}`, 'utf8').trim() : '-'}`,
    ),
    mounts: readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[4]!)
      .sort(),
    processes,
  };
}

/**
 * Whether an entry names a real node of another cluster (node.ts names a node's cgroup
 * `kguard-<cluster>-<n>` and its bridge `kg<cluster>n<n>`): the suite's own node, whose CNI bridge
 * appears only with its first pod, may start or change while host.test.ts's cluster runs.
 */
function ofAnotherNode(entry: string, ownCluster: string): boolean {
  const clusters = [...entry.matchAll(/\bkg([0-9a-f]{6})n\d+\b|\bkguard-([0-9a-f]{6})-\d+\b/g)].map(
    (match) => match[1] ?? match[2],
  );
  return clusters.length > 0 && clusters.every((cluster) => cluster !== ownCluster);
}

/**
 * What `after` has that `before` had not (and sysctls that changed), one line each. Processes in a
 * cgroup, and links on a bridge, that were there before belong to a node that was running before
 * (the suite's own, while host.test.ts runs beside the other files): not differences. With
 * `ownCluster`, only that cluster's nodes and what names no node count (host.test.ts).
 */
export function hostDifferences(before: HostSnapshot, after: HostSnapshot, ownCluster?: string): string[] {
  const cgroupsBefore = new Set((before.cgroups ?? []).map((path) => `/${path.split('/').pop()}`));
  const linksBefore = new Set(before.links ?? []);
  const differences: string[] = [];
  for (const [place, entries] of Object.entries(after)) {
    const known = new Set(before[place] ?? []);
    for (const entry of entries) {
      if (known.has(entry)) continue;
      if (ownCluster !== undefined && ofAnotherNode(entry, ownCluster)) continue;
      if (place === 'processes' && cgroupsBefore.has(entry.split(' in ')[1] ?? '')) continue;
      if (place === 'links' && linksBefore.has(entry.split(' on ')[1] ?? '')) continue;
      differences.push(`${place}: ${entry}`);
    }
  }
  return differences;
}
