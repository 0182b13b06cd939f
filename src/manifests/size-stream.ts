// The size check of one manifest file, streamed (#45): the whole-file check cost a 50 MB manifest
// 2 GB of memory and a minute (the YAML parser's nodes for 500,000 keys): an OOM kill on a 2 GB CI
// runner. The file is read a line at a time and cut into documents at `---` lines, as documents.ts
// cuts them. A document up to WHOLE_BYTES is judged whole (limits.ts); a bigger YAML document a
// part at a time: each top-level key alone, and a top-level value over PART_BYTES (a ConfigMap's
// data, a List's items) in batches of whole entries of about PART_BYTES each. The sizes add up as
// JSON.stringify's would ('{' + '"key":value' joined by ',' + '}'), and a List's items are judged
// one by one, so the verdict is the whole parse's at the memory of one batch. A part YAML cannot
// read alone (an alias to an anchor elsewhere, a flow collection over several lines) leaves that
// document to its text's size, as limits.ts does with a document it cannot read.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import {
  dataProblem,
  MAX_DATA_BYTES,
  MAX_REQUEST_BODY_BYTES,
  objectProblems,
  oversizedInDocument,
  requestProblem,
  type OversizedObject,
} from './limits.js';
import { PARSE_ABOVE_BYTES } from './quick-look.js';

/** A document up to this size is judged whole. */
const WHOLE_BYTES = 4 * 1024 * 1024;
/** A top-level key, or a batch of a big value's entries, is parsed alone up to about this size. */
const PART_BYTES = 1024 * 1024;

/** The objects of the file at `path` the API server would refuse for their size, read a line at a time. */
export async function oversizedInFile(path: string, origin: string): Promise<OversizedObject[]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  const found: Array<{ index: number; problems: OversizedObject[] }> = [];
  let documents = 0;
  let json: boolean | undefined;
  let current: DocumentSizer | undefined;
  const end = () => {
    if (!current?.hasContent) return;
    documents += 1;
    const problems = current.verdict();
    if (problems.length > 0) found.push({ index: documents, problems });
  };
  for await (const line of lines) {
    // A JSON file is one document (documents.ts).
    if (json === undefined && line.trim() !== '') json = line.trimStart().startsWith('{');
    if (!json && line.startsWith('---')) {
      const rest = line.slice(3).trim();
      end();
      current = new DocumentSizer(false);
      if (rest !== '' && !rest.startsWith('#')) current.add(rest);
      continue;
    }
    current ??= new DocumentSizer(json === true);
    current.add(line);
  }
  end();
  return found.flatMap(({ index, problems }) =>
    problems.map((problem) => ({ ...problem, where: documents > 1 ? `${origin} (document ${index})` : origin })),
  );
}

/** A top-level key of a big document: its lines while small, its entries in batches once big. */
interface Part {
  key: string;
  lines: string[];
  bytes: number;
  entries?: EntryBatches;
}

/** One document: kept whole while small, then judged part by part. */
class DocumentSizer {
  hasContent = false;
  private bytes = 0;
  private whole: string[] | undefined = [];
  private part: Part | undefined;
  private keys = 0;
  private head: Record<string, unknown> = {};
  private jsonBytes = 2;
  private data = { plain: 0, decoded: 0, other: 0 };
  private items: OversizedObject[] = [];
  private unreadable = false;

  constructor(private readonly json: boolean) {}

  add(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    this.bytes += bytes;
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) this.hasContent = true;
    if (this.whole) {
      this.whole.push(line);
      if (this.json || this.bytes <= WHOLE_BYTES) return;
      // Too big to parse whole: its lines so far go part by part, and the rest as they come.
      const kept = this.whole;
      this.whole = undefined;
      for (const keptLine of kept) this.partLine(keptLine, Buffer.byteLength(keptLine) + 1);
      return;
    }
    this.partLine(line, bytes);
  }

  /** What the API server would refuse of this document (`where` is set by the caller). */
  verdict(): OversizedObject[] {
    if (this.bytes <= PARSE_ABOVE_BYTES) return [];
    if (this.whole) return oversizedInDocument(this.whole.join('\n'), this.json, '');
    this.closePart();
    if (this.unreadable)
      return this.bytes > 3 * MAX_REQUEST_BODY_BYTES
        ? [{ where: '', problem: requestProblem(this.bytes, 'its text alone is') }]
        : [];
    const metadata = isRecord(this.head.metadata) ? this.head.metadata : {};
    const named = {
      where: '',
      kind: typeof this.head.kind === 'string' ? this.head.kind : undefined,
      name: typeof metadata.name === 'string' ? metadata.name : undefined,
    };
    // A List is its items, each judged alone (limits.ts objectsOf).
    if (named.kind?.endsWith('List')) return this.items;
    if (this.head.apiVersion === 'v1' && (named.kind === 'ConfigMap' || named.kind === 'Secret')) {
      // ConfigMap: data plain and binaryData decoded; Secret: data decoded and stringData plain (limits.ts).
      const data = (named.kind === 'Secret' ? this.data.decoded : this.data.plain) + this.data.other;
      if (data > MAX_DATA_BYTES) return [{ ...named, problem: dataProblem(data, named.kind) }];
    }
    return this.jsonBytes > MAX_REQUEST_BODY_BYTES
      ? [{ ...named, problem: requestProblem(this.jsonBytes, 'as JSON it is') }]
      : [];
  }

  private partLine(line: string, bytes: number): void {
    if (this.unreadable) return;
    // A top-level key starts a part; `...` ends a document's content; a top-level `- ` is no mapping.
    if (/^[^\s#]/.test(line) && !line.startsWith('...')) {
      this.closePart();
      if (line.startsWith('- ') || line === '-' || line.startsWith('[') || line.startsWith('{')) this.unreadable = true;
      this.part = { key: line, lines: [line], bytes };
      return;
    }
    const part = this.part;
    if (!part) return;
    part.bytes += bytes;
    if (part.entries) {
      part.entries.add(line);
      return;
    }
    part.lines.push(line);
    // A big value under a bare `key:` goes in batches of its entries.
    const key = /^([^\s:#'"]+):\s*(#.*)?$/.exec(part.key)?.[1];
    if (part.bytes > PART_BYTES && key !== undefined) {
      part.entries = new EntryBatches((values, first) => this.countEntries(key, values, first));
      for (const child of part.lines.slice(1)) part.entries.add(child);
      part.lines = [];
    }
  }

  private closePart(): void {
    const part = this.part;
    this.part = undefined;
    if (!part || this.unreadable) return;
    if (part.entries) {
      part.entries.end();
      // The big value's closing bracket or brace.
      this.jsonBytes += 1;
      return;
    }
    const value = readYaml(part.lines.join('\n'));
    if (!isRecord(value)) {
      if (part.lines.some((line) => line.trim() !== '' && !line.trim().startsWith('#'))) this.unreadable = true;
      return;
    }
    for (const [key, inner] of Object.entries(value)) this.countKey(key, inner);
  }

  private countKey(key: string, value: unknown): void {
    this.jsonBytes += (this.keys > 0 ? 1 : 0) + jsonBytes(key) + 1 + jsonBytes(value);
    this.keys += 1;
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') this.head[key] = value;
    if (key === 'data' || key === 'binaryData' || key === 'stringData') this.countData(key, value);
    if (key === 'items' && Array.isArray(value)) this.countItems(value);
  }

  /** A batch of a big value's entries: a mapping's keys, or a sequence's items. */
  private countEntries(key: string, values: unknown, first: boolean): void {
    if (first) {
      this.jsonBytes += (this.keys > 0 ? 1 : 0) + jsonBytes(key) + 1 + 1;
      this.keys += 1;
    }
    if (Array.isArray(values)) {
      values.forEach((value, index) => (this.jsonBytes += (first && index === 0 ? 0 : 1) + jsonBytes(value)));
      if (key === 'items') this.countItems(values);
      return;
    }
    if (!isRecord(values)) {
      this.unreadable = true;
      return;
    }
    Object.entries(values).forEach(([name, value], index) => {
      this.jsonBytes += (first && index === 0 ? 0 : 1) + jsonBytes(name) + 1 + jsonBytes(value);
    });
    if (key === 'data' || key === 'binaryData' || key === 'stringData') this.countData(key, values);
    // Metadata over a megabyte (annotations): its name is all the verdict needs of it.
    if (key === 'metadata' && typeof values.name === 'string') this.head.metadata = { name: values.name };
  }

  private countItems(items: readonly unknown[]): void {
    for (const item of items) if (isRecord(item)) this.items.push(...objectProblems(item, ''));
  }

  private countData(field: string, values: unknown): void {
    if (!isRecord(values)) return;
    for (const value of Object.values(values)) {
      if (typeof value !== 'string') continue;
      // Decoded only where it counts: a ConfigMap's data is counted as it is written.
      if (field === 'data') {
        this.data.plain += Buffer.byteLength(value);
        if (this.head.kind !== 'ConfigMap') this.data.decoded += Buffer.from(value, 'base64').length;
      } else this.data.other += field === 'binaryData' ? Buffer.from(value, 'base64').length : Buffer.byteLength(value);
    }
  }
}

/** A big value's lines, cut into batches of whole entries (each entry starts at its first line's indentation). */
class EntryBatches {
  private indent: number | undefined;
  private batch: string[] = [];
  private bytes = 0;
  private first = true;

  constructor(private readonly onBatch: (values: unknown, first: boolean) => void) {}

  add(line: string): void {
    const trimmed = line.trim();
    const indent = line.length - line.trimStart().length;
    const content = trimmed !== '' && !trimmed.startsWith('#');
    if (this.indent === undefined && content) this.indent = indent;
    if (content && indent === this.indent && this.bytes > PART_BYTES) this.flush();
    this.batch.push(line.slice(Math.min(this.indent ?? 0, indent)));
    this.bytes += line.length + 1;
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const text = this.batch.join('\n');
    this.batch = [];
    this.bytes = 0;
    const values = readYaml(text);
    if (values === undefined && !/\S/.test(text.replace(/^\s*#.*$/gm, ''))) return;
    this.onBatch(values, this.first);
    this.first = false;
  }
}

function readYaml(text: string): unknown {
  try {
    return parse(text, { uniqueKeys: false });
  } catch {
    return undefined;
  }
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
