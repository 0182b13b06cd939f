// Bench at scale: N objects in one namespace, a third each Deployments (1 replica), ConfigMaps and
// Services, on the simulator at time scale 4. For each N:
//   - a healthy apply that changes every object, with the run journal and with --no-journal (wall);
//   - a doomed apply (one Deployment's image is missing) that ends restored, exit 3 (wall);
//   - the most kubectl processes at once, watch streams included and not, seen from outside
//     kguard (a KGUARD_KUBECTL script that logs each process; every run goes through it);
//   - kguard's peak resident memory (VmHWM of its node process, sampled from /proc).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { configMapYaml, serviceYaml } from '../e2e/manifests.js';
import { peakConcurrency, recordingKubectl, type RecordingKubectl } from '../e2e/kubectl-log.js';

const MISSING = 'xxxxxnginx:1.17';

export interface ScaleFigures {
  objects: number;
  healthyJournalMs: number;
  healthyNoJournalMs: number;
  doomedMs: number;
  doomedExit: number;
  /** kubectl processes the doomed run started (its JSON report). */
  doomedProcesses: number;
  /** Most at once over the three runs: all, and watch streams aside. */
  peakProcesses: number;
  peakPooled: number;
  /** kguard's peak RSS over the three runs, MiB. */
  peakRssMiB: number;
}

interface Measured {
  exitCode: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKiB: number;
}

/** One version of the whole set: `image` for every Deployment but `bad`, which gets MISSING. */
export function scaleManifest(objects: number, version: { image: string; config: string; port: number; bad?: number }, namespace?: string): string {
  const third = Math.floor(objects / 3);
  const parts: string[] = [];
  for (let index = 0; index < objects - 2 * third; index += 1) {
    parts.push(deploymentYaml(`app-${index}`, index === version.bad ? MISSING : version.image, { replicas: 1, namespace }));
  }
  for (let index = 0; index < third; index += 1) parts.push(configMapYaml(`config-${index}`, { version: version.config }, namespace));
  for (let index = 0; index < third; index += 1) parts.push(serviceYaml(`service-${index}`, version.port, namespace));
  return parts.join('---\n');
}

/** Runs kguard to its end, sampling its node process's peak RSS every 50 ms. */
async function measuredKguard(kguard: string, cluster: Cluster, args: string[], kubectl: RecordingKubectl): Promise<Measured> {
  const began = performance.now();
  const child = execa(kguard, args, {
    env: { ...process.env, ...cluster.env, CI: 'true', NO_COLOR: '1', KGUARD_KUBECTL: kubectl.binary },
    reject: false,
    timeout: 30 * 60_000,
  });
  let peakRssKiB = 0;
  const sample = async () => {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
    if (hwm) peakRssKiB = Math.max(peakRssKiB, Number(hwm[1]));
  };
  const sampler = setInterval(() => void sample(), 50);
  const result = await child;
  clearInterval(sampler);
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr), wallMs: performance.now() - began, peakRssKiB };
}

async function rolledOut(cluster: Cluster, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = cluster.store.list('Deployment', 'default').filter((deployment) => {
      const { spec, status, metadata } = deployment;
      return !((status?.observedGeneration ?? 0) >= (metadata.generation ?? 0) && status?.updatedReplicas === spec.replicas && status?.availableReplicas === spec.replicas && status?.replicas === spec.replicas);
    });
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${pending.length} Deployments did not roll out`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function scaleCase(kguard: string, dir: string, objects: number): Promise<ScaleFigures> {
  const cluster = await startCluster({
    timeScale: 4,
    scenario: { registry: { [MISSING]: 'missing' }, nodes: { count: 10, pods: 250, cpu: '64', memory: '256Gi' } },
  });
  try {
    const v1 = join(dir, `v1-${objects}.yaml`);
    const v2 = join(dir, `v2-${objects}.yaml`);
    const doomed = join(dir, `doomed-${objects}.yaml`);
    await writeFile(v1, scaleManifest(objects, { image: 'nginx:1.25', config: 'one', port: 80 }));
    await writeFile(v2, scaleManifest(objects, { image: 'nginx:1.26', config: 'two', port: 8080 }));
    await writeFile(doomed, scaleManifest(objects, { image: 'nginx:1.26', config: 'two', port: 8080, bad: 0 }));
    await execa('kubectl', ['apply', '-f', v1], { env: { ...process.env, ...cluster.env } });
    await rolledOut(cluster, 10 * 60_000);
    const kubectl = await recordingKubectl(dir);
    const flags = ['--timeout', '15m', '-o', 'json'];
    const runs: Measured[] = [];
    const peaks: number[] = [];
    const pooledPeaks: number[] = [];
    const run = async (file: string, extra: string[], exit: number) => {
      await kubectl.clear();
      const measured = await measuredKguard(kguard, cluster, ['apply', '-f', file, ...flags, ...extra], kubectl);
      if (measured.exitCode !== exit) throw new Error(`${objects} objects, ${file} ${extra.join(' ')}: exit ${measured.exitCode}, not ${exit}:\n${measured.stderr.slice(-4000)}`);
      const processes = await kubectl.processes();
      peaks.push(peakConcurrency(processes));
      pooledPeaks.push(peakConcurrency(processes.filter((process) => !process.watch)));
      runs.push(measured);
      return measured;
    };
    const healthyJournal = await run(v2, [], 0);
    const healthyNoJournal = await run(v1, ['--no-journal'], 0);
    const failed = await run(doomed, [], 3);
    return {
      objects,
      healthyJournalMs: healthyJournal.wallMs,
      healthyNoJournalMs: healthyNoJournal.wallMs,
      doomedMs: failed.wallMs,
      doomedExit: failed.exitCode,
      doomedProcesses: (JSON.parse(failed.stdout) as { kubectlProcesses: number }).kubectlProcesses,
      peakProcesses: Math.max(...peaks),
      peakPooled: Math.max(...pooledPeaks),
      peakRssMiB: Math.max(...runs.map((measured) => measured.peakRssKiB)) / 1024,
    };
  } finally {
    await cluster.stop();
  }
}

export function scaleRows(figures: readonly ScaleFigures[]): Array<[string, string]> {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return figures.map((figure): [string, string] => [
    `${figure.objects} objects`,
    [
      `healthy ${seconds(figure.healthyJournalMs)} (journal), ${seconds(figure.healthyNoJournalMs)} (--no-journal)`,
      `doomed → exit ${figure.doomedExit} in ${seconds(figure.doomedMs)} (${figure.doomedProcesses} kubectl processes)`,
      `peak kubectl at once ${figure.peakProcesses} (${figure.peakPooled} without watches)`,
      `kguard peak RSS ${figure.peakRssMiB.toFixed(0)} MiB`,
    ].join('; '),
  ]);
}
