// What the CLI bundle holds, from esbuild's metafile: which packages (and kguard's own folders) a
// start parses before it runs anything (the entry and every part it imports statically), and which
// load only when a command asks for them (`await import()`). `node dist/build/cli.js parts` prints
// the table the README quotes; test/build/parts.test.ts keeps undici, ajv and yaml out of a start.
import { build, type Metafile } from 'esbuild';
import { CLI_BUNDLE, cliBuildOptions } from './bundle.js';

export interface PartRow {
  /** An npm package, or a folder of src/. */
  name: string;
  /** Bytes parsed at every start (the entry's static imports): all `kguard version` parses. */
  atStart: number;
  /** Bytes any other command parses before it runs (src/cli/main.ts and its static imports). */
  withCli: number;
  /** Bytes in parts loaded only when a command asks for them. */
  onDemand: number;
}

/** The output files a start loads: the entry and, transitively, its static imports. */
export function startFiles(metafile: Metafile, from: string | undefined = CLI_BUNDLE): Set<string> {
  const outputs = metafile.outputs;
  const loaded = new Set<string>();
  const pending = from !== undefined && outputs[from] ? [from] : [];
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
  const cli = Object.keys(metafile.outputs).find((file) => metafile.outputs[file]?.entryPoint === 'src/cli/main.ts');
  const withCli = startFiles(metafile, cli);
  const rows = new Map<string, PartRow>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = owner(input);
      const row = rows.get(name) ?? { name, atStart: 0, withCli: 0, onDemand: 0 };
      if (atStart.has(file)) row.atStart += bytesInOutput;
      else if (withCli.has(file)) row.withCli += bytesInOutput;
      else row.onDemand += bytesInOutput;
      rows.set(name, row);
    }
  }
  const size = (row: PartRow) => row.atStart + row.withCli + row.onDemand;
  return [...rows.values()].sort((a, b) => size(b) - size(a));
}

export async function cliMetafile(): Promise<Metafile> {
  const result = await build({ ...cliBuildOptions(), metafile: true });
  if (!result.metafile) throw new Error('esbuild wrote no metafile');
  return result.metafile;
}

/** The README's table: the largest rows, then the totals. */
export function partsTable(rows: readonly PartRow[], top = 12): string {
  const kib = (bytes: number) => (bytes === 0 ? '–' : `${(bytes / 1024).toFixed(0)} KiB`);
  const lines = [
    '| part | parsed by every start | by any command but version | loaded when a command asks |',
    '| --- | ---: | ---: | ---: |',
  ];
  const cells = (row: Pick<PartRow, 'atStart' | 'withCli' | 'onDemand'>) =>
    `${kib(row.atStart)} | ${kib(row.withCli)} | ${kib(row.onDemand)}`;
  for (const row of rows.slice(0, top)) lines.push(`| ${row.name} | ${cells(row)} |`);
  const total = (list: readonly PartRow[]) => ({
    atStart: list.reduce((sum, row) => sum + row.atStart, 0),
    withCli: list.reduce((sum, row) => sum + row.withCli, 0),
    onDemand: list.reduce((sum, row) => sum + row.onDemand, 0),
  });
  lines.push(`| ${rows.length - top} others | ${cells(total(rows.slice(top)))} |`);
  lines.push(`| all | ${cells(total(rows))} |`);
  return lines.join('\n');
}
