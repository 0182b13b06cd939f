// Builds Helm 4 (helm.sh/helm/v4, the version test/bench/helm/go.mod pins) from the Go module
// proxy, once per pin set, into ${XDG_CACHE_HOME:-~/.cache}/kguard/helm/<hash of go.mod, go.sum
// and this file>/helm, for `npm run bench -- --real`. Nothing is built into the work tree. A lock
// directory makes concurrent callers wait for one build, as test/control-plane/build.ts does (this
// module lives outside test/control-plane/, whose files key the control plane's own build).

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** The Go module's sources, in the repository: from dist/test/bench/ too. */
const SOURCES = fileURLToPath(new URL('.', import.meta.url)).replace(/\/dist\/test\/bench\/$/, '/test/bench/');
const MODULE = join(SOURCES, 'helm');
const SELF = join(SOURCES, 'helm-build.ts');

/** Helm alone, cold, on 2 shared cores (its Kubernetes client packages may be in Go's cache already). */
const BUILD_DEADLINE_MS = 30 * 60_000;

export async function helmPath(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [SELF, join(MODULE, 'go.mod'), join(MODULE, 'go.sum')])
    hash.update(await readFile(file)).update('\0');
  const root = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kguard', 'helm');
  return join(root, hash.digest('hex').slice(0, 16), 'helm');
}

/** The pinned version, from go.mod: Helm's Makefile stamps it the same way (internal/version). */
async function pinnedVersion(): Promise<string> {
  const goMod = await readFile(join(MODULE, 'go.mod'), 'utf8');
  const version = /^\s*helm\.sh\/helm\/v4 (v\d+\.\d+\.\d+)/m.exec(goMod)?.[1];
  if (!version) throw new Error('test/bench/helm/go.mod: no "helm.sh/helm/v4 vX.Y.Z" requirement');
  return version;
}

/** The helm executable, built first when missing. */
export async function ensureHelm(log: (line: string) => void = () => {}): Promise<string> {
  const helm = await helmPath();
  if (existsSync(helm)) return helm;
  const dir = join(helm, '..');
  const lock = `${dir}.lock`;
  await mkdir(join(dir, '..'), { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
      if (age > BUILD_DEADLINE_MS) await rm(lock, { recursive: true, force: true });
      if (existsSync(helm)) return helm;
      if (Date.now() - started > BUILD_DEADLINE_MS) throw new Error(`waited too long for another build of ${helm}`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
  const staging = `${dir}.partial-${process.pid}`;
  try {
    if (existsSync(helm)) return helm;
    const version = await pinnedVersion();
    log(`building helm ${version} (go build in test/bench/helm) …`);
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    // As Helm's Makefile builds a release: CGO off, -trimpath, -s -w, the version stamped.
    const ldflags = [
      '-s',
      '-w',
      `-X helm.sh/helm/v4/internal/version.version=${version}`,
      '-X helm.sh/helm/v4/internal/version.gitTreeState=clean',
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
        'helm.sh/helm/v4/cmd/helm',
      ],
      {
        cwd: MODULE,
        env: { ...process.env, CGO_ENABLED: '0' },
        stdout: 'inherit',
        stderr: 'inherit',
        timeout: BUILD_DEADLINE_MS,
      },
    );
    await rename(staging, dir);
    log(`built helm in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return helm;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(lock, { recursive: true, force: true });
  }
}
