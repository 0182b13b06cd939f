// npm's postinstall: where npm installed this machine's release executable (an optional
// dependency, build/npm-platforms.ts), kguard's commands become that executable, as esbuild's
// install script makes its own, so a run starts no Node first. Best effort: whatever stands in the
// way leaves the launchers as they are, and they run the same executable after a Node start
// (bin/launch.mjs). Nothing happens in a checkout, where no platform package is installed.
import { chmodSync, copyFileSync, linkSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { platformExecutable } from './launch.mjs';

const executable = process.platform === 'win32' ? undefined : platformExecutable();
if (executable) {
  for (const name of ['kguard', 'kubectl-rollout_guard']) {
    const command = fileURLToPath(new URL(name, import.meta.url));
    const staged = `${command}.installing`;
    try {
      rmSync(staged, { force: true });
      try {
        linkSync(executable, staged);
      } catch {
        copyFileSync(executable, staged);
      }
      chmodSync(staged, 0o755);
      renameSync(staged, command);
    } catch {
      rmSync(staged, { force: true });
    }
  }
}
