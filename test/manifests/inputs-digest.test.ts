// The digest a run's history names its inputs by: of the bytes kubectl reads, in its order; the
// same manifests give the same digest wherever they were read from, and any byte changes it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOfInputs } from '../../src/manifests/inputs.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kguard-digest-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const file = async (name: string, text: string) => {
  const at = path.join(dir, name);
  await mkdir(path.dirname(at), { recursive: true });
  await writeFile(at, text);
  return at;
};

describe('digestOfInputs', () => {
  it('is the same for the same bytes under another name, and changes with one byte', async () => {
    const one = await file('a/web.yaml', 'kind: ConfigMap\nmetadata: {name: web}\n');
    const copy = await file('b/other-name.yaml', 'kind: ConfigMap\nmetadata: {name: web}\n');
    const changed = await file('c/web.yaml', 'kind: ConfigMap\nmetadata: {name: wab}\n');
    const digest = await digestOfInputs({ filenames: [one], recursive: false });
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await digestOfInputs({ filenames: [copy], recursive: false })).toBe(digest);
    expect(await digestOfInputs({ filenames: [changed], recursive: false })).not.toBe(digest);
  });

  it('tells apart files cut at another place, and files in another order', async () => {
    const a = await file('d/1.yaml', 'a');
    const bc = await file('d/2.yaml', 'bc');
    const ab = await file('e/1.yaml', 'ab');
    const c = await file('e/2.yaml', 'c');
    const split = await digestOfInputs({ filenames: [a, bc], recursive: false });
    expect(await digestOfInputs({ filenames: [ab, c], recursive: false })).not.toBe(split);
    expect(await digestOfInputs({ filenames: [bc, a], recursive: false })).not.toBe(split);
  });

  it('reads a directory as kubectl does: its manifest files, in order', async () => {
    await file('f/2.yaml', 'second');
    await file('f/1.yaml', 'first');
    await file('f/notes.txt', 'not read by kubectl');
    expect(await digestOfInputs({ filenames: [path.join(dir, 'f')], recursive: false })).toBe(
      await digestOfInputs({ filenames: [path.join(dir, 'f/1.yaml'), path.join(dir, 'f/2.yaml')], recursive: false }),
    );
  });
});
