// Several simulated clusters behind one kubeconfig, one context each, as a fleet sees them: the
// real bin/kguard, driving the real kubectl, against each cluster's own API server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { startCluster, type Cluster, type ClusterOptions } from '../kube-sim/cluster.js';
import { KGUARD, checkEventStream, checkJsonReport, normalize, type KguardRun, writerIn } from './harness.js';
import { peopleMadeObjects, type ClusterState } from './restored.js';

export interface Fleet {
  clusters: Map<string, Cluster>;
  dir: string;
  kubeconfig: string;
  write(name: string, text: string): Promise<string>;
  /** Every cluster's people-made objects now, by context. */
  states(): Map<string, ClusterState>;
  kguard(args: string[]): Promise<KguardRun>;
  /** Starts kguard without waiting: for a test that kills it mid-fleet. */
  kguardProcess(args: string[]): { child: ResultPromise; done: Promise<unknown> };
  stop(): Promise<void>;
}

/**
 * One simulator per context (timeScale 10 unless given), and one kubeconfig naming them all (no
 * current context). `unreachable`: contexts whose API server is a closed port (nothing listens).
 */
export async function fleetSandbox(
  contexts: Record<string, ClusterOptions>,
  unreachable: readonly string[] = [],
): Promise<Fleet> {
  const clusters = new Map<string, Cluster>();
  const started = await Promise.all(
    Object.entries(contexts).map(
      async ([context, options]) => [context, await startCluster({ timeScale: 10, ...options })] as const,
    ),
  );
  for (const [context, cluster] of started) clusters.set(context, cluster);
  const dir = await mkdtemp(join(tmpdir(), 'kguard-fleet-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const closed = unreachable.map((context) => ({ context, url: 'http://127.0.0.1:1' }));
  await writeFile(
    kubeconfig,
    mergedKubeconfig([...[...clusters].map(([context, cluster]) => ({ context, url: cluster.url })), ...closed]),
  );
  const start = (args: string[]) =>
    execa(KGUARD, args, {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, 'cache'), CI: 'true', NO_COLOR: '1' },
      timeout: 120_000,
      // A test's kill(SIGTERM) stays a SIGTERM (execa would send SIGKILL 5 s later).
      forceKillAfterDelay: false,
    });
  return {
    clusters,
    dir,
    kubeconfig,
    write: writerIn(dir),
    states: () => new Map([...clusters].map(([context, cluster]) => [context, peopleMadeObjects(cluster.store)])),
    kguardProcess(args) {
      const child = start(args);
      return { child, done: child.then(() => undefined) };
    },
    async kguard(args) {
      const result = await start(args);
      const stdout = String(result.stdout ?? '');
      const stderr = String(result.stderr ?? '');
      const run = { exitCode: result.exitCode ?? -1, stdout, stderr, output: normalize(`${stdout}\n${stderr}`) };
      checkJsonReport(args, run);
      checkEventStream(args, run, dir);
      return run;
    },
    async stop() {
      await Promise.all([...clusters.values()].map((cluster) => cluster.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A kubeconfig with one cluster, user and context per simulator; no current-context, so only --context picks one. */
export function mergedKubeconfig(entries: ReadonlyArray<{ context: string; url: string }>): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...entries.flatMap(({ context, url }) => [`- name: ${context}`, '  cluster:', `    server: ${url}`]),
    'contexts:',
    ...entries.flatMap(({ context }) => [
      `- name: ${context}`,
      '  context:',
      `    cluster: ${context}`,
      `    user: ${context}`,
      '    namespace: default',
    ]),
    'users:',
    ...entries.flatMap(({ context }) => [`- name: ${context}`, '  user: {}']),
    'preferences: {}',
    '',
  ].join('\n');
}
