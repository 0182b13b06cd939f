// The entry of the GitHub Action's single-file bundle (action-dist/index.mjs, built by esbuild:
// npm run build:action). action.yml runs it with the runner's Node 24; it needs nothing installed
// or compiled. It is the action, and it is kguard too: the action runs this same file again as
// the CLI (KGUARD_BUNDLE_ROLE=cli), so kguard runs in a process of its own, as from a checkout.
import { fileURLToPath } from 'node:url';

if (process.env.KGUARD_BUNDLE_ROLE === 'cli') {
  await import('../cli/main.js');
} else {
  const { runAction } = await import('./run.js');
  process.exitCode = await runAction({
    command: process.execPath,
    args: [fileURLToPath(import.meta.url)],
    env: { KGUARD_BUNDLE_ROLE: 'cli' },
  });
}
