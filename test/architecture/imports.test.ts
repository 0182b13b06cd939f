// The house has no circles: every import in src/ points down (type imports included, since a
// circle of types still means no file in it can be read, tested or moved alone), and no file
// grows past 400 lines. Imports are read with TypeScript's own pre-processor.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Each file's relative imports and re-exports (`import type` too), as files. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')))
      .filter((target) => existsSync(target));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file))
      found.push(component.map((entry) => path.relative(SRC, entry)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('src/ layout', () => {
  const files = sourceFiles(SRC);

  it('has no import circle, type imports included', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(circles(importGraph(files))).toEqual([]);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const a = path.join(SRC, 'a.ts');
    const b = path.join(SRC, 'b.ts');
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });

  it('keeps model/ at the bottom: it imports only the Kubernetes object types', () => {
    const graph = importGraph(files);
    const allowed = new Set([path.join(SRC, 'kube.ts'), path.join(SRC, 'objects/model.ts')]);
    const upward = [...graph]
      .filter(([file]) => file.startsWith(path.join(SRC, 'model/')))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => !target.startsWith(path.join(SRC, 'model/')) && !allowed.has(target))
          .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
      );
    expect(upward).toEqual([]);
  });

  it('keeps http/ at the bottom: the HTTP client imports nothing of kguard outside it', () => {
    const inside = (file: string) => file.startsWith(path.join(SRC, 'http/'));
    const upward = [...importGraph(files)]
      .filter(([file]) => inside(file))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => !inside(target))
          .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
      );
    expect(upward).toEqual([]);
  });

  it('keeps the command folders apart: run/<command>/ imports nothing from another command folder', () => {
    // What two commands share lives below them (journal/, restore/): the apply finishes a dead run
    // with the restore `kguard rollback` uses, from restore/recovery/.
    const commandOf = (file: string) => path.relative(SRC, file).match(/^run\/([^/]+)\//)?.[1];
    const across = [...importGraph(files)].flatMap(([file, targets]) =>
      targets
        .filter((target) => commandOf(file) && commandOf(target) && commandOf(target) !== commandOf(file))
        .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
    );
    expect(across).toEqual([]);
  });

  it('keeps journal/ below restore/recovery/: journal/ imports nothing from restore/', () => {
    // restore/recovery/ finishes a run from its journal (it reads journal/); journal/ and restore/
    // are otherwise side by side, so an import back would make the two one tangle.
    const back = [...importGraph(files)]
      .filter(([file]) => file.startsWith(path.join(SRC, 'journal/')))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith(path.join(SRC, 'restore/')))
          .map((target) => `${path.relative(SRC, file)} → ${path.relative(SRC, target)}`),
      );
    expect(back).toEqual([]);
  });

  it('has no file over 400 lines', () => {
    const long = files
      .map((file) => ({ file: path.relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });

  it('has no folder holding more than 15 files directly: a folder that grows is split by what it holds', () => {
    const byFolder = new Map<string, number>();
    for (const file of files) {
      const folder = path.relative(SRC, path.dirname(file)) || '.';
      byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
    }
    const crowded = [...byFolder].filter(([, count]) => count > 15).map(([folder, count]) => ({ folder, count }));
    expect(crowded).toEqual([]);
  });
});
