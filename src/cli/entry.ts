// The CLI's first module: `kguard version` and `--version` need nothing but the version, so they
// are answered before commander, the options and the rest of the CLI load (main.ts); any other
// command line loads main.ts, which parses it.
import { kguardVersion, runtimeVersion } from '../version.js';

const words = process.argv.slice(2);
if (words.length === 1 && (words[0] === '--version' || words[0] === '-V')) {
  process.stdout.write(`${kguardVersion()}\n`);
} else if (words.length === 1 && words[0] === 'version') {
  process.stdout.write(`${kguardVersion()} (${runtimeVersion()})\n`);
} else {
  await import('./main.js');
}
