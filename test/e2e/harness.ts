// End-to-end harness: the real bin/kguard, driving the real kubectl, against the simulated cluster.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { wantsJsonOutput } from '../../src/cli/options.js';
import type { JsonReport } from '../../src/report/json.js';
import { startCluster, type Cluster, type ClusterOptions } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { assertValidEventStream } from '../report/events-schema.js';
import { assertValidReport } from '../report/schema.js';
import { differencesFrom, peopleMadeObjects, recreatedObjects } from './restored.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The kguard under test: bin/kguard, or the executable KGUARD_BIN names (`npm run test:binary`
 * runs these files against the linux-x64 release executable, copied alone into an empty folder).
 */
export const KGUARD = process.env.KGUARD_BIN || join(repo, 'bin', 'kguard');

/**
 * The simulator decides which images exist (its scenario's registry), so kguard's image check
 * must not reach a real registry from a machine that has the internet: every registry outside
 * loopback is asked through a proxy that refuses at once ("cannot know", the run goes on), and a
 * registry a test runs on 127.0.0.1 is asked directly. kubectl never proxies loopback.
 */
export const OFFLINE_REGISTRIES = {
  HTTPS_PROXY: 'http://127.0.0.1:9',
  HTTP_PROXY: 'http://127.0.0.1:9',
  NO_PROXY: '127.0.0.1,localhost',
} as const;

export interface KguardRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout + stderr with ANSI codes stripped and durations replaced by <DURATION>. */
  output: string;
}

export interface Sandbox {
  cluster: Cluster;
  dir: string;
  /** Writes a manifest file into the sandbox and returns its path. */
  write(name: string, text: string): Promise<string>;
  /**
   * Runs kguard to the end. When it exits 3 ("restored") with the default --rollback all, the
   * run fails unless every object is back as it was before the run (see restored.ts); pass
   * checkRestore: false only for a test that changes the cluster itself while kguard runs.
   */
  kguard(args: string[], options?: RunOptions): Promise<KguardRun>;
  /** Starts kguard without waiting: for tests that act while it runs (signals, concurrent changes). */
  kguardProcess(
    args: string[],
    options?: Pick<RunOptions, 'env'>,
  ): { child: ResultPromise; output(): string; done: Promise<KguardRun> };
  /** Deploys `name` with kguard and fails the test unless the rollout is healthy (exit 0). */
  deployHealthy(name: string, image?: string): Promise<void>;
  /** The first container image of a Deployment as the simulator stores it now. */
  imageOf(name: string, namespace?: string): string | undefined;
  stop(): Promise<void>;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string>;
  checkRestore?: boolean;
  /** How long kguard may run before it is killed (default 2 minutes). */
  timeoutMs?: number;
}

/** Writes a file into `dir` and returns its path: a sandbox's (and a fleet's) `write`. */
export function writerIn(dir: string): (name: string, text: string) => Promise<string> {
  return async (name, text) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
}

/** `test` on a sandbox of its own, stopped after it however the test ends (tests that run side by side). */
export async function withSandbox(
  start: () => Promise<Sandbox>,
  test: (sandboxed: Sandbox) => Promise<void>,
): Promise<void> {
  const sandboxed = await start();
  try {
    await test(sandboxed);
  } finally {
    await sandboxed.stop();
  }
}

export async function sandbox(options: ClusterOptions = {}): Promise<Sandbox> {
  if (!existsSync(join(repo, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run "npm run build" (npm test does it) before the end-to-end tests');
  }
  const cluster = await startCluster({ timeScale: 10, ...options });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-e2e-'));
  return {
    cluster,
    dir,
    write: writerIn(dir),
    kguard: (args, runOptions = {}) => startKguard(args, runOptions).done,
    kguardProcess: (args, options) => startKguard(args, { ...options, checkRestore: false }),
    async deployHealthy(name, image = 'nginx:1.25') {
      const file = join(dir, `${name}-${image.replace(/[^a-z0-9]/gi, '-')}.yaml`);
      await writeFile(file, deploymentYaml(name, image));
      const run = await startKguard(['apply', '-f', file, '--poll-interval', '300ms']).done;
      if (run.exitCode !== 0)
        throw new Error(`deploying ${name} with ${image} did not roll out (exit ${run.exitCode}):\n${run.output}`);
    },
    imageOf: (name, namespace = 'default') =>
      cluster.store.get('Deployment', namespace, name)?.spec.template.spec.containers[0].image,
    async stop() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };

  function startKguard(args: string[], runOptions: RunOptions = {}) {
    const before = peopleMadeObjects(cluster.store);
    const restoresAll =
      !args.some(
        (arg, index) =>
          /^--rollback(=|$)/.test(arg) && /(failed|none)$/.test(arg === '--rollback' ? (args[index + 1] ?? '') : arg),
      ) && !args.includes('--no-rollback');
    const child = execa(KGUARD, args, {
      cwd: dir,
      reject: false,
      input: runOptions.input,
      stdin: runOptions.input === undefined ? 'ignore' : undefined,
      env: { ...process.env, ...cluster.env, ...OFFLINE_REGISTRIES, CI: 'true', NO_COLOR: '1', ...runOptions.env },
      timeout: runOptions.timeoutMs ?? 120_000,
      // A test's own kill(SIGTERM) must not become a SIGKILL 5 s later (execa's default) on a
      // loaded machine: kguard's answer to the signal is what the test looks at.
      forceKillAfterDelay: false,
    });
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const done = child.then((result) => {
      const stdout = String(result.stdout ?? '');
      const stderr = String(result.stderr ?? '');
      const run = { exitCode: result.exitCode ?? -1, stdout, stderr, output: normalize(`${stdout}\n${stderr}`) };
      checkJsonReport(args, run);
      checkEventStream(args, run, dir);
      if (run.exitCode === 3 && restoresAll && runOptions.checkRestore !== false) {
        const now = peopleMadeObjects(cluster.store);
        const differences = differencesFrom(before, now);
        const recreated = recreatedObjects(before, now);
        // Created again after a prune, or put back by delete and create (an immutable ConfigMap): a new uid each.
        const createdAgain = run.output
          .split('\n')
          .filter((line) =>
            /: (created again \(this apply deleted it\)|put back by deleting it and creating its pre-apply copy again)/.test(
              line,
            ),
          ).length;
        if (recreated.length !== createdAgain)
          differences.push(
            `new uids for ${recreated.join(', ') || 'nothing'}, but kguard said it created ${createdAgain} object(s) again`,
          );
        if (differences.length > 0) {
          throw new Error(
            `kguard exited 3 (restored), but the cluster is not as it was before the run:\n${differences.join('\n')}\n\n${run.output}`,
          );
        }
      }
      return run;
    });
    return { child, output: () => seen, done };
  }
}

/**
 * With -o json / --output json / --output=json, stdout must be one report that the shipped
 * schema (schema/report.schema.json) accepts, whatever the run ended with; a test fails otherwise.
 */
export function checkJsonReport(args: readonly string[], run: Pick<KguardRun, 'stdout' | 'exitCode'>): void {
  // The schema describes apply's report; rollback and status print their own shapes.
  if (args[0] === 'apply' && wantsJsonOutput(args))
    assertValidReport(run.stdout, `kguard ${args.join(' ')} (exit ${run.exitCode})`);
}

/**
 * With --events FILE or --events -, every line of the stream must be an event the shipped schema
 * (schema/events.schema.json) accepts, whatever the run ended with; a test fails otherwise.
 */
export function checkEventStream(
  args: readonly string[],
  run: Pick<KguardRun, 'stdout' | 'exitCode'>,
  cwd: string,
): void {
  const dashDash = args.indexOf('--');
  const own = dashDash === -1 ? args : args.slice(0, dashDash);
  const at = own.findIndex((arg) => arg === '--events' || arg.startsWith('--events='));
  if (at === -1 || args[0] !== 'apply') return;
  const target = own[at]!.startsWith('--events=') ? own[at]!.slice('--events='.length) : own[at + 1];
  if (target === undefined) return;
  const context = `kguard ${args.join(' ')} (exit ${run.exitCode})`;
  if (target === '-') {
    // With --output json too, kguard refuses the run: stdout has the JSON report.
    if (wantsJsonOutput(args)) return;
    // execa strips the final newline of stdout.
    assertValidEventStream(run.stdout === '' || run.stdout.endsWith('\n') ? run.stdout : `${run.stdout}\n`, context);
    return;
  }
  const file = isAbsolute(target) ? target : join(cwd, target);
  // A run refused before it opened the file (a usage error) writes none.
  if (existsSync(file)) assertValidEventStream(readFileSync(file, 'utf8'), context);
}

export function normalize(text: string): string {
  // eslint-disable-next-line no-control-regex
  // Not after a hyphen: a generated name's suffix (job/smoke-2m44s) is not a duration.
  return text.replace(/\u001b\[[0-9;]*m/g, '').replace(/(?<!-)\b\d+(\.\d+)?(ms|s)\b|(?<!-)\b\d+m\d+s\b/g, '<DURATION>');
}

/** Waits until a running kguard's output says it watches the new rollout (`output` is read anew each look). */
export async function untilWatching(output: () => string, timeoutMs?: number): Promise<void> {
  await eventually(() => (output().includes('watching the new rollout') ? true : undefined), timeoutMs);
}

/** Polls `probe` until it returns a value that is not undefined (no fixed sleeps). */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `kguard apply -f FILE ARGS -o json` of `text` written as `file`: the run, its report, and an
 * object of the report by kind and name.
 */
export async function kguardJson(env: Sandbox, file: string, text: string, args: readonly string[]) {
  const run = await env.kguard(['apply', '-f', await env.write(file, text), ...args, '-o', 'json']);
  const report = JSON.parse(run.stdout) as JsonReport;
  return {
    ...run,
    report,
    object: (kind: string, name: string) =>
      report.objects.find((object) => object.kind === kind && object.name === name),
  };
}
