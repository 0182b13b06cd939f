// The real suite's harness: the real bin/kguard and the real kubectl against the real control
// plane that global-setup.ts started. Each test file works in a namespace of its own, so files
// can run side by side on one cluster.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { inject } from 'vitest';
import { KGUARD, normalize, type KguardRun } from '../e2e/harness.js';
import { OFFLINE_REGISTRIES } from '../e2e/harness.js';

export { normalize, type KguardRun };

export interface KubectlRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RealSandbox {
  namespace: string;
  dir: string;
  write(name: string, text: string): Promise<string>;
  /** kguard as the admin (or as the restricted user with `as: 'restricted'`), to the end. */
  kguard(args: string[], options?: { as?: 'restricted'; timeoutMs?: number }): Promise<KguardRun>;
  /** kguard started in the background, for tests that act while it runs; `killWhen` sends SIGKILL
   *  from the output handler itself, the moment its output first satisfies it (no polling delay). */
  kguardProcess(
    args: string[],
    options?: { killWhen?: (output: string) => boolean },
  ): { child: ResultPromise; output(): string; done: Promise<KguardRun> };
  kubectl(args: string[], input?: string): Promise<KubectlRun>;
  /** `kubectl get -o json` of one object in the sandbox's namespace; undefined when it does not exist. */
  get<T = KubeObject>(resource: string, name: string): Promise<T | undefined>;
  stop(): Promise<void>;
}

export interface KubeObject {
  metadata: {
    name: string;
    uid: string;
    generation?: number;
    annotations?: Record<string, string>;
    resourceVersion: string;
  };
  spec: Record<string, unknown> & {
    replicas?: number;
    paused?: boolean;
    template?: { spec: { containers: { image: string }[] } };
  };
  status?: Record<string, unknown>;
}

export async function realSandbox(namespace: string): Promise<RealSandbox> {
  const cluster = inject('realCluster');
  const dir = await mkdtemp(join(tmpdir(), `kguard-real-${namespace}-`));
  const kubectl = async (args: string[], input?: string, env = cluster.env): Promise<KubectlRun> => {
    const result = await execa('kubectl', args, {
      env: { ...process.env, ...env },
      reject: false,
      input,
      stdin: input === undefined ? 'ignore' : undefined,
      timeout: 30_000,
    });
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  if (namespace !== 'default') {
    const created = await kubectl(['create', 'namespace', namespace]);
    if (created.exitCode !== 0 && !created.stderr.includes('AlreadyExists'))
      throw new Error(`kubectl create namespace ${namespace}: ${created.stderr}`);
    // Pods are refused until the namespace's default ServiceAccount exists.
    const deadline = Date.now() + 30_000;
    while ((await kubectl(['get', 'serviceaccount', 'default', '-n', namespace])).exitCode !== 0) {
      if (Date.now() > deadline) throw new Error(`no default ServiceAccount in ${namespace} after 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const start = (
    args: string[],
    options: { as?: 'restricted'; timeoutMs?: number; killWhen?: (output: string) => boolean } = {},
  ) => {
    const env = options.as === 'restricted' ? cluster.restrictedEnv : cluster.env;
    const child = execa(KGUARD, args, {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      env: { ...process.env, ...env, ...OFFLINE_REGISTRIES, CI: 'true', NO_COLOR: '1' },
      timeout: options.timeoutMs ?? 150_000,
      forceKillAfterDelay: false,
    });
    let seen = '';
    const record = (chunk: Buffer) => {
      seen += chunk.toString();
      if (options.killWhen?.(seen) && child.exitCode === null) child.kill('SIGKILL');
    };
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    const done = child.then((result) => {
      const stdout = String(result.stdout ?? '');
      const stderr = String(result.stderr ?? '');
      return { exitCode: result.exitCode ?? -1, stdout, stderr, output: normalize(`${stdout}\n${stderr}`) };
    });
    return { child, output: () => seen, done };
  };

  return {
    namespace,
    dir,
    async write(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    kguard: (args, options) => start(args, options).done,
    kguardProcess: (args, options) => start(args, options),
    kubectl: (args, input) => kubectl(args, input),
    async get<T>(resource: string, name: string) {
      const result = await kubectl(['get', resource, name, '-n', namespace, '-o', 'json']);
      if (result.exitCode !== 0) {
        if (result.stderr.includes('NotFound')) return undefined;
        throw new Error(`kubectl get ${resource} ${name}: ${result.stderr}`);
      }
      return JSON.parse(result.stdout) as T;
    },
    async stop() {
      if (namespace !== 'default') await kubectl(['delete', 'namespace', namespace, '--wait=false']);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value that is not undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const imageOf = (object: KubeObject | undefined): string | undefined =>
  object?.spec.template?.spec.containers[0]?.image;
