// A start parses only the entry of the CLI bundle and its static imports (esbuild's metafile says
// which): undici (proxied downloads), ajv (rules and fleet files) and yaml load when a command asks.
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
