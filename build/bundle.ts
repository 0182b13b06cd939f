// The single-file builds, with esbuild: the GitHub Action (action-dist/index.mjs, committed, so a
// workflow runs it with the runner's Node and nothing installed or compiled) and the single
// executable's script (npm run build:sea). The options live here so the test that fails on a
// stale committed bundle builds exactly what `npm run build:action` writes.
// build/cli.ts writes them (npm run build:action, npm run build:sea).
import { readFileSync } from 'node:fs';
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
 * The CLI as one ES module for the single executable (sea.ts): Node 20's single executable runs a
 * CommonJS script, which imports this module from a data: URL, so kguard's top-level await and
 * lazy imports stay as they are. A data: URL module has no file to resolve require() from: the
 * require that bundled CommonJS packages use for Node's built-ins comes from the executable's path.
 */
export function seaBuildOptions(): BuildOptions {
  return {
    ...actionBuildOptions(),
    entryPoints: ['src/cli/main.ts'],
    banner: {
      js: "import { createRequire as kguardCreateRequire } from 'node:module'; const require = kguardCreateRequire(process.execPath);",
    },
  };
}

/**
 * The CLI as one ES module beside the compiled sources (dist/kguard.mjs): node reads one file
 * instead of resolving and compiling some 300 modules, so a run reaches its first kubectl about
 * 100 ms sooner. The launchers use it only while it is newer than the last tsc build.
 */
export const CLI_BUNDLE = 'dist/kguard.mjs';

export function cliBuildOptions(): BuildOptions {
  return {
    ...actionBuildOptions(),
    entryPoints: ['src/cli/main.ts'],
    // Resolved from dist/: yaml for the lazy require()s, and Node's built-ins for CommonJS packages.
    banner: {
      js: "import { createRequire as kguardCreateRequire } from 'node:module'; const require = kguardCreateRequire(import.meta.url);",
    },
    legalComments: 'none',
  };
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
