// `npm run bench -- --only fleet`: a fleet of 3 clusters against 3 single-cluster runs one after
// another (`for c in staging eu-1 us-1; do kguard apply --context $c || break; done`), healthy and
// failing (the image cannot be pulled in the last cluster, us-1). Wall time of the whole, and
// every kubectl process started (a wrapper on KGUARD_KUBECTL logs each one: the fleet's own
// restores of healthy clusters included). Each case runs `runs` times on the same 3 simulators
// (time scale 10); each healthy run changes the image, so every run changes every cluster.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { mergedKubeconfig } from '../e2e/fleet-harness.js';

const CONTEXTS = ['staging', 'eu-1', 'us-1'];
const BROKEN_IN_US = 'registry.example.com/shop/web:us-broken';

interface Measure {
  wallMs: number;
  processes: number;
  exitCode: number;
}

export async function fleetBench(
  kguard: string,
  runs: number,
  median: (values: readonly number[]) => number,
): Promise<Array<[string, string]>> {
  const clusters = await Promise.all(
    CONTEXTS.map((context) =>
      startCluster({ timeScale: 10, scenario: context === 'us-1' ? { registry: { [BROKEN_IN_US]: 'missing' } } : {} }),
    ),
  );
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-fleet-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      mergedKubeconfig(clusters.map((cluster: Cluster, index) => ({ context: CONTEXTS[index]!, url: cluster.url }))),
    );
    const log = join(dir, 'kubectl.log');
    const wrapper = join(dir, 'kubectl');
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec kubectl "$@"\n`);
    await chmod(wrapper, 0o755);
    const env = {
      ...process.env,
      KUBECONFIG: kubeconfig,
      KUBECACHEDIR: join(dir, 'cache'),
      KGUARD_KUBECTL: wrapper,
      CI: 'true',
      NO_COLOR: '1',
    };
    const kguardRun = (args: string[]) =>
      execa(kguard, args, { cwd: dir, env, reject: false, stdin: 'ignore', timeout: 300_000 });
    const processes = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const fast = ['--poll-interval', '300ms', '--timeout', '60s'];
    let version = 0;
    const manifest = async (image: string) => {
      const file = join(dir, `web-${(version += 1)}.yaml`);
      await writeFile(file, deploymentYaml('web', image));
      return file;
    };
    const measure = async (work: () => Promise<number>): Promise<Measure> => {
      await rm(log, { force: true });
      const began = performance.now();
      const exitCode = await work();
      return { wallMs: performance.now() - began, processes: await processes(), exitCode };
    };
    const fleet = (image: string) =>
      measure(
        async () =>
          (await kguardRun(['apply', '-f', await manifest(image), '--contexts', CONTEXTS.join(','), ...fast]))
            .exitCode ?? -1,
      );
    const oneByOne = (image: string) =>
      measure(async () => {
        const file = await manifest(image);
        for (const context of CONTEXTS) {
          const run = await kguardRun(['apply', '-f', file, '--context', context, ...fast]);
          if (run.exitCode !== 0) return run.exitCode ?? -1;
        }
        return 0;
      });
    // v1 everywhere first.
    const first = await oneByOne('nginx:1.25');
    if (first.exitCode !== 0) throw new Error(`the first deploy failed (exit ${first.exitCode})`);
    const cases: Array<{ name: string; measures: Measure[] }> = [
      { name: 'healthy: fleet --contexts staging,eu-1,us-1', measures: [] },
      { name: 'healthy: 3 single-cluster runs, one after another', measures: [] },
      { name: 'failing in us-1: fleet (restores staging and eu-1 too)', measures: [] },
      { name: 'failing in us-1: 3 single-cluster runs (staging and eu-1 keep it)', measures: [] },
    ];
    for (let run = 0; run < runs; run += 1) {
      cases[0]!.measures.push(await fleet(`nginx:1.${30 + run * 2}`));
      cases[1]!.measures.push(await oneByOne(`nginx:1.${31 + run * 2}`));
      cases[2]!.measures.push(await fleet(BROKEN_IN_US));
      cases[3]!.measures.push(await oneByOne(BROKEN_IN_US));
    }
    return cases.map(({ name, measures }) => {
      const exits = [...new Set(measures.map((measure) => measure.exitCode))].join(',');
      const wall = median(measures.map((measure) => measure.wallMs)) / 1000;
      const spawned = median(measures.map((measure) => measure.processes));
      return [name, `${wall.toFixed(1)} s, ${spawned} kubectl processes (median of ${measures.length}; exit ${exits})`];
    });
  } finally {
    await Promise.all(clusters.map((cluster) => cluster.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}
