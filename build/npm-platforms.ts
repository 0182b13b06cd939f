// `node dist/build/cli.js npm-platforms` (after `npm run build:binaries`): the release executables
// as npm packages, one per platform, as esbuild (@esbuild/linux-x64…) and Biome
// (@biomejs/cli-linux-x64…) ship theirs: `@kguard/linux-x64` holds bin/kguard for that platform
// only, and npm installs it only where its `os`, `cpu` and `libc` match (npm-install-checks). The
// kguard package names them all as optionalDependencies, at its own version (`--main` writes them
// into package.json: the release job does, just before `npm pack`), so `npm install kguard` brings
// the one executable for the machine, and bin/launch.mjs runs it; elsewhere the JavaScript bundle
// runs as before. Written to dist/npm/<asset>/; `npm publish dist/npm/<asset>` publishes one.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARIES_DIR, BINARY_TARGETS, type BinaryTarget } from './binaries.js';
import { ROOT } from './bundle.js';

export const NPM_PLATFORMS_DIR = 'dist/npm';

/** What npm matches a platform package on (process.platform, process.arch, the C library). */
export interface PlatformMatch {
  os: string;
  cpu: string;
  libc?: 'glibc' | 'musl';
}

/** Each release executable's platform, as npm and Node name it. */
export const PLATFORMS: Record<string, PlatformMatch> = {
  'kguard-linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'kguard-linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'kguard-linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'kguard-darwin-x64': { os: 'darwin', cpu: 'x64' },
  'kguard-darwin-arm64': { os: 'darwin', cpu: 'arm64' },
};

/** `@kguard/linux-x64` for the asset `kguard-linux-x64`. */
export function platformPackageName(asset: string): string {
  return `@kguard/${asset.replace(/^kguard-/, '')}`;
}

interface Manifest {
  name: string;
  version: string;
  license?: string;
  repository?: unknown;
  homepage?: string;
  optionalDependencies?: Record<string, string>;
}

function mainManifest(): Manifest {
  return JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
}

/** The package.json of one platform's package. */
export function platformManifest(target: BinaryTarget, main: Manifest): object {
  const match = PLATFORMS[target.asset];
  if (!match) throw new Error(`no npm platform for ${target.asset}`);
  return {
    name: platformPackageName(target.asset),
    version: main.version,
    description: `kguard's executable for ${match.os} ${match.cpu}${match.libc === 'musl' ? ' (musl)' : ''}: installed by the kguard package where it fits`,
    license: main.license,
    repository: main.repository,
    homepage: main.homepage,
    os: [match.os],
    cpu: [match.cpu],
    ...(match.libc ? { libc: [match.libc] } : {}),
    files: ['bin/kguard'],
    // Yarn Berry: keep it a real file on disk, so it can be run.
    preferUnplugged: true,
  };
}

/** Writes dist/npm/<asset>/ for every executable dist/binaries/ holds; returns their folders. */
export function writePlatformPackages(): string[] {
  const main = mainManifest();
  const written: string[] = [];
  for (const target of BINARY_TARGETS) {
    const executable = path.join(ROOT, BINARIES_DIR, target.asset);
    if (!existsSync(executable)) continue;
    const directory = path.join(ROOT, NPM_PLATFORMS_DIR, target.asset);
    mkdirSync(path.join(directory, 'bin'), { recursive: true });
    writeFileSync(path.join(directory, 'package.json'), `${JSON.stringify(platformManifest(target, main), null, 2)}\n`);
    copyFileSync(executable, path.join(directory, 'bin', 'kguard'));
    chmodSync(path.join(directory, 'bin', 'kguard'), 0o755);
    written.push(path.join(NPM_PLATFORMS_DIR, target.asset));
  }
  return written;
}

/** The kguard package's optionalDependencies: every platform package, at its own version. */
export function optionalDependencies(version: string): Record<string, string> {
  return Object.fromEntries(BINARY_TARGETS.map((target) => [platformPackageName(target.asset), version]));
}

/** Writes them into package.json (the release job, before `npm pack`; never committed). */
export function addOptionalDependencies(): void {
  const file = path.join(ROOT, 'package.json');
  const main = mainManifest();
  main.optionalDependencies = { ...main.optionalDependencies, ...optionalDependencies(main.version) };
  writeFileSync(file, `${JSON.stringify(main, null, 2)}\n`);
}
