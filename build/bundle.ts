// The bundles, with esbuild: the GitHub Action (action-dist/index.mjs, committed, so a workflow
// runs it with the runner's Node and nothing installed or compiled) and the CLI split into the
// parts a command loads (dist/kguard.mjs, dist/kguard-parts/). The options live here so the test
// that fails on a stale committed bundle builds exactly what `npm run build:action` writes.
// build/cli.ts writes them (npm run build:action, npm run build). The executables are Bun's
// (binaries.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../', import.meta.url).href.replace(/\/dist\/$/, '/'));
export const ACTION_BUNDLE = 'action-dist/index.mjs';

function version(): string {
  return (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;
}

/** The action's bundle: ESM for Node 20 and later (the runner's is 24), one file, no source map. */
export function actionBuildOptions(): BuildOptions {
  return {
    absWorkingDir: ROOT,
    entryPoints: ['src/action/bundle.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Packages that still call require() for Node's built-ins (execa's cross-spawn) need one in ESM.
    banner: {
      js: "import { createRequire as kguardCreateRequire } from 'node:module'; const require = kguardCreateRequire(import.meta.url);",
    },
    define: { KGUARD_BUNDLED_VERSION: JSON.stringify(version()) },
    legalComments: 'eof',
    logLevel: 'warning',
    write: false,
  };
}

/**
 * The CLI bundled beside the compiled sources: dist/kguard.mjs, and the parts it imports only when a
 * command needs them in dist/kguard-parts/ (esbuild's code splitting at each `await import()`).
 * node reads a handful of files instead of resolving and compiling some 300 modules, and a start
 * compiles only what it runs: `kguard version` or `apply -f` never parse undici (proxied downloads)
 * or ajv (rules and fleet files), 1.3 MB of the 2.8 MB. The launchers use it only while it is newer
 * than the last tsc build. `node dist/build/cli.js parts` prints what each part holds.
 */
export const CLI_BUNDLE = 'dist/kguard.mjs';
export const CLI_PARTS = 'dist/kguard-parts';

export function cliBuildOptions(): BuildOptions {
  return {
    ...actionBuildOptions(),
    entryPoints: { kguard: 'src/cli/entry.ts' },
    outdir: `${ROOT}dist`,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'kguard-parts/[name]-[hash]',
    // Resolved from each file: yaml for the lazy require()s, and Node's built-ins for CommonJS packages.
    banner: {
      js: "import { createRequire as kguardCreateRequire } from 'node:module'; const require = kguardCreateRequire(import.meta.url);",
    },
    legalComments: 'none',
  };
}

/** The split CLI's files, built in memory: paths relative to ROOT and their text (ASCII only). */
export async function bundleFiles(options: BuildOptions): Promise<Array<{ path: string; text: string }>> {
  const result = await build(options);
  return (result.outputFiles ?? []).map((file) => ({
    path: path.relative(ROOT, file.path),
    text: asciiOnly(file.text),
  }));
}

/** The bundle's bytes, built in memory. */
export async function bundleText(options: BuildOptions): Promise<string> {
  const result = await build(options);
  const [output] = result.outputFiles ?? [];
  if (!output) throw new Error('esbuild wrote nothing');
  return asciiOnly(output.text);
}

/**
 * esbuild escapes non-ASCII characters in strings, templates and regular expressions (its default
 * charset), but not in the comments it keeps. One such character makes V8 hold the whole module's
 * source as a two-byte string: 5.6 MB instead of 2.8 MB for the CLI, for the whole run. Escaping
 * them in comments changes nothing else.
 */
export function asciiOnly(text: string): string {
  return text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
