// Reads the manifests named on the command line the way kubectl apply will read them, so kguard
// knows which workloads are in play before anything is applied.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { ManifestSource } from './parse.js';

export interface ManifestInput {
  /** -f values as typed: paths, directories, URLs, or "-" for stdin. */
  filenames: readonly string[];
  recursive: boolean;
  /** -k directory, rendered by `kubectl kustomize`. */
  kustomize?: string;
}

export interface LoadDeps {
  readStdin(): Promise<string>;
  kustomize(directory: string): Promise<string>;
  fetchUrl(url: string): Promise<string>;
}

// kubectl's resource builder only reads these extensions from a directory.
const MANIFEST_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

export async function loadManifests(input: ManifestInput, deps: LoadDeps): Promise<ManifestSource[]> {
  if (input.kustomize !== undefined) {
    if (input.filenames.length > 0) {
      throw new InputError('-f and -k cannot be used together (kubectl apply refuses it). Pass one of them.');
    }
    await requireExisting(input.kustomize, '-k');
    return [{ origin: `kustomize ${input.kustomize}`, text: await deps.kustomize(input.kustomize) }];
  }
  if (input.filenames.length === 0) {
    throw new InputError('no manifests given: pass -f FILE|DIR|URL|- (repeatable) or -k DIR.');
  }
  if (input.filenames.filter((name) => name === '-').length > 1) {
    throw new InputError('-f - (stdin) can be given only once.');
  }
  const sources: ManifestSource[] = [];
  for (const filename of input.filenames) {
    if (filename === '-') sources.push({ origin: 'stdin', text: await deps.readStdin() });
    else if (/^https?:\/\//.test(filename)) sources.push({ origin: filename, text: await deps.fetchUrl(filename) });
    else sources.push(...(await readPath(filename, input.recursive)));
  }
  return sources;
}

async function readPath(filename: string, recursive: boolean): Promise<ManifestSource[]> {
  const info = await requireExisting(filename, '-f');
  if (!info.isDirectory()) return [{ origin: filename, text: await readFile(filename, 'utf8') }];
  const files = await manifestFilesIn(filename, recursive);
  if (files.length === 0) {
    throw new InputError(
      `-f ${filename}: the directory holds no .yaml, .yml or .json files${recursive ? '' : ' (add -R to read subdirectories)'}. ` +
        'Point -f at your manifests; nothing was applied.',
    );
  }
  return Promise.all(files.map(async (file) => ({ origin: file, text: await readFile(file, 'utf8') })));
}

async function manifestFilesIn(directory: string, recursive: boolean): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (recursive) files.push(...(await manifestFilesIn(full, recursive)));
    } else if (MANIFEST_EXTENSIONS.has(path.extname(entry.name))) {
      files.push(full);
    }
  }
  return files;
}

async function requireExisting(filename: string, flag: string) {
  try {
    return await stat(filename);
  } catch {
    throw new InputError(
      `${flag} ${filename}: no such file or directory. Check the path (relative paths start at ${process.cwd()}); nothing was applied.`,
    );
  }
}
