// A real Kubernetes control plane on loopback for kguard's test/real suite: etcd, kube-apiserver
// (TLS, x509 client certificates, RBAC), kube-controller-manager, kube-scheduler, and kwok playing
// the kubelets of a few fake Nodes, with pod behaviour from a kube-sim scenario (stages.ts); with
// `realNodes`, real nodes too (node.ts: a kubelet and containerd each) pulling from local
// registries (registry.ts) that hold images built here (images.ts).
//
//   const cluster = await startRealCluster({ scenario: { registry: { 'nginx:9.99': 'missing' } } });
//   const real = await startRealCluster({ realNodes: 1, kwok: false }); // real.registry: "127.0.0.1:PORT"
//   await execa('kubectl', ['get', 'nodes'], { env: { ...process.env, ...cluster.env } });
//   await cluster.stop();

import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario, type Scenario, type ScenarioFileInput } from '../kube-sim/scenario.js';
import { freePort } from '../free-port.js';
import { apiClient, insecureGet, portInUse, until } from './api.js';
import { ensureBinaries } from './build.js';
import { writeKubeconfig } from './kubeconfig.js';
import { IDENTITIES, makePki } from './pki.js';
import { ProcessGroup, type Started } from './processes.js';
import { restrictedRbac } from './rbac.js';
import { kwokConfig } from './stages.js';
import { ensureTestApp, ociLayout, PAUSE_TAG, pushTestImages, TEST_IMAGES } from './images.js';
import { hostAddress, newClusterId, startRealNode, type RealNode, type Taint } from './node.js';
import { startRegistry, type ClusterRegistry } from './registry.js';

export interface RealClusterOptions {
  /** A kube-sim scenario (object or file): nodes, and which images fail to pull. */
  scenario?: string | ScenarioFileInput;
  /** The API server's port; etcd, the controller-manager, the scheduler and kwok take the next five. Free ports when absent. */
  port?: number;
  /** The watchdog stops every process after this long (default 20 min). */
  deadlineMs?: number;
  /** Progress lines (build, each start-up step with its time). */
  log?: (line: string) => void;
  /** The API server writes an audit log (every request's metadata, one JSON line each) to `RealCluster.auditLog`. */
  audit?: boolean;
  /** Real nodes to start (kubelet and containerd each, node.ts); 0 by default. */
  realNodes?: number;
  /** Taints the real nodes register with (the suite keeps kwok's pods off them). */
  realNodeTaints?: Taint[];
  /** kwok and the scenario's fake nodes; true by default. */
  kwok?: boolean;
}

export interface RealCluster {
  /** The admin's kubeconfig (group system:masters). */
  kubeconfig: string;
  /** A user with a Role in namespace default that may not delete ConfigMaps (rbac.ts). */
  restrictedKubeconfig: string;
  /** KUBECONFIG (the admin's) and a fresh KUBECACHEDIR, to pass to kubectl and kguard. */
  env: { KUBECONFIG: string; KUBECACHEDIR: string };
  restrictedEnv: { KUBECONFIG: string; KUBECACHEDIR: string };
  server: string;
  dir: string;
  scenario: Scenario;
  /** How long each start-up step took, in ms. */
  timings: { step: string; ms: number }[];
  /** The processes (name, PID, log file), for RSS measurements and logs. */
  processes: readonly Started[];
  /** The API server's audit log (JSON lines, stage ResponseComplete), with `audit: true`. */
  auditLog?: string;
  /** The real nodes' open registry ("127.0.0.1:PORT", plain HTTP, no auth): the sandbox and test images. */
  registry?: string;
  /** A second registry that asks for these credentials (htpasswd), holding the same images. */
  privateRegistry?: Required<ClusterRegistry>;
  realNodes: RealNode[];
  stop(): Promise<void>;
}

const STEP_TIMEOUT_MS = 90_000;

export async function startRealCluster(options: RealClusterOptions = {}): Promise<RealCluster> {
  const log = options.log ?? (() => {});
  const timings: { step: string; ms: number }[] = [];
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    timings.push({ step: name, ms: Date.now() - started });
    log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };

  const scenario = loadScenario(options.scenario ?? {});
  const ports = await step('ports', () => choosePorts(options.port));
  const build = await step('binaries', () => ensureBinaries(log));
  const bin = (name: string) => join(build.bin, name);

  const dir = await mkdtemp(join(tmpdir(), 'kguard-real-'));
  const failures: Started[] = [];
  const group = new ProcessGroup(dir, options.deadlineMs ?? 20 * 60_000, (exited) => failures.push(exited));
  const stop = async () => {
    await group.stopAll();
    await rm(dir, { recursive: true, force: true });
  };
  const check = () => {
    const dead = failures[0];
    if (dead)
      throw new Error(
        `${dead.name} exited (${dead.exit?.code ?? dead.exit?.signal}); its log ends with:\n${group.tail(dead)}`,
      );
  };

  const realNodeCount = options.realNodes ?? 0;
  const kubeletClient = { file: 'apiserver-kubelet-client', user: 'kube-apiserver-kubelet-client', groups: [] };
  try {
    const pki = await step('certificates', async () => {
      await mkdir(join(dir, 'pki'));
      const made = await makePki(join(dir, 'pki'));
      // What the API server presents to kubelets (logs, exec): they refuse anonymous requests.
      await made.issue(kubeletClient);
      return made;
    });
    const server = `https://127.0.0.1:${ports.apiserver}`;
    const kubeconfigs = await step('kubeconfigs', async () => {
      const paths = Object.fromEntries(
        Object.entries(IDENTITIES).map(([key, identity]) => [key, join(dir, `${identity.file}.kubeconfig`)]),
      ) as Record<keyof typeof IDENTITIES, string>;
      for (const [key, identity] of Object.entries(IDENTITIES))
        await writeKubeconfig(paths[key as keyof typeof IDENTITIES], pki, server, identity);
      return paths;
    });

    await step('etcd', async () => {
      const peer = `http://127.0.0.1:${ports.etcdPeer}`;
      const client = `http://127.0.0.1:${ports.etcd}`;
      group.start('etcd', bin('etcd'), [
        '--name=kguard',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=kguard=${peer}`,
        // A throw-away test store: durability buys nothing and fsync costs seconds on a busy disk.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ]);
      await until(
        'etcd did not answer /health',
        STEP_TIMEOUT_MS,
        async () => (await fetch(`${client}/health`)).ok,
        check,
      );
    });

    const admin = apiClient(server, {
      ca: pki.caCert,
      cert: pki.clientCert(IDENTITIES.admin),
      key: pki.clientKey(IDENTITIES.admin),
    });
    const auditLog = options.audit ? join(dir, 'audit.log') : undefined;
    if (auditLog) await writeFile(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
    await step('kube-apiserver', async () => {
      group.start('kube-apiserver', bin('kube-apiserver'), [
        ...(auditLog
          ? [
              `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
              `--audit-log-path=${auditLog}`,
              // Written before the answer returns, so a request's line is there when its client has it.
              '--audit-log-mode=blocking',
              // Never rotated: lumberjack's default (0) rotates at 100 MB, which a 300-object bench
              // passes, and a count that reads from an offset needs one file (apiserver
              // pkg/server/options/audit.go, --audit-log-maxsize in megabytes).
              '--audit-log-maxsize=100000',
            ]
          : []),
        `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${ports.apiserver}`,
        `--cert-dir=${join(dir, 'apiserver')}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        '--authorization-mode=Node,RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki.serviceAccountPublicKey}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--enable-admission-plugins=NodeRestriction',
        '--allow-privileged=true',
        '--profiling=false',
        // The endpoint reconciler refuses a loopback address for the kubernetes Service; nothing
        // inside this cluster calls the API server through it.
        '--endpoint-reconciler-type=none',
        // Real nodes: reach the kubelet at its InternalIP (its host name resolves nowhere), with a
        // client certificate (kube-apiserver reference, --kubelet-preferred-address-types and
        // --kubelet-client-certificate; the default order starts with Hostname).
        '--kubelet-preferred-address-types=InternalIP,Hostname',
        `--kubelet-client-certificate=${pki.clientCert(kubeletClient)}`,
        `--kubelet-client-key=${pki.clientKey(kubeletClient)}`,
      ]);
      await until(
        'kube-apiserver did not answer /readyz',
        STEP_TIMEOUT_MS,
        async () => (await admin.call('GET', '/readyz')).status === 200,
        check,
      );
    });

    await step('controller-manager and scheduler', async () => {
      const own = (kubeconfig: string, port: number) => [
        `--kubeconfig=${kubeconfig}`,
        `--authentication-kubeconfig=${kubeconfig}`,
        `--authorization-kubeconfig=${kubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        '--leader-elect=false',
      ];
      group.start('kube-controller-manager', bin('kube-controller-manager'), [
        ...own(kubeconfigs.controllerManager, ports.controllerManager),
        `--root-ca-file=${pki.caCert}`,
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        // Each controller as its own service account, as kubeadm runs it: the bootstrap RBAC
        // policy grants system:kube-controller-manager itself too little to run them all.
        '--use-service-account-credentials=true',
        `--cluster-signing-cert-file=${pki.caCert}`,
        `--cluster-signing-key-file=${pki.caKey}`,
      ]);
      group.start('kube-scheduler', bin('kube-scheduler'), own(kubeconfigs.scheduler, ports.scheduler));
      await until(
        'kube-controller-manager did not answer /healthz',
        STEP_TIMEOUT_MS,
        async () => (await insecureGet(`https://127.0.0.1:${ports.controllerManager}/healthz`)) === 200,
        check,
      );
      await until(
        'kube-scheduler did not answer /healthz',
        STEP_TIMEOUT_MS,
        async () => (await insecureGet(`https://127.0.0.1:${ports.scheduler}/healthz`)) === 200,
        check,
      );
    });

    if (options.kwok ?? true)
      await step('kwok and nodes', async () => {
        const config = join(dir, 'kwok.yaml');
        await writeFile(config, kwokConfig(scenario));
        group.start(
          'kwok',
          bin('kwok'),
          [
            `--kubeconfig=${kubeconfigs.kwok}`,
            `--config=${config}`,
            '--manage-all-nodes=false',
            '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
            '--cidr=10.244.0.0/16',
            '--node-ip=10.0.0.1',
            '--node-lease-duration-seconds=40',
            `--server-address=127.0.0.1:${ports.kwok}`,
          ],
          { ...process.env, HOME: dir },
        );
        for (const node of scenario.nodes) {
          const created = await admin.call('POST', '/api/v1/nodes', {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: {
              name: node.name,
              labels: { ...node.labels, type: 'kwok' },
              annotations: {
                'kwok.x-k8s.io/node': 'fake',
                'node.alpha.kubernetes.io/ttl': '0',
                'kguard.dev/cpu': node.cpu,
                'kguard.dev/memory': node.memory,
                'kguard.dev/pods': String(node.pods),
              },
            },
            spec: { taints: node.taints },
          });
          if (created.status !== 201) throw new Error(`creating node ${node.name}: ${created.status} ${created.text}`);
        }
        await until(
          'the kwok nodes did not become Ready',
          STEP_TIMEOUT_MS,
          async () => {
            const nodes = JSON.parse((await admin.call('GET', '/api/v1/nodes')).text) as {
              items: { status?: { conditions?: { type: string; status: string }[] } }[];
            };
            return (
              nodes.items.length === scenario.nodes.length &&
              nodes.items.every((item) =>
                item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
              )
            );
          },
          check,
        );
      });

    await step('service accounts and RBAC', async () => {
      // Pods are refused until the serviceaccount controller has made namespace default's account.
      await until(
        'the default ServiceAccount did not appear',
        STEP_TIMEOUT_MS,
        async () => (await admin.call('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
        check,
      );
      for (const [path, object] of restrictedRbac(IDENTITIES.restricted.user)) {
        const created = await admin.call('POST', path, object);
        if (created.status !== 201) throw new Error(`creating ${path}: ${created.status} ${created.text}`);
      }
    });

    const registries =
      realNodeCount > 0
        ? await step('registries and images', async () => {
            const [testapp, open, closed] = await Promise.all([
              ensureTestApp(),
              startRegistry(group, dir, 'registry', { check }),
              startRegistry(group, dir, 'private-registry', {
                credentials: { username: 'puller', password: randomBytes(12).toString('hex') },
                check,
              }),
            ]);
            const layout = await ociLayout(testapp, join(dir, 'oci'));
            await Promise.all([
              pushTestImages(layout, open.host),
              pushTestImages(layout, closed.host, closed.credentials),
            ]);
            return { open, closed: closed as Required<ClusterRegistry> };
          })
        : undefined;

    const realNodes: RealNode[] = [];
    if (registries)
      await step(`${realNodeCount} real node${realNodeCount > 1 ? 's' : ''}`, async () => {
        const clusterId = newClusterId();
        const nodeIp = hostAddress();
        for (let index = 1; index <= realNodeCount; index++) {
          const name = `real-node-${index}`;
          realNodes.push(
            await startRealNode({
              name,
              clusterId,
              index,
              dir: join(dir, 'nodes', String(index)),
              kubelet: bin('kubelet'),
              pki,
              server,
              group,
              sandboxImage: `${registries.open.host}/${TEST_IMAGES.pause}:${PAUSE_TAG}`,
              plainHttpRegistries: [registries.open.host, registries.closed.host],
              nodeIp,
              taints: options.realNodeTaints,
              labels: { 'kguard.dev/real-node': 'true' },
              check,
            }),
          );
        }
        await until(
          'the real nodes did not become Ready',
          STEP_TIMEOUT_MS,
          async () => {
            const nodes = JSON.parse(
              (await admin.call('GET', '/api/v1/nodes?labelSelector=kguard.dev%2Freal-node')).text,
            ) as {
              items: { status?: { conditions?: { type: string; status: string }[] } }[];
            };
            return (
              nodes.items.length === realNodeCount &&
              nodes.items.every((item) =>
                item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
              )
            );
          },
          check,
        );
      });

    const cacheDir = (name: string) => join(dir, 'kube-cache', name);
    return {
      kubeconfig: kubeconfigs.admin,
      restrictedKubeconfig: kubeconfigs.restricted,
      env: { KUBECONFIG: kubeconfigs.admin, KUBECACHEDIR: cacheDir('admin') },
      restrictedEnv: { KUBECONFIG: kubeconfigs.restricted, KUBECACHEDIR: cacheDir('restricted') },
      server,
      dir,
      scenario,
      timings,
      processes: group.processes,
      auditLog,
      registry: registries?.open.host,
      privateRegistry: registries?.closed,
      realNodes,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Every request's metadata, once, when its answer is complete (a watch's when it ends): the
 * audit.k8s.io/v1 Policy (kubernetes.io/docs/tasks/debug/debug-cluster/audit/).
 */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
`;

interface Ports {
  apiserver: number;
  etcd: number;
  etcdPeer: number;
  controllerManager: number;
  scheduler: number;
  kwok: number;
}

/** Free ports, or the given one and the five after it, refused at once when any is taken. */
async function choosePorts(base?: number): Promise<Ports> {
  const names = ['apiserver', 'etcd', 'etcdPeer', 'controllerManager', 'scheduler', 'kwok'] as const;
  if (base === undefined) {
    const ports = await Promise.all(names.map(() => freePort()));
    if (new Set(ports).size !== ports.length) return choosePorts();
    return Object.fromEntries(names.map((name, index) => [name, ports[index]!])) as unknown as Ports;
  }
  const ports = names.map((_, index) => base + index);
  const taken: number[] = [];
  for (const port of ports) if (await portInUse(port)) taken.push(port);
  if (taken.length > 0) {
    throw new Error(
      `port${taken.length > 1 ? 's' : ''} ${taken.join(', ')} on 127.0.0.1 ${taken.length > 1 ? 'are' : 'is'} in use (another control plane started with --port ${base}?): stop it or pick another --port; nothing was started`,
    );
  }
  return Object.fromEntries(names.map((name, index) => [name, ports[index]!])) as unknown as Ports;
}
