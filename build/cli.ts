// The single-file builds from the command line:
//   node dist/build/cli.js action   (npm run build:action: action-dist/index.mjs, committed)
//   node dist/build/cli.js sea      (npm run build:sea: dist/sea/kguard, one executable with Node inside)
//   node dist/build/cli.js cli      (npm run build, after tsc: dist/kguard.mjs, the CLI in one module)
import { writeFileSync } from 'node:fs';
import { ACTION_BUNDLE, actionBuildOptions, bundleText, cliBuildOptions, CLI_BUNDLE, ROOT } from './bundle.js';
import { buildSea } from './sea.js';

const target = process.argv[2];
if (target === 'action') {
  writeFileSync(`${ROOT}${ACTION_BUNDLE}`, await bundleText(actionBuildOptions()));
  process.stdout.write(`wrote ${ACTION_BUNDLE}\n`);
} else if (target === 'cli') {
  writeFileSync(`${ROOT}${CLI_BUNDLE}`, await bundleText(cliBuildOptions()));
} else if (target === 'sea') {
  process.stdout.write(`wrote ${await buildSea(`${ROOT}dist/sea`)}\n`);
} else {
  process.stderr.write('usage: node dist/build/cli.js action|sea|cli\n');
  process.exitCode = 1;
}
