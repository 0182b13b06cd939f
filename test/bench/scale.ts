// Bench at scale: N objects in one namespace, a third each Deployments (1 replica), ConfigMaps and
// Services, on the simulator at time scale 4. For each N:
//   - a healthy apply that changes every object, with the run journal and with --no-journal (wall);
//   - a doomed apply (one Deployment's image is missing) that ends restored, exit 3 (wall), with
//     --no-journal and with the journal;
//   - the most kubectl processes at once, watch streams included and not, seen from outside
//     kguard (a KGUARD_KUBECTL script that logs each process; every run goes through it);
//   - kguard's peak resident memory (VmHWM of its node process, sampled from /proc), over the runs.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { objectSet } from '../e2e/manifests.js';
import { peakConcurrency, recordingKubectl, type RecordingKubectl } from '../e2e/kubectl-log.js';

const MISSING = 'xxxxxnginx:1.17';

/** One kguard run: wall time to its exit, how it exited, what it started. */
export interface ScaleRun {
  wallMs: number;
  exitCode: number;
  /** kubectl processes it started (its JSON report), when it printed one. */
  processes?: number;
  /** Most kubectl processes at once: all, and watch streams aside. */
  peak: number;
  peakPooled: number;
  /** Its node process's peak RSS, MiB. */
  peakRssMiB: number;
}

export interface ScaleFigures {
  objects: number;
  healthyJournal: ScaleRun;
  healthyNoJournal: ScaleRun;
  doomedNoJournal: ScaleRun;
  doomedJournal: ScaleRun;
}

interface Measured {
  exitCode: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKiB: number;
}

/** Runs kguard to its end, sampling its node process's peak RSS every 50 ms. */
async function measuredKguard(
  kguard: string,
  cluster: Cluster,
  args: string[],
  kubectl: RecordingKubectl,
): Promise<Measured> {
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
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    wallMs: performance.now() - began,
    peakRssKiB,
  };
}

async function rolledOut(cluster: Cluster, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = cluster.store.list('Deployment', 'default').filter((deployment) => {
      const { spec, status, metadata } = deployment;
      return !(
        (status?.observedGeneration ?? 0) >= (metadata.generation ?? 0) &&
        status?.updatedReplicas === spec.replicas &&
        status?.availableReplicas === spec.replicas &&
        status?.replicas === spec.replicas
      );
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
    await writeFile(v1, objectSet(objects, { image: 'nginx:1.25', config: 'one', port: 80 }));
    await writeFile(v2, objectSet(objects, { image: 'nginx:1.26', config: 'two', port: 8080 }));
    await writeFile(
      doomed,
      objectSet(objects, { image: 'nginx:1.26', config: 'two', port: 8080, bad: 0, badImage: MISSING }),
    );
    const firstVersion = async () => {
      await execa('kubectl', ['apply', '-f', v1], { env: { ...process.env, ...cluster.env } });
      await rolledOut(cluster, 10 * 60_000);
    };
    await firstVersion();
    const kubectl = await recordingKubectl(dir);
    const run = async (file: string, extra: string[]): Promise<ScaleRun> => {
      await kubectl.clear();
      const measured = await measuredKguard(
        kguard,
        cluster,
        ['apply', '-f', file, '--timeout', '15m', '-o', 'json', ...extra],
        kubectl,
      );
      const processes = await kubectl.processes();
      let report: { kubectlProcesses?: number } = {};
      try {
        report = JSON.parse(measured.stdout) as { kubectlProcesses?: number };
      } catch {
        // No report: the exit code says what happened.
      }
      // Said at once: a size takes minutes, and an interrupted bench keeps what it measured.
      console.error(
        `  ${objects} objects, ${extra.join(' ') || 'journal'}, ${file.split('/').at(-1)}: exit ${measured.exitCode} in ${(measured.wallMs / 1000).toFixed(1)} s`,
      );
      return {
        wallMs: measured.wallMs,
        exitCode: measured.exitCode,
        processes: report.kubectlProcesses,
        peak: peakConcurrency(processes),
        peakPooled: peakConcurrency(processes.filter((process) => !process.watch)),
        peakRssMiB: measured.peakRssKiB / 1024,
      };
    };
    const healthyJournal = await run(v2, []);
    const healthyNoJournal = await run(v1, ['--no-journal']);
    if (healthyNoJournal.exitCode !== 0) await firstVersion();
    const doomedNoJournal = await run(doomed, ['--no-journal']);
    // A doomed run ends with v1 back; one that did not restore leaves something else.
    if (doomedNoJournal.exitCode !== 3) await firstVersion();
    const doomedJournal = await run(doomed, []);
    return { objects, healthyJournal, healthyNoJournal, doomedNoJournal, doomedJournal };
  } finally {
    await cluster.stop();
  }
}

export const SCALE_HEADER =
  '| objects | healthy, journal | healthy, --no-journal | doomed, --no-journal | doomed, journal | kubectl processes (doomed: --no-journal / journal) | most kubectl at once (watches aside) | kguard peak RSS |';

/** One Markdown table row; a run that did not end as expected shows its exit code. */
export function scaleRow(figures: ScaleFigures): string {
  const wall = (run: ScaleRun, expected: number) =>
    `${(run.wallMs / 1000).toFixed(1)} s${run.exitCode === expected ? '' : ` (exit ${run.exitCode}!)`}`;
  const runs = [figures.healthyJournal, figures.healthyNoJournal, figures.doomedNoJournal, figures.doomedJournal];
  const cells = [
    String(figures.objects),
    wall(figures.healthyJournal, 0),
    wall(figures.healthyNoJournal, 0),
    wall(figures.doomedNoJournal, 3),
    wall(figures.doomedJournal, 3),
    `${figures.doomedNoJournal.processes ?? '?'} / ${figures.doomedJournal.processes ?? '?'}`,
    `${Math.max(...runs.map((run) => run.peak))} (${Math.max(...runs.map((run) => run.peakPooled))})`,
    `${Math.max(...runs.map((run) => run.peakRssMiB)).toFixed(0)} MiB`,
  ];
  return `| ${cells.join(' | ')} |`;
}
