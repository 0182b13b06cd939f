// What both launchers do (bin/kguard, bin/kubectl-rollout_guard): load the CLI, the bundle when it
// is current, and say a missing build or an escaped error in the launcher's own name. The CLI is
// compiled TypeScript (npm run build writes dist/). Only a missing build says so; anything else that
// reaches here is a bug in kguard, said without its message (it may quote what the cluster said,
// Secret values included).
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Node 22.1 and later keep the compiled CLI on disk between runs (about 20 ms less per start). The
// cache is the user's own (XDG_CACHE_HOME, else ~/.cache), never a shared temporary directory.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; NODE_COMPILE_CACHE (Node's own) puts it elsewhere.
try {
  const cacheRoot = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
  if (module.enableCompileCache && cacheRoot && !process.env.NODE_COMPILE_CACHE)
    module.enableCompileCache(join(cacheRoot, 'kguard', 'compile-cache'));
} catch {
  // Only a start-up time saving: without it kguard runs the same.
}

// npm run build also writes the CLI as a bundle (dist/kguard.mjs and the parts it loads on demand,
// dist/kguard-parts/), which starts sooner. In a checkout it is used only while it is newer than
// tsc's last build (dist/.tsbuildinfo), so a tsc-only build never runs older code; the npm package
// ships the bundle without dist/.tsbuildinfo, and runs it. Without it (a copy of dist/src alone) the
// compiled sources run.
const modified = (file) => {
  try {
    return statSync(new URL(file, import.meta.url)).mtimeMs;
  } catch {
    return undefined;
  }
};

// `npm install kguard` also installs the release executable for this machine where there is one
// (an optional dependency per platform, build/npm-platforms.ts): it starts in a fraction of the
// bundle's time on Node, so it runs instead. KGUARD_RUNTIME=node runs the bundle anyway.
const PLATFORM_PACKAGES = {
  'linux x64': ['@kguard/linux-x64', '@kguard/linux-x64-musl'],
  'linux arm64': ['@kguard/linux-arm64'],
  'darwin x64': ['@kguard/darwin-x64'],
  'darwin arm64': ['@kguard/darwin-arm64'],
};

/** This machine's executable from its platform package, when npm installed one. */
export function platformExecutable(platform = process.platform, arch = process.arch) {
  if (process.env.KGUARD_RUNTIME === 'node') return undefined;
  const require = createRequire(import.meta.url);
  const installed = (PLATFORM_PACKAGES[`${platform} ${arch}`] ?? []).flatMap((name) => {
    try {
      return [{ name, path: require.resolve(`${name}/bin/kguard`) }];
    } catch {
      return [];
    }
  });
  // npm installs the one whose libc matches; should both be there, Node's report names the glibc
  // it runs on (musl, Alpine's, has none).
  if (installed.length > 1) {
    const glibc = Boolean(process.report?.getReport?.().header?.glibcVersionRuntime);
    return installed.find(({ name }) => name.endsWith('-musl') !== glibc)?.path;
  }
  return installed[0]?.path;
}

/**
 * Runs the executable with this process's arguments, streams and environment, and ends as it
 * ends. It is in this process's group, so a Ctrl-C reaches it from the terminal; a signal sent to
 * this process alone is passed on.
 */
function runExecutable(executable) {
  // Taken before the start, so a signal that comes while it starts is passed on too, not lost.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let child;
  let pending;
  const pass = (signal) => (child ? child.kill(signal) : (pending = signal));
  for (const signal of signals) process.on(signal, pass);
  child = spawn(executable, process.argv.slice(2), { stdio: 'inherit' });
  if (pending) child.kill(pending);
  child.on('error', (error) => {
    process.stderr.write(
      `kguard: could not start ${executable} (${error.code}); KGUARD_RUNTIME=node runs kguard on Node instead.\n`,
    );
    process.exit(70);
  });
  child.on('exit', (code, signal) => {
    for (const name of signals) process.off(name, pass);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 70);
  });
}

/** Runs the CLI; `name` is how the launcher's own messages call it. */
export function launch(name) {
  const executable = platformExecutable();
  if (executable) return runExecutable(executable);
  const bundled = modified('../dist/kguard.mjs');
  const compiled = modified('../dist/.tsbuildinfo');
  const entry =
    bundled !== undefined && (compiled === undefined || bundled >= compiled)
      ? '../dist/kguard.mjs'
      : '../dist/src/cli/entry.js';
  import(entry).catch((error) => {
    const missing = error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('cli/entry.js');
    if (missing) {
      process.stderr.write(
        `${name}: dist/src/cli/entry.js is missing. Run "npm run build" in the kguard checkout first.\n`,
      );
      process.exitCode = 2;
      return;
    }
    const kind = error?.name ? error.name : typeof error;
    process.stderr.write(
      `${name}: internal error (${kind}) that kguard could not report safely; its message is not printed, since it may quote cluster data. ` +
        'This is a bug in kguard: please report it with the command you ran (exit 70).\n',
    );
    process.exitCode = 70;
  });
}
