// The GitHub Action from a checkout (dist/): runs this checkout's bin/kguard. The action the
// runner uses is the bundle (bundle.ts, action-dist/index.mjs), which needs no checkout build.
import { fileURLToPath } from 'node:url';
import { runAction } from './run.js';

const KGUARD = fileURLToPath(new URL('../../../bin/kguard', import.meta.url));

process.exitCode = await runAction({ command: process.execPath, args: [KGUARD] });
