// Time to verdict on real pods, side by side with the simulator (`npm run bench -- --only real-pods`,
// and the last section of the full bench): for a missing image, a crash loop, an OOMKilled container
// and a failing readiness probe, the time from kguard's start (`kguard apply` of a new Deployment
// of one replica) to its verdict line, on a real node (a kubelet and containerd,
// test/control-plane/node.ts) and on kube-sim (time scale 1) with the same failure scripted by its
// knobs. Each run is its own Deployment; kguard deletes it again (it created it). Every container
// has a readiness probe: without one the kubelet reports a container that exits at start Ready for
// the moment it runs, and the rollout is complete before the first crash (kubectl rollout status
// says the same).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { startRealCluster } from '../control-plane/cluster.js';
import { startCluster } from '../kube-sim/cluster.js';

interface Family {
  name: string;
  /** kguard flags beyond the common ones. */
  flags: string[];
  /** The container on a real node: image tag and testapp args, limits. */
  real: { tag: string; args: string[]; readiness?: boolean; memory?: string };
  /** The same failure on kube-sim: image and pod annotations (README "Controllers & scenario"). */
  sim: { image: string; annotations: Record<string, string>; readiness?: boolean };
}

const SERVE = ['-serve', ':8080'];
const FAMILIES: Family[] = [
  {
    name: 'missing image (tag not found)',
    flags: ['--image-check', 'off'],
    real: { tag: '9.99', args: SERVE, readiness: true },
    sim: { image: 'nginx:9.99', annotations: {}, readiness: true },
  },
  {
    name: 'crash loop (exit 1 at start)',
    flags: [],
    real: { tag: '1', args: ['-print', 'fatal: no config', '-exit', '1'], readiness: true },
    sim: {
      image: 'nginx:1.25',
      annotations: { 'sim.kguard.dev/exit-code': '1', 'sim.kguard.dev/run-seconds': '0' },
      readiness: true,
    },
  },
  {
    name: 'OOMKilled (limit 24Mi)',
    flags: [],
    real: { tag: '1', args: ['-alloc-mib', '96', ...SERVE], memory: '24Mi', readiness: true },
    sim: {
      image: 'nginx:1.25',
      annotations: { 'sim.kguard.dev/oom-kill': 'true', 'sim.kguard.dev/run-seconds': '0' },
      readiness: true,
    },
  },
  {
    name: 'failing readiness (--readiness-grace 10s)',
    flags: ['--readiness-grace', '10s'],
    real: { tag: '1', args: [...SERVE, '-ready-fail'], readiness: true },
    sim: { image: 'nginx:1.25', annotations: { 'sim.kguard.dev/readiness': 'fail' }, readiness: true },
  },
];

function manifest(
  name: string,
  image: string,
  options: {
    args?: string[];
    readiness?: boolean;
    memory?: string;
    annotations?: Record<string, string>;
  },
): string {
  return stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(options.annotations ? { annotations: options.annotations } : {}) },
        spec: {
          terminationGracePeriodSeconds: 2,
          containers: [
            {
              name: 'app',
              image,
              ...(options.args ? { args: options.args } : {}),
              ...(options.readiness
                ? { readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 1, failureThreshold: 2 } }
                : {}),
              ...(options.memory ? { resources: { limits: { memory: options.memory } } } : {}),
            },
          ],
        },
      },
    },
  });
}

/** Seconds from kguard's start to its first verdict line (✖ deployment/…), and its exit code. */
async function timeToVerdict(
  kguard: string,
  env: Record<string, string>,
  file: string,
  flags: string[],
): Promise<{ seconds: number; exitCode: number }> {
  const began = performance.now();
  const child = execa(kguard, ['apply', '-f', file, '--timeout', '3m', '--poll-interval', '1s', ...flags], {
    env: { ...process.env, ...env, CI: 'true', NO_COLOR: '1' },
    reject: false,
    timeout: 240_000,
  });
  let output = '';
  let verdictAt: number | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (verdictAt === undefined && /✖ deployment\//.test(output)) verdictAt = performance.now();
  });
  const result = await child;
  return { seconds: ((verdictAt ?? performance.now()) - began) / 1000, exitCode: result.exitCode ?? -1 };
}

function summary(runs: { seconds: number; exitCode: number }[]): string {
  const seconds = runs.map((run) => run.seconds).sort((a, b) => a - b);
  const median = seconds[Math.floor((seconds.length - 1) / 2)]!;
  const exits = [...new Set(runs.map((run) => run.exitCode))].join('/');
  return `${seconds[0]!.toFixed(1)} / ${median.toFixed(1)} / ${seconds.at(-1)!.toFixed(1)} s (exit ${exits})`;
}

/** One row per family: real node, simulator (min / median / max of `runs`). */
export async function realPodsBench(kguard: string, runs: number): Promise<Array<[string, string]>> {
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-real-'));
  const real = await startRealCluster({ realNodes: 1, kwok: false, deadlineMs: 60 * 60_000 });
  const sim = await startCluster({ scenario: { registry: { 'nginx:9.99': 'missing' } } });
  const rows: Array<[string, string]> = [];
  try {
    let serial = 0;
    for (const family of FAMILIES) {
      const realRuns: { seconds: number; exitCode: number }[] = [];
      const simRuns: { seconds: number; exitCode: number }[] = [];
      for (let run = 0; run < runs; run++) {
        const name = `bench-${++serial}`;
        const realFile = join(dir, `${name}-real.yaml`);
        await writeFile(realFile, manifest(name, `${real.registry}/kguard/testapp:${family.real.tag}`, family.real));
        realRuns.push(await timeToVerdict(kguard, real.env, realFile, family.flags));
        const simFile = join(dir, `${name}-sim.yaml`);
        await writeFile(
          simFile,
          manifest(name, family.sim.image, { annotations: family.sim.annotations, readiness: family.sim.readiness }),
        );
        simRuns.push(await timeToVerdict(kguard, sim.env, simFile, family.flags));
      }
      rows.push([family.name, `real node ${summary(realRuns)}; kube-sim ${summary(simRuns)}`]);
    }
  } finally {
    await sim.stop();
    await real.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
