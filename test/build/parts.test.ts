// A start parses only the entry of the CLI bundle and its static imports (esbuild's metafile says
// which): undici (proxied downloads), ajv (rules and fleet files) and yaml load when a command asks.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliMetafile, partRows, startFiles } from '../../build/parts.js';
import { CLI_BUNDLE } from '../../build/bundle.js';

const metafile = await cliMetafile();
const rows = new Map(partRows(metafile).map((row) => [row.name, row]));

describe('the CLI bundle', () => {
  it('keeps undici, ajv and yaml out of what a command parses before it runs', () => {
    for (const name of ['undici', 'ajv', 'yaml', 'execa']) {
      expect(rows.get(name)?.atStart, name).toBe(0);
      expect(rows.get(name)?.withCli, name).toBe(0);
      expect(rows.get(name)?.onDemand, name).toBeGreaterThan(0);
    }
  });

  it('answers version from dist/kguard.mjs alone: commander and the CLI load for other commands', () => {
    expect(startFiles(metafile).has(CLI_BUNDLE)).toBe(true);
    expect([...rows.values()].reduce((total, row) => total + row.atStart, 0)).toBeLessThan(4 * 1024);
    expect(rows.get('commander')?.atStart).toBe(0);
    expect(rows.get('commander')?.withCli).toBeGreaterThan(0);
  });
});

/** A package published as ES modules ("type": "module") keeps its named exports in its own part. */
function isEsmPackage(name: string): boolean {
  const manifest = path.join(import.meta.dirname, '../../node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type === 'module';
}

describe('lazy imports of packages', () => {
  it("go through a module of kguard's own: a CommonJS package's part, imported directly, gives only its default", () => {
    const src = path.join(import.meta.dirname, '../../src');
    const direct = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(path.join(src, file), 'utf8').matchAll(/\bimport\(\s*'([^'.][^']*)'\s*\)/g)]
          .map((match) => match[1]!)
          .filter((specifier) => !specifier.startsWith('node:') && !isEsmPackage(specifier))
          .map((specifier) => `${file}: import('${specifier}')`),
      );
    // kubeconfig.ts takes either shape of yaml (loadYaml).
    expect([...new Set(direct)]).toEqual(["kubectl/kubeconfig.ts: import('yaml')"]);
  });
});
