// The inputs of a phased apply, cut into parts (phases.ts): every document kubectl would read is
// written, with its own bytes, into a private directory per part, one file per document in the
// input's order, so each part is one kubectl -f DIRECTORY that reads exactly its documents (kubectl
// reads a directory's .yaml and .json files in lexical order). An apply without phases is left
// alone: kubectl reads the user's files as they are.
import { mkdtemp, readFile, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { splitDocuments } from './documents.js';
import type { PreparedInputs } from './inputs.js';
import { manifestFiles } from './locate.js';
import { MAY_NEED_PHASES } from './quick-look.js';
import { planPhases, where, type PhaseName, type PlacedDocument } from './phases.js';

/** One part of a phased apply, as kubectl reads it. */
export interface PartFiles {
  phase: PhaseName;
  custom: boolean;
  /** The directory kubectl reads (`-f DIR`). */
  directory: string;
  /** What the user named each document ("crds.yaml (document 2)"), for the preview of a part kubectl cannot read yet. */
  documents: Array<{ where: string; kind?: string; name?: string }>;
}

export interface PhasedInputs {
  parts: PartFiles[];
  /** Private document file → where the user wrote it, for kubectl's messages. */
  origins: Map<string, string>;
  cleanup(): Promise<void>;
}

/** The parts of the inputs; undefined for one part. A run whose inputs mention neither a CRD nor a phase is not parsed at all (quick-look.ts). */
export async function phaseInputs(inputs: PreparedInputs): Promise<PhasedInputs | undefined> {
  const files = manifestFiles(inputs.filenames, inputs.recursive);
  const texts = await Promise.all(
    files.map(async (file) => ({ file, text: await readFile(file, 'utf8').catch(() => undefined) })),
  );
  // A file kubectl cannot read, or one whose separators it refuses, is kubectl's to report: no phases.
  if (texts.some(({ text }) => text === undefined) || !texts.some(({ text }) => MAY_NEED_PHASES.test(text!)))
    return undefined;
  const placed: PlacedDocument[] = [];
  for (const { file, text } of texts) {
    const documents = splitDocuments(text!);
    if (!documents) return undefined;
    const origin = inputs.origins.get(file) ?? file;
    for (const document of documents) placed.push({ origin, document });
  }
  const planned = planPhases(placed);
  if (!planned) return undefined;
  const root = await mkdtemp(path.join(tmpdir(), 'kguard-phases-'));
  const phased: PhasedInputs = {
    parts: [],
    origins: new Map(),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
  try {
    for (const [number, part] of planned.entries()) {
      const directory = path.join(root, `${number + 1}-${part.phase}${part.custom ? '-custom' : ''}`);
      await mkdir(directory, { mode: 0o700 });
      for (const [position, document] of part.documents.entries()) {
        const file = path.join(
          directory,
          `${String(position + 1).padStart(6, '0')}.${document.document.json ? 'json' : 'yaml'}`,
        );
        await writeFile(file, document.document.text, { mode: 0o600 });
        phased.origins.set(file, where(document));
      }
      phased.parts.push({
        phase: part.phase,
        custom: part.custom,
        directory,
        documents: part.documents.map((document) => ({
          where: where(document),
          kind: document.document.head?.kind,
          name: document.document.head?.name,
        })),
      });
    }
    return phased;
  } catch (error) {
    await phased.cleanup();
    throw error;
  }
}
