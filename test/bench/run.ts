// Benchmarks (timing belongs here, not in tests): `npm run bench`, about two minutes.
// `npm run bench -- --kguard PATH` measures another build of bin/kguard (e.g. an older commit's)
// with the same harness, for before/after figures.
//   1. start-up: `kguard --version` against `node -e 0`
//   2. status write → verdict: from the simulator's first write of the reason the verdict names
//      (ErrImagePull, or ImagePullBackOff for builds that wait for it) to kguard's verdict line,
//      watching (the default) and polling (--poll, default --poll-interval 2s)
//   3. a healthy rollout: kguard against `kubectl apply && kubectl rollout status` (ratio and
//      difference of the medians; kubectl processes, requests, whole-namespace lists per run)
//   4. 2,000 pods in the namespace: one namespace-wide poll against the selected list a watch
//      starts from (bytes and time per read)
//   5. kubectl processes per run, 10 Deployments in 10 namespaces
//   6. redaction (in this process, this checkout's build): a 1 MiB Secret value and 1,000 others
//   7. at scale: 10, 100 and 1,000 objects (scale.ts): healthy with and without the journal, a
//      doomed apply restored in full, peak kubectl processes at once, kguard's peak RSS
//   3b. an apply that changes nothing: kubectl apply against kguard apply, kguard's writes, and
//      the processes and requests of each
//   8. a fleet of 3 clusters against 3 single-cluster runs one after another, healthy and failing
//      in the last cluster: wall time and kubectl processes (fleet.ts)
// `--real` runs real.ts instead: kguard beside kubectl and Helm 4 on the real control plane
// (its sections and flags there).
//   9. time to verdict on real pods (a real node) against kube-sim: missing image, crash loop,
//      OOMKilled, failing readiness (real-pods.ts; at most 3 runs each; `--only real-pods`)
//  10. the size check of a 50 MB manifest (size-check.ts), no cluster: exit, wall time and peak
//      RSS for four shapes (`--only size`)
// `--only scale` runs section 7 alone; `--sizes 10,100` picks its sizes. `--only overhead` runs
// sections 3 and 3b; `--only fleet` section 8 (3 runs each unless --runs).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { Redactor } from '../../src/report/safety/redact.js';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { scaleCase, scaleRow, SCALE_HEADER } from './scale.js';
import { fleetBench } from './fleet.js';
import { defaultExecutable, realBench } from './real.js';
import { realPodsBench } from './real-pods.js';
import { sizeCheckBench } from './size-check.js';
import { counted, mostListed, type Counted } from '../e2e/counted.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import type { KubeObject } from '../kube-sim/types.js';

const { values: flags } = parseArgs({
  options: {
    kguard: { type: 'string' },
    runs: { type: 'string' },
    only: { type: 'string' },
    sizes: { type: 'string' },
    real: { type: 'boolean' },
    executable: { type: 'string' },
    baseline: { type: 'string' },
    'baseline-executable': { type: 'string' },
    node: { type: 'string', multiple: true },
    'scale-runs': { type: 'string' },
    'without-helm': { type: 'boolean' },
  },
});
const kguard = flags.kguard ?? fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
const RUNS = Number(flags.runs ?? 7);
const SIZES = (flags.sizes ?? '10,100,1000').split(',').map(Number);
const MISSING = 'xxxxxnginx:1.17';

interface Run {
  exitCode: number;
  stdout: string;
  wallMs: number;
  verdictAt?: number;
}

async function runKguard(cluster: Cluster, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const began = performance.now();
  const child = execa(kguard, args, {
    env: { ...process.env, ...cluster.env, CI: 'true', NO_COLOR: '1', ...extraEnv },
    reject: false,
  });
  let stdout = '';
  let verdictAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (verdictAt === undefined && /✖ deployment\//.test(stdout)) verdictAt = performance.now();
  });
  const result = await child;
  return { exitCode: result.exitCode ?? -1, stdout, wallMs: performance.now() - began, verdictAt };
}

function stats(values: readonly number[], unit = 'ms'): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  const shown = (value: number) => (unit === 'ms' ? `${Math.round(value)}` : value.toFixed(2));
  return `${shown(sorted[0]!)} / ${shown(median)} / ${shown(sorted.at(-1)!)} ${unit}`;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]!
    : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

function table(title: string, rows: Array<[string, string]>): void {
  console.log(`\n${title}`);
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, value] of rows) console.log(`  ${name.padEnd(width)}  ${value}`);
}

/** Modes the build under test knows: builds from before watching have no --poll. */
async function modes(): Promise<Array<{ name: string; args: string[] }>> {
  const help = await execa(kguard, ['apply', '--help'], { reject: false });
  return help.stdout.includes('--poll ')
    ? [
        { name: 'watch (default)', args: [] },
        { name: '--poll (2s)', args: ['--poll'] },
      ]
    : [{ name: 'default (polls, 2s)', args: [] }];
}

async function startUp(): Promise<void> {
  const kguardMs: number[] = [];
  const nodeMs: number[] = [];
  for (let run = 0; run < RUNS * 2 + 1; run += 1) {
    let began = performance.now();
    await execa(kguard, ['--version']);
    const kguardRun = performance.now() - began;
    began = performance.now();
    await execa(process.execPath, ['-e', '0']);
    // The first pair warms the file cache.
    if (run > 0) {
      kguardMs.push(kguardRun);
      nodeMs.push(performance.now() - began);
    }
  }
  table('1. start-up, wall time of the whole process (min / median / max)', [
    ['kguard --version', stats(kguardMs)],
    ['node -e 0', stats(nodeMs)],
    ['ratio of medians', `${(median(kguardMs) / median(nodeMs)).toFixed(2)}×`],
  ]);
}

/** When the simulator first wrote each waiting reason into a pod's status. */
function firstWrites(cluster: Cluster): { at: (reason: string) => number | undefined; stop: () => void } {
  const seen = new Map<string, number>();
  const stop = cluster.store.subscribe(({ object }: { object: KubeObject }) => {
    if (object.kind !== 'Pod') return;
    const statuses: Array<{ state?: { waiting?: { reason?: string } } }> = object.status?.containerStatuses ?? [];
    for (const status of statuses) {
      const reason = status.state?.waiting?.reason;
      if (reason && !seen.has(reason)) seen.set(reason, performance.now());
    }
  });
  return { at: (reason) => seen.get(reason), stop };
}

async function withDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function verdictLatency(args: string[], reasons: Set<string>): Promise<number[]> {
  const cluster = await startCluster({ timeScale: 10, scenario: { registry: { [MISSING]: 'missing' } } });
  try {
    return await withDir(async (dir) => {
      await writeFile(join(dir, 'good.yaml'), deploymentYaml('web', 'nginx:1.25', { replicas: 3 }));
      await writeFile(join(dir, 'bad.yaml'), deploymentYaml('web', MISSING, { replicas: 3 }));
      const base = await runKguard(cluster, ['apply', '-f', join(dir, 'good.yaml')]);
      if (base.exitCode !== 0) throw new Error(`healthy deploy failed:\n${base.stdout}`);
      const latencies: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        // Each failed run restores web to nginx:1.25, so the next one is a fresh rollout.
        const probe = firstWrites(cluster);
        const bad = await runKguard(cluster, ['apply', '-f', join(dir, 'bad.yaml'), ...args]);
        probe.stop();
        // The verdict names the reason it failed on (ErrImagePull or ImagePullBackOff): from its first write.
        const reason = /cannot pull (?:their )?image "[^"]+": (\w+)/.exec(bad.stdout)?.[1] ?? '';
        const writtenAt = probe.at(reason);
        if (bad.exitCode !== 3 || writtenAt === undefined || bad.verdictAt === undefined)
          throw new Error(`unexpected run (exit ${bad.exitCode}):\n${bad.stdout}`);
        reasons.add(reason);
        latencies.push(bad.verdictAt - writtenAt);
      }
      return latencies;
    });
  } finally {
    await cluster.stop();
  }
}

/** When the simulator wrote web's status as rolled out (what `kubectl rollout status` waits for). */
function rolledOut(cluster: Cluster): { at: () => number | undefined; stop: () => void } {
  let at: number | undefined;
  const stop = cluster.store.subscribe(({ object }: { object: KubeObject }) => {
    if (at !== undefined || object.kind !== 'Deployment' || object.metadata.name !== 'web') return;
    const { spec, status, metadata } = object;
    const replicas = spec?.replicas ?? 1;
    if (
      (status?.observedGeneration ?? 0) >= (metadata.generation ?? 0) &&
      status?.updatedReplicas === replicas &&
      status?.availableReplicas === replicas &&
      status?.replicas === replicas
    ) {
      at = performance.now();
    }
  });
  return { at: () => at, stop };
}

interface Timed {
  wallMs: number;
  /** From the rollout's completion to the command's exit. */
  tailMs: number;
}

interface Healthy {
  kubectl: Timed[];
  kguard: Timed[][];
  kubectlCost: Counted;
  kguardCosts: Counted[];
}

async function healthyRollouts(kguardArgs: readonly string[][]): Promise<Healthy> {
  // 3 replicas at 4× simulated time: a rollout of about 2 s.
  const cluster = await startCluster({ timeScale: 4 });
  try {
    return await withDir(async (dir) => {
      const images = ['nginx:1.25', 'nginx:1.26'];
      const files = await Promise.all(
        images.map(async (image, index) => {
          const file = join(dir, `web-${index}.yaml`);
          await writeFile(file, deploymentYaml('web', image, { replicas: 3 }));
          return file;
        }),
      );
      let next = 0;
      const flip = () => files[(next += 1) % 2]!;
      const env = { ...process.env, ...cluster.env };
      await execa('kubectl', ['apply', '-f', files[0]!], { env });
      await execa('kubectl', ['rollout', 'status', 'deployment/web'], { env });
      const timed = async (command: () => Promise<void>): Promise<Timed> => {
        const done = rolledOut(cluster);
        const began = performance.now();
        await command();
        const ended = performance.now();
        done.stop();
        return { wallMs: ended - began, tailMs: ended - (done.at() ?? NaN) };
      };
      const kubectlRuns: Timed[] = [];
      const kguardRuns: Timed[][] = kguardArgs.map(() => []);
      for (let run = 0; run < RUNS; run += 1) {
        // In turn, so a drift of the machine's speed hits all alike.
        kubectlRuns.push(
          await timed(
            async () =>
              void (await execa(
                'sh',
                ['-c', 'kubectl apply -f "$1" && kubectl rollout status deployment/web', 'sh', flip()],
                { env },
              )),
          ),
        );
        for (const [index, args] of kguardArgs.entries()) {
          kguardRuns[index]!.push(
            await timed(async () => {
              const result = await runKguard(cluster, ['apply', '-f', flip(), ...args]);
              if (result.exitCode !== 0) throw new Error(`healthy rollout failed:\n${result.stdout}`);
            }),
          );
        }
      }
      // One more of each, counted (processes and requests do not vary from run to run).
      const kubectlCost = await counted(cluster, 'sh', [
        '-c',
        'kubectl apply -f "$1" && kubectl rollout status deployment/web',
        'sh',
        flip(),
      ]);
      const kguardCosts: Counted[] = [];
      for (const args of kguardArgs) kguardCosts.push(await counted(cluster, kguard, ['apply', '-f', flip(), ...args]));
      return { kubectl: kubectlRuns, kguard: kguardRuns, kubectlCost, kguardCosts };
    });
  } finally {
    await cluster.stop();
  }
}

/** An apply that changes nothing: `kubectl apply` against `kguard apply`, in turn; kguard's writes counted by the server. */
async function noOpApplies(): Promise<void> {
  const cluster = await startCluster({ timeScale: 4 });
  try {
    await withDir(async (dir) => {
      const file = join(dir, 'web.yaml');
      await writeFile(file, deploymentYaml('web', 'nginx:1.25', { replicas: 3 }));
      const env = { ...process.env, ...cluster.env };
      await execa('kubectl', ['apply', '-f', file], { env });
      await execa('kubectl', ['rollout', 'status', 'deployment/web'], { env });
      const kubectlMs: number[] = [];
      const kguardMs: number[] = [];
      let writes = 0;
      for (let run = 0; run < RUNS; run += 1) {
        let began = performance.now();
        await execa('kubectl', ['apply', '-f', file], { env });
        kubectlMs.push(performance.now() - began);
        const seen = cluster.requests.length;
        began = performance.now();
        const result = await runKguard(cluster, ['apply', '-f', file]);
        kguardMs.push(performance.now() - began);
        if (result.exitCode !== 0) throw new Error(`no-op apply failed:\n${result.stdout}`);
        writes += cluster.requests
          .slice(seen)
          .filter((request) => request.method !== 'GET' && !/dryRun=All/.test(request.url)).length;
      }
      const kubectlCost = await counted(cluster, 'kubectl', ['apply', '-f', file]);
      const kguardCost = await counted(cluster, kguard, ['apply', '-f', file]);
      table('3b. an apply that changes nothing (min / median / max; one counted run each)', [
        ['kubectl apply', `${stats(kubectlMs)}; ${costOf(kubectlCost)}`],
        [
          'kguard apply',
          `${stats(kguardMs)} (${versus(kguardMs, kubectlMs)}); ${costOf(kguardCost)}; writes per run: ${writes / RUNS}`,
        ],
      ]);
    });
  } finally {
    await cluster.stop();
  }
}

/** 2,000 pods of other workloads plus web's 3: what one read costs either way. */
async function manyPods(): Promise<void> {
  const cluster = await startCluster({ controllers: false });
  try {
    const podOf = (name: string, app: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: { app, 'pod-template-hash': '5d4f8c7b9' } },
      spec: {
        nodeName: 'node-1',
        containers: [
          {
            name: 'app',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'MODE', value: 'production' }],
          },
        ],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
        ],
      },
    });
    for (let index = 0; index < 2000; index += 1) cluster.store.create(podOf(`other-${index}`, `other-${index % 40}`));
    for (let index = 0; index < 3; index += 1) cluster.store.create(podOf(`web-${index}`, 'web'));
    const env = { ...process.env, ...cluster.env };
    const reads = {
      'namespace-wide poll (--poll)': ['get', 'deployments.apps,replicasets.apps,pods', '-n', 'default', '-o', 'json'],
      'selected list (a watch starts from it)': [
        'get',
        '--raw',
        '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb',
      ],
    };
    const rows: Array<[string, string]> = [];
    for (const [name, args] of Object.entries(reads)) {
      const times: number[] = [];
      let bytes = 0;
      for (let run = 0; run < RUNS + 1; run += 1) {
        const began = performance.now();
        const result = await execa('kubectl', args, { env, encoding: 'buffer' });
        if (run > 0) times.push(performance.now() - began);
        bytes = result.stdout.length;
      }
      const size = bytes >= 100_000 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1000).toFixed(1)} kB`;
      rows.push([name, `${size} per read, ${stats(times)}`]);
    }
    table('4. one read with 2,000 other pods in the namespace (min / median / max)', rows);
  } finally {
    await cluster.stop();
  }
}

async function processesPerRun(args: string[]): Promise<{ processes: number; wallMs: number }> {
  const cluster = await startCluster({ timeScale: 4 });
  try {
    return await withDir(async (dir) => {
      const manifest = Array.from(
        { length: 10 },
        (_, index) =>
          `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-${index}\n---\n${deploymentYaml('app', 'nginx:1.25', { replicas: 2, namespace: `team-${index}` })}`,
      ).join('\n---\n');
      await writeFile(join(dir, 'apps.yaml'), manifest);
      await execa('kubectl', ['apply', '-f', join(dir, 'apps.yaml')], { env: { ...process.env, ...cluster.env } });
      await writeFile(join(dir, 'apps.yaml'), manifest.replaceAll('nginx:1.25', 'nginx:1.26'));
      const run = await runKguard(cluster, ['apply', '-f', join(dir, 'apps.yaml'), '-o', 'json', ...args]);
      if (run.exitCode !== 0) throw new Error(`rollout failed:\n${run.stdout}`);
      return {
        processes: (JSON.parse(run.stdout) as { kubectlProcesses: number }).kubectlProcesses,
        wallMs: run.wallMs,
      };
    });
  } finally {
    await cluster.stop();
  }
}

/** Learning the values, the first redaction (which builds the matcher) and the next one. */
function redaction(): void {
  const learnMs: number[] = [];
  const firstMs: number[] = [];
  const againMs: number[] = [];
  const otherMs: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const big = randomBytes(768 * 1024).toString('base64');
    const values = Array.from({ length: 1000 }, (_, index) => `value-${index}-${randomBytes(12).toString('hex')}`);
    // Every form of every value, as kubectl may quote them: 2.5 MiB of text.
    const text = [
      big,
      Buffer.from(big).toString('base64'),
      ...values.map(
        (value) => `${value} ${Buffer.from(value).toString('base64')} ${JSON.stringify(JSON.stringify({ value }))}`,
      ),
    ].join('\n');
    const other = randomBytes(768 * 1024).toString('base64');
    const redactor = new Redactor();
    let began = performance.now();
    for (const value of [big, ...values]) redactor.addValue(value);
    learnMs.push(performance.now() - began);
    for (const [times, input] of [
      [firstMs, text],
      [againMs, text],
      [otherMs, other],
    ] as const) {
      began = performance.now();
      redactor.redact(input);
      times.push(performance.now() - began);
    }
  }
  table('6. redaction, a 1 MiB Secret value and 1,000 others (min / median / max)', [
    ['learning the values', stats(learnMs)],
    ['first redaction of 2.5 MiB holding every form (builds the matcher)', stats(firstMs)],
    ['the same again', stats(againMs)],
    ['1 MiB holding none', stats(otherMs)],
  ]);
}

async function atScale(): Promise<void> {
  console.log(
    '\n7. N objects in one namespace (⅓ each Deployments, ConfigMaps, Services), time scale 4, one run each (wall to exit)',
  );
  console.log(SCALE_HEADER);
  console.log(`|${'---|'.repeat(SCALE_HEADER.split('|').length - 2)}`);
  for (const size of SIZES) console.log(await withDir((dir) => scaleCase(kguard, dir, size)).then(scaleRow));
}

/** 10: the size check refuses a 50 MB manifest in seconds and within 200 MiB (#45). */
async function sizeCheck(): Promise<void> {
  console.log(
    "\n10. the size check of a 50 MB manifest, no cluster: exit, wall time, kguard's peak RSS (one run each)",
  );
  for (const row of await sizeCheckBench(kguard, 50)) console.log(row);
}

const REAL_PODS_TITLE =
  '9. kguard start → verdict line, a new Deployment of 1 replica: real node against kube-sim (min / median / max)';

async function main(): Promise<void> {
  if (flags.real) {
    await realBench({
      kguard,
      // `--executable none`: the package alone (a long scale run).
      executable:
        flags.executable === 'none'
          ? undefined
          : (flags.executable ?? defaultExecutable(fileURLToPath(new URL('../../../', import.meta.url)))),
      baseline: flags.baseline,
      baselineExecutable: flags['baseline-executable'],
      nodes: await Promise.all(
        (flags.node ?? []).map(async (path) => ({ path, version: (await execa(path, ['--version'])).stdout.trim() })),
      ),
      runs: RUNS,
      scaleRuns: Number(flags['scale-runs'] ?? 3),
      sizes: (flags.sizes ?? '300').split(',').map(Number),
      only: flags.only?.split(','),
      withoutHelm: flags['without-helm'] === true,
    });
    return;
  }
  const began = performance.now();
  console.log(`kguard: ${kguard}; ${flags.only === 'fleet' ? Number(flags.runs ?? 3) : RUNS} runs each`);
  if (flags.only === 'scale') {
    await atScale();
    console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
    return;
  }
  if (flags.only === 'fleet') {
    table(
      '8. 3 clusters: a fleet against single-cluster runs one after another (whole command, median)',
      await fleetBench(kguard, Number(flags.runs ?? 3), median),
    );
    console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
    return;
  }
  if (flags.only === 'real-pods') {
    table(REAL_PODS_TITLE, await realPodsBench(kguard, Math.min(RUNS, 3)));
    console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
    return;
  }
  if (flags.only === 'size') {
    await sizeCheck();
    console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
    return;
  }
  if (flags.only === 'overhead') {
    await healthyTable(await modes());
    await noOpApplies();
    console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
    return;
  }
  const known = await modes();
  await startUp();

  const latency: Array<[string, string]> = [];
  for (const mode of known) {
    const reasons = new Set<string>();
    latency.push([
      mode.name,
      `${stats(await verdictLatency(mode.args, reasons))} (verdict on ${[...reasons].join(', ')})`,
    ]);
  }
  table('2. the pod status the verdict names, first written → kguard verdict line (min / median / max)', latency);

  await healthyTable(known);
  await noOpApplies();

  await manyPods();

  const processes: Array<[string, string]> = [];
  for (const mode of known) {
    const { processes: count, wallMs } = await processesPerRun(mode.args);
    processes.push([mode.name, `${count} kubectl processes, ${(wallMs / 1000).toFixed(1)} s`]);
  }
  table('5. one healthy run over 10 Deployments in 10 namespaces', processes);
  redaction();
  await atScale();
  table(
    '8. 3 clusters: a fleet against single-cluster runs one after another (whole command, median)',
    await fleetBench(kguard, RUNS, median),
  );
  table(REAL_PODS_TITLE, await realPodsBench(kguard, Math.min(RUNS, 3)));
  await sizeCheck();
  console.log(`\n(bench took ${Math.round((performance.now() - began) / 1000)} s)`);
}

/** Ratio of the medians and their difference: "1.42× kubectl, +0.12 s". */
function versus(mine: readonly number[], theirs: readonly number[]): string {
  const extra = (median(mine) - median(theirs)) / 1000;
  return `${(median(mine) / median(theirs)).toFixed(2)}× kubectl, ${extra >= 0 ? '+' : ''}${extra.toFixed(2)} s`;
}

/** kubectl processes, API requests, and the most any whole-namespace list was read, in one run. */
function costOf(run: Counted): string {
  return `${run.processes} kubectl processes, ${run.requests} requests, whole-namespace lists read at most ${mostListed(run)}×`;
}

async function healthyTable(known: Array<{ name: string; args: string[] }>): Promise<void> {
  const healthy = await healthyRollouts(known.map((mode) => mode.args));
  const walls = (runs: Timed[]) => runs.map((run) => run.wallMs);
  const tails = (runs: Timed[]) => runs.map((run) => run.tailMs);
  table(
    '3. healthy rollout of 3 replicas: whole command; rolled-out status written → exit (min / median / max; one counted run each)',
    [
      [
        'kubectl apply && kubectl rollout status',
        `${stats(walls(healthy.kubectl))}; ${stats(tails(healthy.kubectl))}; ${costOf(healthy.kubectlCost)}`,
      ],
      ...known.map((mode, index): [string, string] => {
        const runs = healthy.kguard[index]!;
        return [
          `kguard apply, ${mode.name}`,
          `${stats(walls(runs))} (${versus(walls(runs), walls(healthy.kubectl))}); ${stats(tails(runs))}; ${costOf(healthy.kguardCosts[index]!)}`,
        ];
      }),
    ],
  );
}

await main();
