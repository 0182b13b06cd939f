// Builds the control plane's binaries once per pin set: kube-apiserver, kube-controller-manager,
// kube-scheduler, the kubelet (real nodes, node.ts) and etcd from ./go, kwok from ./kwok, into
// ${XDG_CACHE_HOME:-~/.cache}/kguard/control-plane/<hash of the go.mod, go.sum and .go files and
// of this file>/bin.
// Nothing is built into the work tree; a build whose pins did not change is reused.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** The module sources, in the repository: from dist/test/control-plane/ too. */
export const SOURCES = fileURLToPath(new URL('.', import.meta.url)).replace(
  /\/dist\/test\/control-plane\/$/,
  '/test/control-plane/',
);

export const BINARIES = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
  'etcd',
  'kwok',
] as const;
export type Binary = (typeof BINARIES)[number];

const MODULES: { dir: string; packages: Record<string, string>; ldflags?: (goMod: string) => string[] }[] = [
  {
    dir: 'go',
    ldflags: kubernetesVersionFlags,
    packages: {
      'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
      'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
      'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
      kubelet: 'k8s.io/kubernetes/cmd/kubelet',
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
  // This file too: the flags it builds with are part of what the binaries are.
  hash.update(await readFile(join(SOURCES, 'build.ts')));
  for (const module of MODULES) {
    for (const file of await goFiles(join(SOURCES, module.dir))) {
      hash
        .update(relative(SOURCES, file))
        .update('\0')
        .update(await readFile(file))
        .update('\0');
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
      if (Date.now() - started > BUILD_DEADLINE_MS)
        throw new Error(`waited ${BUILD_DEADLINE_MS / 60_000} min for another build of ${bin} (lock ${lock})`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
  const staging = `${bin}.partial-${process.pid}`;
  try {
    if (await complete(bin)) return { bin, reused: true, ms: Date.now() - started };
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    for (const module of MODULES) {
      log(`building ${Object.keys(module.packages).join(', ')} (go build in test/control-plane/${module.dir}) …`);
      const moduleStarted = Date.now();
      // nice: the machine is shared; -trimpath: the cache path does not end up in the binaries;
      // -s -w: no symbol table and DWARF (kube-apiserver is 170 MB with them, 119 MB without).
      const ldflags = [
        '-s',
        '-w',
        ...(module.ldflags?.(await readFile(join(SOURCES, module.dir, 'go.mod'), 'utf8')) ?? []),
      ];
      await execa(
        'nice',
        [
          '-n',
          '10',
          'go',
          'build',
          '-trimpath',
          `-ldflags=${ldflags.join(' ')}`,
          '-o',
          staging,
          ...Object.values(module.packages),
        ],
        {
          cwd: join(SOURCES, module.dir),
          stdout: 'inherit',
          stderr: 'inherit',
          timeout: BUILD_DEADLINE_MS,
        },
      );
      log(`built in ${((Date.now() - moduleStarted) / 1000).toFixed(1)} s`);
    }
    // Each `go build -o DIR` names a binary after its package's last element: cmd/etcd → etcd.
    await rename(staging, bin);
    await pruneOldBuilds(KEEP_BUILDS);
    return { bin, reused: false, ms: Date.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(lock, { recursive: true, force: true });
  }
}

/** Builds of other pin sets kept (other checkouts may use them): about 400 MB each. */
const KEEP_BUILDS = 3;

/** Removes all but the `keep` most recently built pin sets from the cache folder. */
async function pruneOldBuilds(keep: number): Promise<void> {
  const root = cacheRoot();
  const builds = await Promise.all(
    (await readdir(root, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && /^[0-9a-f]{16}$/.test(entry.name))
      .map(async (entry) => ({ path: join(root, entry.name), mtimeMs: (await stat(join(root, entry.name))).mtimeMs })),
  );
  builds.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const old of builds.slice(keep)) await rm(old.path, { recursive: true, force: true });
}

/**
 * The version Kubernetes' own build stamps (hack/lib/version.sh): without it the API server says
 * v0.0.0-master+$Format:%H$ at /version, which kubectl's version checks (and the gcloud kubectl
 * dispatcher) cannot parse.
 */
function kubernetesVersionFlags(goMod: string): string[] {
  const version = /^\s*(?:require\s+)?k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)$/m.exec(goMod);
  if (!version) throw new Error('test/control-plane/go/go.mod: no "k8s.io/kubernetes vX.Y.Z" requirement');
  const [, gitVersion, major, minor] = version;
  const stamp = {
    gitVersion,
    gitMajor: major,
    gitMinor: minor,
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
  };
  return ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) =>
    Object.entries(stamp).map(([name, value]) => `-X ${pkg}.${name}=${value}`),
  );
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
