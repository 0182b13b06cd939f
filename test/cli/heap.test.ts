// The heap policy: V8 keeps a small heap for a big apply (or one whose size is not known before it
// is read) and its default for a small one, decided by the bytes kubectl will read.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { manifestBytes, SMALL_HEAP_ABOVE_BYTES, SMALL_HEAP_FLAGS, wantsSmallHeap } from '../../src/cli/heap.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kguard-heap-'));
  await writeFile(path.join(dir, 'a.yaml'), 'x'.repeat(100));
  await writeFile(path.join(dir, 'b.json'), 'x'.repeat(20));
  await writeFile(path.join(dir, 'notes.txt'), 'x'.repeat(1000));
  await mkdir(path.join(dir, 'nested'));
  await writeFile(path.join(dir, 'nested', 'c.yml'), 'x'.repeat(3));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('manifestBytes', () => {
  it('counts a file, and a directory’s manifest files as kubectl reads them (-R for the nested ones)', async () => {
    expect(await manifestBytes({ filenames: [path.join(dir, 'a.yaml')], recursive: false })).toBe(100);
    expect(await manifestBytes({ filenames: [dir], recursive: false })).toBe(120);
    expect(await manifestBytes({ filenames: [dir], recursive: true })).toBe(123);
    expect(await manifestBytes({ filenames: [dir, path.join(dir, 'a.yaml')], recursive: false })).toBe(220);
  });

  it('does not know before reading: stdin, a URL, a kustomization, a path that is not there', async () => {
    expect(await manifestBytes({ filenames: ['-'], recursive: false })).toBeUndefined();
    expect(await manifestBytes({ filenames: ['https://example.com/app.yaml'], recursive: false })).toBeUndefined();
    expect(await manifestBytes({ filenames: [], recursive: false, kustomize: dir })).toBeUndefined();
    expect(await manifestBytes({ filenames: [path.join(dir, 'missing.yaml')], recursive: false })).toBeUndefined();
  });
});

describe('wantsSmallHeap', () => {
  it('keeps V8’s default for a small apply, and a small heap for a big one or one of unknown size', () => {
    expect(wantsSmallHeap(10_000)).toBe(false);
    expect(wantsSmallHeap(SMALL_HEAP_ABOVE_BYTES)).toBe(false);
    expect(wantsSmallHeap(SMALL_HEAP_ABOVE_BYTES + 1)).toBe(true);
    expect(wantsSmallHeap(undefined)).toBe(true);
  });
});

describe('SMALL_HEAP_FLAGS', () => {
  it('are flags this Node’s V8 knows: one it did not would print "Error: unrecognized flag" on kguard’s stderr', async () => {
    const script = `const v8 = require('node:v8'); for (const flag of ${JSON.stringify(SMALL_HEAP_FLAGS)}) v8.setFlagsFromString(flag);`;
    const child = await execa(process.execPath, ['-e', script]);
    expect(child.stderr).toBe('');
    // And an unknown one is said there (the check above can fail).
    const unknown = await execa(process.execPath, [
      '-e',
      "require('node:v8').setFlagsFromString('--no-such-kguard-flag')",
    ]);
    expect(unknown.stderr).toContain('unrecognized flag');
  });
});
