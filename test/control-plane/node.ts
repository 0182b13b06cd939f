// A real node: Debian's containerd (with runc and the CNI plugins) and a kubelet built from the
// control plane's pins, registered with the real API server. What this machine kind needs, each
// found by trying and checked against the source named:
//
// - containerd `restrict_oom_score_adj = true`: root here lacks CAP_SYS_RESOURCE (CapEff
//   000001fffeffffff, bit 24 clear), so runc cannot lower a sandbox's oom_score_adj and every
//   sandbox fails with `can't get final child's PID from pipe: EOF`; the CRI plugin's option
//   clamps the value to the runtime's own (containerd pkg/cri/config/config.go RestrictOOMScoreAdj).
// - kubelet `failCgroupV1: false`: the host has cgroup v1 only, which the kubelet refuses unless
//   this is false ("Default: true", k8s.io/kubelet config/v1beta1/types.go FailCgroupV1).
// - a node IP that is not loopback: the API server reaches the kubelet (logs) at the node's
//   InternalIP, and a 127.0.0.1 InternalIP is another host's loopback to every pod.
// - `clusterDNS` set: without it each pod gets a MissingClusterDNS event (kubelet
//   pkg/kubelet/network/dns/dns.go) and falls back to the host's resolv.conf.
// - `makeIPTablesUtilChains: false`: no KUBE-* chains on the host (and no iptables binary here).
// - each node its own cgroupRoot, root dir, containerd socket, state and root dirs, CNI bridge and
//   subnet: two nodes (or two clusters) run side by side.
//
// The host is not changed: containerd and the kubelet run in a mount namespace of their own
// (`unshare --mount --propagation private`, held by a `sleep` whose PID the group tracks) in which
// /run, /var/lib and /var/log are empty tmpfs and the sysctls a kubelet or the bridge plugin would
// write (vm.overcommit_memory, kernel.panic, kernel.panic_on_oops, net.ipv4.ip_forward, …) are
// bind mounts of copies (kubelet pkg/kubelet/cm/container_manager_linux.go setupKernelTunables;
// plugins/pkg/ip/ipforward_linux.go). What remains on the host, the cgroup tree and the bridge, is
// tracked (host-state.ts) and removed at stop, or by the watchdog after a kill -9.

import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { freePort } from '../free-port.js';
import { until } from './api.js';
import { cgroupHierarchies } from './host-state.js';
import { writeKubeconfig } from './kubeconfig.js';
import type { ClientIdentity, Pki } from './pki.js';
import type { ProcessGroup, Started } from './processes.js';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface RealNodeOptions {
  name: string;
  /** This cluster's short random id: cgroup and bridge names carry it. */
  clusterId: string;
  index: number;
  /** The node's folder (sockets, state, the kubelet's root dir, logs). Keep it short: sockets live there. */
  dir: string;
  kubelet: string;
  pki: Pki;
  server: string;
  group: ProcessGroup;
  /** The sandbox (pause) image, from a local registry. */
  sandboxImage: string;
  /** Registries ("HOST:PORT") containerd reaches over plain HTTP. */
  plainHttpRegistries: string[];
  nodeIp: string;
  taints?: Taint[];
  labels?: Record<string, string>;
  check?: () => void;
}

export interface RealNode {
  name: string;
  cgroupRoot: string;
  bridge: string;
  subnet: string;
  kubeletPort: number;
  processes: Started[];
}

/** The sysctls a kubelet (setupKernelTunables) or the bridge plugin (isGateway) writes: shadowed in the node's namespace. */
export const SHADOWED_SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/ipv4/ip_forward',
];

export function newClusterId(): string {
  return randomBytes(3).toString('hex');
}

/** The machine's own IPv4 address (the first global one): the nodes' InternalIP. */
export function hostAddress(): string {
  const out = execFileSync('ip', ['-4', '-o', 'addr', 'show', 'scope', 'global'], { encoding: 'utf8', timeout: 5_000 });
  const address = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(out)?.[1];
  if (!address) throw new Error(`no global IPv4 address on this machine (ip -4 addr show scope global):\n${out}`);
  return address;
}

/** A /24 for the node's pods that no route or address of the host touches. */
function freeSubnet(): string {
  const taken = execFileSync('ip', ['-4', 'route', 'show', 'table', 'all'], { encoding: 'utf8', timeout: 5_000 });
  for (let attempt = 0; attempt < 50; attempt++) {
    const [a, b] = randomBytes(2);
    const prefix = `10.${200 + (a! % 50)}.${b}.`;
    if (!taken.includes(prefix)) return `${prefix}0/24`;
  }
  throw new Error('no free 10.200-249.x.0/24 for a node subnet');
}

export async function startRealNode(options: RealNodeOptions): Promise<RealNode> {
  const { name, dir, group } = options;
  const cgroupRoot = `kguard-${options.clusterId}-${options.index}`;
  const bridge = `kg${options.clusterId}n${options.index}`;
  const subnet = freeSubnet();
  const kubeletPort = await freePort();
  const path = (...parts: string[]) => join(dir, ...parts);
  for (const sub of [
    'containerd/root',
    'containerd/state',
    'containerd/opt',
    'certs.d',
    'cni/net.d',
    'cni/ipam',
    'sysctl',
    'kubelet',
    'pod-logs',
  ])
    await mkdir(path(sub), { recursive: true });

  // Tracked before it exists: a start that fails half way is cleaned up too.
  group.track({ cgroup: cgroupRoot, link: bridge });
  const hierarchies = cgroupHierarchies();
  // The hierarchy whose tree holds every process of the node (containerd, shims, containers).
  const tracking = hierarchies.find((h) => h.endsWith('/pids')) ?? hierarchies.find((h) => h === '/sys/fs/cgroup');
  if (!tracking) throw new Error(`no pids cgroup hierarchy among ${hierarchies.join(', ')}`);
  for (const hierarchy of hierarchies) {
    await mkdir(join(hierarchy, cgroupRoot), { recursive: true });
    if (hierarchy.endsWith('/cpuset'))
      for (const file of ['cpuset.cpus', 'cpuset.mems'])
        await writeFile(join(hierarchy, cgroupRoot, file), readFileSync(join(hierarchy, file), 'utf8'));
  }
  const runtimeCgroup = join(tracking, cgroupRoot, 'runtime');
  await mkdir(runtimeCgroup, { recursive: true });

  // containerd's configuration (version 2, containerd 1.6/1.7): everything under the node's folder.
  const socket = path('containerd.sock');
  for (const registry of options.plainHttpRegistries) {
    await mkdir(path('certs.d', registry), { recursive: true });
    await writeFile(
      path('certs.d', registry, 'hosts.toml'),
      `server = "http://${registry}"\n\n[host."http://${registry}"]\n  capabilities = ["pull", "resolve", "push"]\n`,
    );
  }
  await writeFile(
    path('containerd.toml'),
    [
      'version = 2',
      `root = "${path('containerd/root')}"`,
      `state = "${path('containerd/state')}"`,
      'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]',
      '[grpc]',
      `  address = "${socket}"`,
      '[ttrpc]',
      `  address = "${socket}.ttrpc"`,
      '[plugins."io.containerd.internal.v1.opt"]',
      `  path = "${path('containerd/opt')}"`,
      '[plugins."io.containerd.grpc.v1.cri"]',
      `  sandbox_image = "${options.sandboxImage}"`,
      '  restrict_oom_score_adj = true',
      '  [plugins."io.containerd.grpc.v1.cri".containerd]',
      '    snapshotter = "overlayfs"',
      '    default_runtime_name = "runc"',
      '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
      '      runtime_type = "io.containerd.runc.v2"',
      '  [plugins."io.containerd.grpc.v1.cri".cni]',
      '    bin_dir = "/usr/lib/cni"',
      `    conf_dir = "${path('cni/net.d')}"`,
      '    max_conf_num = 1',
      '  [plugins."io.containerd.grpc.v1.cri".registry]',
      `    config_path = "${path('certs.d')}"`,
      '',
    ].join('\n'),
  );
  // A bridge with the gateway on the host side (the kubelet probes pod IPs from here), no masquerade
  // (no iptables rule), leases in the node's folder.
  await writeFile(
    path('cni/net.d/10-kguard.conflist'),
    JSON.stringify({
      cniVersion: '0.4.0',
      name: `kguard-${options.clusterId}-${options.index}`,
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: path('cni/ipam'),
          },
        },
      ],
    }),
  );

  // The mount namespace, held by a sleep: empty /run, /var/lib, /var/log, the written sysctls shadowed.
  const ready = path('namespace-ready');
  const holder = group.start(`${name} namespace`, 'unshare', [
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-ec',
    [
      'for target in /run /var/lib /var/log; do mount -n -t tmpfs -o mode=755 kguard-node "$target"; done',
      `for f in ${SHADOWED_SYSCTLS.join(' ')}; do copy="$1/$(echo "$f" | tr / .)"; cat "/proc/sys/$f" > "$copy"; mount -n --bind "$copy" "/proc/sys/$f"; done`,
      'touch "$2"',
      'exec sleep infinity',
    ].join('\n'),
    'sh',
    path('sysctl'),
    ready,
  ]);
  await until(`${name}'s mount namespace was not set up`, 10_000, async () => existsSync(ready), options.check);
  const inNamespace = ['nsenter', `--mount=/proc/${holder.pid}/ns/mnt`, '--'];

  const containerd = group.start(`${name} containerd`, inNamespace[0]!, [
    ...inNamespace.slice(1),
    'sh',
    '-c',
    'echo $$ > "$1/cgroup.procs" && exec containerd --config "$2" --log-level warn',
    'sh',
    runtimeCgroup,
    path('containerd.toml'),
  ]);
  await until(
    `${name}'s containerd did not answer on ${socket}`,
    30_000,
    async () =>
      (await execa('ctr', ['--address', socket, 'version'], { reject: false, timeout: 5_000 })).exitCode === 0,
    options.check,
  );

  const identity: ClientIdentity = { file: `node-${name}`, user: `system:node:${name}`, groups: ['system:nodes'] };
  await options.pki.issue(identity);
  await writeKubeconfig(path('kubelet.kubeconfig'), options.pki, options.server, identity);
  await writeFile(
    path('kubelet.yaml'),
    JSON.stringify(
      {
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        kind: 'KubeletConfiguration',
        failCgroupV1: false,
        cgroupDriver: 'cgroupfs',
        cgroupRoot: `/${cgroupRoot}`,
        address: options.nodeIp,
        port: kubeletPort,
        readOnlyPort: 0,
        healthzPort: 0,
        // The API server presents a client certificate from the cluster's CA (kubectl logs); anonymous is refused.
        authentication: {
          anonymous: { enabled: false },
          webhook: { enabled: false },
          x509: { clientCAFile: options.pki.caCert },
        },
        authorization: { mode: 'AlwaysAllow' },
        clusterDNS: ['10.96.0.10'],
        clusterDomain: 'cluster.local',
        makeIPTablesUtilChains: false,
        containerRuntimeEndpoint: `unix://${socket}`,
        podLogsDir: path('pod-logs'),
        failSwapOn: false,
        serializeImagePulls: false,
        // The shared machine's own disk and memory must not put the node under pressure; a pod's
        // own limits (emptyDir sizeLimit, ephemeral-storage) still evict it.
        evictionHard: {
          'memory.available': '1Mi',
          'nodefs.available': '1%',
          'imagefs.available': '1%',
          'nodefs.inodesFree': '1%',
        },
        // emptyDir usage is measured this often (default 1m): an eviction for a full emptyDir within seconds.
        volumeStatsAggPeriod: '5s',
        registerWithTaints: options.taints ?? [],
      },
      null,
      2,
    ),
  );
  const kubelet = group.start(`${name} kubelet`, inNamespace[0]!, [
    ...inNamespace.slice(1),
    options.kubelet,
    `--config=${path('kubelet.yaml')}`,
    `--kubeconfig=${path('kubelet.kubeconfig')}`,
    `--root-dir=${path('kubelet')}`,
    `--hostname-override=${name}`,
    `--node-ip=${options.nodeIp}`,
    ...(options.labels
      ? [
          `--node-labels=${Object.entries(options.labels)
            .map(([key, value]) => `${key}=${value}`)
            .join(',')}`,
        ]
      : []),
    '--v=1',
  ]);
  return { name, cgroupRoot, bridge, subnet, kubeletPort, processes: [holder, containerd, kubelet] };
}
