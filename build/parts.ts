// What the CLI bundle holds, from esbuild's metafile: which packages (and kguard's own folders) a
// start parses before it runs anything (the entry and every part it imports statically), and which
// load only when a command asks for them (`await import()`). `node dist/build/cli.js parts` prints
// the table the README quotes; test/build/parts.test.ts keeps undici, ajv and yaml out of a start.
import { build, type Metafile } from 'esbuild';
import { CLI_BUNDLE, cliBuildOptions } from './bundle.js';

export interface PartRow {
  /** An npm package, or a folder of src/. */
  name: string;
  /** Bytes parsed at every start (the entry's static imports). */
  atStart: number;
  /** Bytes in parts loaded on demand. */
  onDemand: number;
}

/** The output files a start loads: the entry and, transitively, its static imports. */
export function startFiles(metafile: Metafile): Set<string> {
  const outputs = metafile.outputs;
  const loaded = new Set<string>();
  const pending = outputs[CLI_BUNDLE] ? [CLI_BUNDLE] : [];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    for (const imported of outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement' && outputs[imported.path]) pending.push(imported.path);
  }
  return loaded;
}

function owner(input: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (inPackage?.[1]) return inPackage[1];
  const folder = /^src\/([^/]+)\//.exec(input);
  return folder ? `src/${folder[1]}/` : input;
}

/** Bytes per package or src folder, at start and on demand, largest first. */
export function partRows(metafile: Metafile): PartRow[] {
  const atStart = startFiles(metafile);
  const rows = new Map<string, PartRow>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = owner(input);
      const row = rows.get(name) ?? { name, atStart: 0, onDemand: 0 };
      if (atStart.has(file)) row.atStart += bytesInOutput;
      else row.onDemand += bytesInOutput;
      rows.set(name, row);
    }
  }
  return [...rows.values()].sort((a, b) => b.atStart + b.onDemand - (a.atStart + a.onDemand));
}

export async function cliMetafile(): Promise<Metafile> {
  const result = await build({ ...cliBuildOptions(), metafile: true });
  if (!result.metafile) throw new Error('esbuild wrote no metafile');
  return result.metafile;
}

/** The README's table: the largest rows, then the totals. */
export function partsTable(rows: readonly PartRow[], top = 12): string {
  const kib = (bytes: number) => (bytes === 0 ? '–' : `${(bytes / 1024).toFixed(0)} KiB`);
  const lines = ['| part | parsed at start | loaded on demand |', '| --- | ---: | ---: |'];
  for (const row of rows.slice(0, top)) lines.push(`| ${row.name} | ${kib(row.atStart)} | ${kib(row.onDemand)} |`);
  const rest = rows.slice(top);
  const sum = (list: readonly PartRow[], key: 'atStart' | 'onDemand') =>
    list.reduce((total, row) => total + row[key], 0);
  lines.push(`| ${rest.length} others | ${kib(sum(rest, 'atStart'))} | ${kib(sum(rest, 'onDemand'))} |`);
  lines.push(`| **all** | **${kib(sum(rows, 'atStart'))}** | **${kib(sum(rows, 'onDemand'))}** |`);
  return lines.join('\n');
}
