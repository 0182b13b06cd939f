// `npm run build:sea`: kguard as one executable file with Node inside, for CD tools that can only
// exec a command (PipeCD and other Go-based tools): Node's single executable applications
// (https://nodejs.org/api/single-executable-applications.html), with the blob injected by
// postject. The executable's Node is the one that builds it (this machine's Node 20 or later).
//   1. the CLI bundled as one ES module (bundle.ts, seaBuildOptions);
//   2. a CommonJS main script that imports it from a data: URL (what Node 20's SEA runs);
//   3. node --experimental-sea-config writes the preparation blob;
//   4. a copy of node with the blob injected (postject, with Node's sentinel fuse).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleText, ROOT, seaBuildOptions } from './bundle.js';

/** The fuse Node's binary carries for SEA (single-executable-applications.md, "Injecting the preparation blob"). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Builds `<directory>/kguard` and returns its path. */
export async function buildSea(directory: string, name = 'kguard'): Promise<string> {
  mkdirSync(directory, { recursive: true });
  const bundle = await bundleText(seaBuildOptions());
  const main = path.join(directory, 'sea-main.cjs');
  writeFileSync(main, seaMainScript(bundle));
  const config = path.join(directory, 'sea-config.json');
  const blob = path.join(directory, 'sea-prep.blob');
  writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true }));
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'ignore' });
  const executable = path.join(directory, name);
  copyFileSync(process.execPath, executable);
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js'),
      executable,
      'NODE_SEA_BLOB',
      blob,
      '--sentinel-fuse',
      SENTINEL_FUSE,
    ],
    {
      stdio: 'ignore',
    },
  );
  return executable;
}

/**
 * The main script: imports the bundled CLI from a data: URL. An error that escapes kguard is said
 * without its message (it may quote cluster data), as bin/kguard says it.
 */
export function seaMainScript(bundle: string): string {
  return [
    '// kguard as a single executable: the CLI is the ES module below (esbuild bundle of src/cli/main.ts).',
    `const bundle = ${JSON.stringify(Buffer.from(bundle).toString('base64'))};`,
    "import('data:text/javascript;base64,' + bundle).catch((error) => {",
    '  const kind = error && error.name ? error.name : typeof error;',
    "  process.stderr.write('kguard: internal error (' + kind + ') that kguard could not report safely; its message is not printed, since it may quote cluster data. This is a bug in kguard: please report it with the command you ran (exit 70).\\n');",
    '  process.exitCode = 70;',
    '});',
    '',
  ].join('\n');
}
