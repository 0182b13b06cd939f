import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { loadManifests, type LoadDeps } from '../../src/manifests/load.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-load-'));
  await mkdir(join(dir, 'k8s', 'nested'), { recursive: true });
  await writeFile(join(dir, 'k8s', 'b.yaml'), 'b');
  await writeFile(join(dir, 'k8s', 'a.json'), 'a');
  await writeFile(join(dir, 'k8s', 'README.md'), 'not a manifest');
  await writeFile(join(dir, 'k8s', 'nested', 'c.yml'), 'c');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const deps = (overrides: Partial<LoadDeps> = {}): LoadDeps => ({
  readStdin: async () => 'from stdin',
  kustomize: async (directory) => `rendered ${directory}`,
  fetchUrl: async (url) => `fetched ${url}`,
  ...overrides,
});

describe('loadManifests', () => {
  it('reads .yaml, .yml and .json files of a directory in name order, like kubectl', async () => {
    const sources = await loadManifests({ filenames: [join(dir, 'k8s')], recursive: false }, deps());
    expect(sources.map((source) => source.text)).toEqual(['a', 'b']);
  });

  it('descends into subdirectories only with -R', async () => {
    const sources = await loadManifests({ filenames: [join(dir, 'k8s')], recursive: true }, deps());
    expect(sources.map((source) => source.text)).toEqual(['a', 'b', 'c']);
  });

  it('reads stdin, URLs and files in the order given', async () => {
    const sources = await loadManifests(
      { filenames: ['-', 'https://example.com/app.yaml', join(dir, 'k8s', 'b.yaml')], recursive: false },
      deps(),
    );
    expect(sources.map((source) => [source.origin, source.text])).toEqual([
      ['stdin', 'from stdin'],
      ['https://example.com/app.yaml', 'fetched https://example.com/app.yaml'],
      [join(dir, 'k8s', 'b.yaml'), 'b'],
    ]);
  });

  it('renders -k with kubectl kustomize', async () => {
    const sources = await loadManifests({ filenames: [], recursive: false, kustomize: dir }, deps());
    expect(sources).toEqual([{ origin: `kustomize ${dir}`, text: `rendered ${dir}` }]);
  });

  it('refuses -f with -k, stdin twice, and no input at all', async () => {
    await expect(loadManifests({ filenames: ['x.yaml'], recursive: false, kustomize: dir }, deps())).rejects.toThrow(/cannot be used together/);
    await expect(loadManifests({ filenames: ['-', '-'], recursive: false }, deps())).rejects.toThrow(/only once/);
    await expect(loadManifests({ filenames: [], recursive: false }, deps())).rejects.toBeInstanceOf(InputError);
  });

  it('says when a directory holds no manifests, suggesting -R', async () => {
    await expect(loadManifests({ filenames: [join(dir, 'k8s', 'nested', '..', '..')], recursive: false }, deps())).rejects.toThrow(
      /holds no .yaml, .yml or .json files \(add -R/,
    );
  });
});
