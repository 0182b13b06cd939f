// The bytes checked are the bytes applied: every input is read or rendered once, here, and the
// dry runs and the apply all read the same copy. Files and directories are passed to kubectl as
// they are (kubectl reads them, with its own rules for directories and -R); stdin, URLs and
// kustomize output are written once to a private temporary directory and passed by path.
import { createHash, type Hash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';
import type { ManifestInput } from '../model/options.js';
import { oversizedInFile } from './size-stream.js';
import { manifestFiles } from './locate.js';

export interface InputDeps {
  readStdin(): Promise<Uint8Array>;
  kustomize(directory: string): Promise<string>;
  download(url: string): Promise<Uint8Array>;
  /**
   * Reads every file kubectl will read (the user's, and the private copies of stdin, URLs and
   * kustomize output) for their Secret values, after refuseOversized let them through and before
   * kubectl reads them (the caller's redactor learns them).
   */
  learnFiles?(inputs: Pick<PreparedInputs, 'filenames' | 'recursive'>): Promise<void>;
}

export interface PreparedInputs {
  /** What kubectl reads, in the user's order: the user's paths, or private copies. */
  filenames: string[];
  recursive: boolean;
  /** Private copy → what the user named ("stdin", the URL, "kustomize DIR"), for messages. */
  origins: Map<string, string>;
  /** Removes the private copies. */
  cleanup(): Promise<void>;
}

export async function prepareInputs(input: ManifestInput, deps: InputDeps): Promise<PreparedInputs> {
  if (input.kustomize !== undefined && input.filenames.length > 0) {
    throw new InputError('-f and -k cannot be used together (kubectl apply refuses it). Pass one of them.');
  }
  if (input.kustomize === undefined && input.filenames.length === 0) {
    throw new InputError('no manifests given: pass -f FILE|DIR|URL|- (repeatable) or -k DIR.');
  }
  if (input.filenames.filter((name) => name === '-').length > 1) {
    throw new InputError('-f - (stdin) can be given only once.');
  }
  const directory = await mkdtemp(path.join(tmpdir(), 'kguard-input-'));
  const prepared: PreparedInputs = {
    filenames: [],
    recursive: input.recursive,
    origins: new Map(),
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
  const keep = async (origin: string, bytes: Uint8Array | string, extension: string) => {
    const file = path.join(directory, `input-${prepared.filenames.length + 1}${extension}`);
    await writeFile(file, bytes, { mode: 0o600 });
    prepared.filenames.push(file);
    prepared.origins.set(file, origin);
  };
  try {
    if (input.kustomize !== undefined) {
      await requireExisting(input.kustomize, '-k');
      await keep(`kustomize ${input.kustomize}`, await deps.kustomize(input.kustomize), '.yaml');
      return prepared;
    }
    for (const filename of input.filenames) {
      if (filename === '-') await keep('stdin', await deps.readStdin(), '.yaml');
      else if (/^https?:\/\//i.test(filename))
        await keep(filename, await deps.download(filename), urlExtension(filename));
      else {
        await requireExisting(filename, '-f');
        prepared.filenames.push(filename);
      }
    }
    return prepared;
  } catch (error) {
    await prepared.cleanup();
    throw error;
  }
}

/** kubectl picks a decoder by content, not by name; keep .json for JSON URLs all the same. */
function urlExtension(url: string): string {
  return /\.json(\?|#|$)/i.test(url) ? '.json' : '.yaml';
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

/** kubectl's messages name the private copies; say what the user named instead. */
export function withOrigins(text: string, origins: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [file, origin] of origins) out = out.split(file).join(origin);
  return out;
}

/**
 * Refuses, before any kubectl call, an input with an object the API server would refuse for its
 * size (limits.ts): kubectl would spend its dry runs on it first. Files kubectl reads are read here
 * once more; only documents over 1 MiB are parsed.
 */
export async function refuseOversized(
  inputs: Pick<PreparedInputs, 'filenames' | 'recursive' | 'origins'>,
): Promise<void> {
  const files = manifestFiles(inputs.filenames, inputs.recursive);
  const found = (
    await Promise.all(
      // Read a line at a time, a big document a part at a time (size-stream.ts): bounded memory for any input.
      files.map((file) => oversizedInFile(file, inputs.origins.get(file) ?? file).catch(() => [])),
    )
  ).flat();
  if (found.length === 0) return;
  const lines = found.map(
    (object) =>
      `${object.kind && object.name ? `${object.kind.toLowerCase()}/${object.name} in ` : ''}${object.where}: ${object.problem}`,
  );
  throw new InputError(
    `the API server would refuse ${found.length === 1 ? 'an object' : `${found.length} objects`} of this apply for its size (pkg/apis/core/validation, MaxRequestBodyBytes):\n  ${lines.join('\n  ')}\nNext: split the data (several ConfigMaps or Secrets), or ship it another way (a volume, an image); nothing was applied and kubectl was not called.`,
  );
}

/**
 * sha256 of the bytes kubectl reads, file by file in its order (each prefixed by its length): the
 * run's history names its inputs by it. The same manifests give the same digest wherever they
 * were read from (a file, a URL, stdin, kustomize's output); a file's name does not count.
 */
export async function digestOfInputs(inputs: Pick<PreparedInputs, 'filenames' | 'recursive'>): Promise<string> {
  const hash = createHash('sha256');
  for (const file of manifestFiles(inputs.filenames, inputs.recursive)) addFile(hash, await readFile(file));
  return `sha256:${hash.digest('hex')}`;
}

/** The digest of files' bytes, as digestOfInputs takes it. */
export function digestOf(files: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const bytes of files) addFile(hash, bytes);
  return `sha256:${hash.digest('hex')}`;
}

function addFile(hash: Hash, bytes: Uint8Array): void {
  hash.update(`${bytes.length}:`);
  hash.update(bytes);
}
