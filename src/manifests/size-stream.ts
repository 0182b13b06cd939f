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
  for await (const line of linesOf(path)) {
    // A JSON file is one document (documents.ts).
    if (json === undefined && !isBlank(line)) json = line[firstNonSpace(line)] === 0x7b;
    if (!json && line[0] === 0x2d && line[1] === 0x2d && line[2] === 0x2d) {
      const rest = line.subarray(3).toString('utf8').trim();
      end();
      current = new DocumentSizer(false);
      if (rest !== '' && !rest.startsWith('#')) current.add(Buffer.from(rest));
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

/** The file's lines as bytes, without their line ends: a document under 1 MiB is never decoded. */
async function* linesOf(path: string): AsyncGenerator<Buffer> {
  // A line longer than a chunk is gathered in pieces and joined once (a 50 MB value is one line).
  let pieces: Buffer[] = [];
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      const line = pieces.length > 0 ? Buffer.concat([...pieces, piece]) : piece;
      pieces = [];
      yield line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line;
      start = end + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
  }
  if (pieces.length > 0) yield Buffer.concat(pieces);
}

function firstNonSpace(line: Buffer): number {
  let index = 0;
  while (index < line.length && (line[index] === 0x20 || line[index] === 0x09)) index++;
  return index;
}

/** Blank or a comment: no content (documents.ts hasContent). */
function isBlank(line: Buffer): boolean {
  const first = firstNonSpace(line);
  return first === line.length || line[first] === 0x23;
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
  private pending: Buffer[] | undefined = [];
  private whole: string[] | undefined = [];
  private wholeBytes = 0;
  private part: Part | undefined;
  private keys = 0;
  private head: Record<string, unknown> = {};
  private jsonBytes = 2;
  private data = { plain: 0, decoded: 0, other: 0 };
  private items: OversizedObject[] = [];
  private unreadable = false;

  constructor(private readonly json: boolean) {}

  add(raw: Buffer): void {
    const bytes = raw.length + 1;
    this.bytes += bytes;
    if (!this.hasContent && !isBlank(raw)) this.hasContent = true;
    // Under 1 MiB a document is never parsed (limits.ts): its lines stay bytes, not strings.
    if (this.pending) {
      this.pending.push(raw);
      if (this.bytes <= PARSE_ABOVE_BYTES) return;
      const kept = this.pending;
      this.pending = undefined;
      for (const line of kept) this.addText(line.toString('utf8'));
      return;
    }
    this.addText(raw.toString('utf8'));
  }

  private addText(line: string): void {
    if (this.whole) {
      this.whole.push(line);
      this.wholeBytes += Buffer.byteLength(line) + 1;
      if (this.json || this.wholeBytes <= WHOLE_BYTES) return;
      // Too big to parse whole: its lines so far go part by part, and the rest as they come.
      const kept = this.whole;
      this.whole = undefined;
      for (const keptLine of kept) this.partLine(keptLine, Buffer.byteLength(keptLine) + 1);
      return;
    }
    this.partLine(line, Buffer.byteLength(line) + 1);
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
      values.forEach((value, index) => {
        this.jsonBytes += (first && index === 0 ? 0 : 1) + jsonBytes(value);
      });
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
    const lines = this.batch;
    this.batch = [];
    this.bytes = 0;
    // `key: value` lines of plain strings (a ConfigMap's data, mostly) are read without the YAML parser.
    const values = plainEntries(lines) ?? readYaml(lines.join('\n'));
    const text = values === undefined ? lines.join('\n') : '';
    if (values === undefined && !/\S/.test(text.replace(/^\s*#.*$/gm, ''))) return;
    this.onBatch(values, this.first);
    this.first = false;
  }
}

/**
 * `key: value` lines whose values YAML's core schema reads as plain strings, as YAML would read
 * them; undefined when any line is more than that (quotes, flow, block scalars, comments, anchors,
 * tags, or a value that would be a number, a boolean or null).
 */
function plainEntries(lines: readonly string[]): Record<string, string> | undefined {
  const entries: Record<string, string> = {};
  for (const line of lines) {
    if (line.trim() === '') continue;
    const match = PLAIN_ENTRY.exec(line);
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (NOT_A_STRING.test(value) || value.includes(': ') || value.includes(' #') || value.endsWith(':'))
      return undefined;
    entries[key] = value;
  }
  return entries;
}

/** A key of letters, digits and . _ / -; a value that starts as no YAML indicator does. */
const PLAIN_ENTRY = /^([A-Za-z0-9._/-]+): ([^\s!&*|>'"%@`{}[\],#?:-][^\t]*?|-[^\s\t][^\t]*?) *$/;
/** YAML 1.2 core schema: what a plain scalar resolves to other than a string (yaml's core tags). */
const NOT_A_STRING =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function readYaml(text: string): unknown {
  try {
    return parse(text, { uniqueKeys: false });
  } catch {
    return undefined;
  }
}

function jsonBytes(value: unknown): number {
  // A string with nothing to escape is its bytes and two quotes: no copy of a 50 MB value.
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) return Buffer.byteLength(value) + 2;
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/** What JSON.stringify escapes: quotes, backslashes, control characters, lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
