// The single-file builds from the command line:
//   node dist/build/cli.js action   (npm run build:action: action-dist/index.mjs, committed)
//   node dist/build/cli.js binaries [ASSET...]  (npm run build:binaries: dist/binaries/, one executable per platform)
//   node dist/build/cli.js cli      (npm run build, after tsc: dist/kguard.mjs and dist/kguard-parts/)
//   node dist/build/cli.js krew TAG (after binaries: the krew archives, SHA256SUMS, rollout-guard.yaml)
//   node dist/build/cli.js npm-platforms [--main]  (after binaries: dist/npm/<asset>/, one npm package per
//     executable; --main also names them in package.json as optionalDependencies, for the release's npm pack)
//   node dist/build/cli.js parts    (the table of what a start parses and what loads on demand)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ACTION_BUNDLE,
  actionBuildOptions,
  bundleFiles,
  bundleText,
  cliBuildOptions,
  CLI_PARTS,
  ROOT,
} from './bundle.js';
import { cliMetafile, partRows, partsTable } from './parts.js';
import { buildBinaries } from './binaries.js';
import { releaseKrew } from './krew.js';
import { addOptionalDependencies, writePlatformPackages } from './npm-platforms.js';

const target = process.argv[2];
if (target === 'action') {
  writeFileSync(`${ROOT}${ACTION_BUNDLE}`, await bundleText(actionBuildOptions()));
  process.stdout.write(`wrote ${ACTION_BUNDLE}\n`);
} else if (target === 'cli') {
  const files = await bundleFiles(cliBuildOptions());
  // The parts' names carry a hash of their content: old ones go, so the folder holds one build.
  rmSync(`${ROOT}${CLI_PARTS}`, { recursive: true, force: true });
  for (const file of files) {
    mkdirSync(path.dirname(`${ROOT}${file.path}`), { recursive: true });
    writeFileSync(`${ROOT}${file.path}`, file.text);
  }
} else if (target === 'binaries') {
  const only = process.argv.slice(3);
  for (const file of buildBinaries(only.length > 0 ? only : undefined)) process.stdout.write(`wrote ${file}\n`);
} else if (target === 'krew' && process.argv[3]) {
  process.stdout.write(`wrote ${releaseKrew(process.argv[3])}\n`);
} else if (target === 'npm-platforms') {
  for (const folder of writePlatformPackages()) process.stdout.write(`wrote ${folder}\n`);
  if (process.argv.includes('--main')) {
    addOptionalDependencies();
    process.stdout.write('package.json: optionalDependencies name every platform package\n');
  }
} else if (target === 'parts') {
  process.stdout.write(`${partsTable(partRows(await cliMetafile()))}\n`);
} else {
  process.stderr.write(
    'usage: node dist/build/cli.js action|binaries [ASSET...]|cli|krew TAG|npm-platforms [--main]|parts\n',
  );
  process.exitCode = 1;
}
