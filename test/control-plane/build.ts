// Builds the control plane's binaries once per pin set: kube-apiserver, kube-controller-manager,
// kube-scheduler and etcd from ./go, kwok from ./kwok, into
// ${XDG_CACHE_HOME:-~/.cache}/kguard/control-plane/<hash of the go.mod, go.sum and .go files>/bin.
// Nothing is built into the work tree; a build whose pins did not change is reused.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** The module sources, in the repository: from dist/test/control-plane/ too. */
export const SOURCES = fileURLToPath(new URL('.', import.meta.url)).replace(/\/dist\/test\/control-plane\/$/, '/test/control-plane/');

export const BINARIES = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd', 'kwok'] as const;
export type Binary = (typeof BINARIES)[number];

const MODULES: { dir: string; packages: Record<string, string> }[] = [
  {
    dir: 'go',
    packages: {
      'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
      'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
      'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
      etcd: './cmd/etcd',
    },
  },
  { dir: 'kwok', packages: { kwok: 'sigs.k8s.io/kwok/cmd/kwok' } },
];

/** A go build of the whole set may take this long on 2 cores, cold. */
const BUILD_DEADLINE_MS = 40 * 60_000;

export interface BuildResult {
  bin: string;
  /** True when the binaries were there already. */
  reused: boolean;
  ms: number;
}

export function cacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kguard', 'control-plane');
}

/** The hash of everything that decides what the binaries are. */
export async function pinsHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const module of MODULES) {
    for (const file of await goFiles(join(SOURCES, module.dir))) {
      hash.update(relative(SOURCES, file)).update('\0').update(await readFile(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

export async function binDir(): Promise<string> {
  return join(cacheRoot(), await pinsHash(), 'bin');
}

/**
 * Returns the bin folder, building it first when missing. Concurrent callers (vitest workers,
 * a CI run next to a developer's) wait for one build: a lock directory marks it.
 */
export async function ensureBinaries(log: (line: string) => void = () => {}): Promise<BuildResult> {
  const started = Date.now();
  const bin = await binDir();
  if (await complete(bin)) return { bin, reused: true, ms: Date.now() - started };
  const lock = `${bin}.lock`;
  await mkdir(join(bin, '..'), { recursive: true });
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Someone else builds; a lock older than the build deadline is left by a dead build.
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
      if (age > BUILD_DEADLINE_MS) await rm(lock, { recursive: true, force: true });
      if (await complete(bin)) return { bin, reused: true, ms: Date.now() - started };
      if (Date.now() - started > BUILD_DEADLINE_MS) throw new Error(`waited ${BUILD_DEADLINE_MS / 60_000} min for another build of ${bin} (lock ${lock})`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
  try {
    if (await complete(bin)) return { bin, reused: true, ms: Date.now() - started };
    const staging = `${bin}.partial-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    for (const module of MODULES) {
      log(`building ${Object.keys(module.packages).join(', ')} (go build in test/control-plane/${module.dir}) …`);
      const moduleStarted = Date.now();
      // nice: the machine is shared; -trimpath: the cache path does not end up in the binaries.
      await execa('nice', ['-n', '10', 'go', 'build', '-trimpath', '-o', staging, ...Object.values(module.packages)], {
        cwd: join(SOURCES, module.dir),
        stdout: 'inherit',
        stderr: 'inherit',
        timeout: BUILD_DEADLINE_MS,
      });
      log(`built in ${((Date.now() - moduleStarted) / 1000).toFixed(1)} s`);
    }
    // Each `go build -o DIR` names a binary after its package's last element: cmd/etcd → etcd.
    await rename(staging, bin);
    return { bin, reused: false, ms: Date.now() - started };
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

async function complete(bin: string): Promise<boolean> {
  return BINARIES.every((name) => existsSync(join(bin, name)));
}

async function goFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await goFiles(path)));
    else if (/\.go$|^go\.(mod|sum)$/.test(entry.name)) files.push(path);
  }
  return files.sort();
}
