// Where an object is written down: the manifest file and line of its document, so a CI annotation
// can point at it. A best-effort scan of the -f files the user named, only ever used for pointing:
// what the apply holds is kubectl's reading (understand.ts), never this scan. Objects read from
// stdin, URLs or kustomize output have no file in the repository and are not located.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import type { ObjectRef } from '../objects/model.js';

export interface ManifestLocation {
  file: string;
  /** 1-based, the first line of the object's document. */
  line: number;
}

interface WrittenObject {
  kind: string;
  name: string;
  /** As written; absent when the manifest leaves it to -n or the kubeconfig. */
  namespace?: string;
  line: number;
}

/** The objects a manifest text declares, with the line each starts on (List items included). Pure. */
export function objectsWritten(text: string): WrittenObject[] {
  const lineCounter = new LineCounter();
  const found: WrittenObject[] = [];
  for (const document of parseAllDocuments(text, { lineCounter, uniqueKeys: false })) {
    if (document.errors.length > 0 || !document.contents) continue;
    const start = document.contents.range?.[0] ?? 0;
    const value: unknown = document.toJS();
    const items = isObject(value) && value.kind === 'List' && Array.isArray(value.items) ? value.items : [value];
    for (const item of items) {
      if (
        !isObject(item) ||
        typeof item.kind !== 'string' ||
        !isObject(item.metadata) ||
        typeof item.metadata.name !== 'string'
      )
        continue;
      const namespace = typeof item.metadata.namespace === 'string' ? item.metadata.namespace : undefined;
      found.push({ kind: item.kind, name: item.metadata.name, namespace, line: lineCounter.linePos(start).line });
    }
  }
  return found;
}

/**
 * A lookup from an object to where it is written, over the -f paths as kubectl reads them (a
 * directory's .json, .yaml and .yml files; subdirectories with -R). The files are read at the
 * first lookup, so a run that needs no annotation reads nothing. Paths are shown relative to
 * `base` (the workspace) when they are inside it.
 */
export function manifestLocator(
  filenames: readonly string[],
  recursive: boolean,
  base: string,
): (ref: ObjectRef) => ManifestLocation | undefined {
  let index: Array<WrittenObject & { file: string }> | undefined;
  const build = () => {
    const entries: Array<WrittenObject & { file: string }> = [];
    for (const file of manifestFiles(filenames, recursive)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const shown = path.relative(base, path.resolve(file));
      const display = shown.startsWith('..') || path.isAbsolute(shown) ? path.resolve(file) : shown;
      for (const object of objectsWritten(text)) entries.push({ ...object, file: display });
    }
    return entries;
  };
  return (ref) => {
    index ??= build();
    const candidates = index.filter((object) => object.kind === ref.kind && object.name === ref.name);
    // A namespace written in the manifest must match; one left out matches whatever -n resolved.
    const match =
      candidates.find((object) => object.namespace === ref.namespace) ??
      candidates.find((object) => object.namespace === undefined);
    return match ? { file: match.file, line: match.line } : undefined;
  };
}

/**
 * The files kubectl reads for these -f paths, in its order (cli-runtime resource/visitor.go,
 * ExpandPathsToFileVisitors: filepath.Walk in lexical order; a path named directly is read
 * whatever its extension, a directory's files only when they end in .json, .yaml or .yml, its
 * subdirectories only with -R). Stdin and URLs are not files.
 */
export function manifestFiles(filenames: readonly string[], recursive: boolean): string[] {
  const files: string[] = [];
  const visit = (file: string, top: boolean) => {
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(file);
    } catch {
      return;
    }
    if (info.isDirectory()) {
      if (!top && !recursive) return;
      let entries: string[] = [];
      try {
        entries = readdirSync(file).sort();
      } catch {
        return;
      }
      for (const entry of entries) visit(path.join(file, entry), false);
      return;
    }
    if (top || /\.(json|ya?ml)$/.test(file)) files.push(file);
  };
  for (const file of filenames) if (file !== '-' && !/^https?:\/\//i.test(file)) visit(file, true);
  return files;
}

function isObject(value: unknown): value is Record<string, unknown> & { metadata?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
