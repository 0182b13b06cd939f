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
import { stat } from 'node:fs/promises';
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
import { oversizedInJson } from './json-size.js';
import { firstNonSpace, isBlank, linesOf, LongLine, LongValue, viewOf } from './lines.js';
import { PARSE_ABOVE_BYTES } from './quick-look.js';

/** A document up to this size is judged whole. */
const WHOLE_BYTES = 4 * 1024 * 1024;
/** A top-level key, or a batch of a big value's entries, is parsed alone up to about this size. */
const PART_BYTES = 1024 * 1024;

/** The objects of the file at `path` the API server would refuse for their size, read a line at a time. */
export async function oversizedInFile(path: string, origin: string): Promise<OversizedObject[]> {
  // A JSON file is one document (documents.ts); over WHOLE_BYTES it is read a byte at a time (json-size.ts).
  const size = (await stat(path)).size;
  if (size > WHOLE_BYTES && (await startsAsJson(path))) return oversizedInJson(path, origin, size);
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
    const view = viewOf(line);
    // A JSON file is one document (documents.ts).
    if (json === undefined && !isBlank(view)) json = view[firstNonSpace(view)] === 0x7b;
    if (!json && view[0] === 0x2d && view[1] === 0x2d && view[2] === 0x2d) {
      const rest = (line instanceof LongLine ? line.text() : line.toString('utf8')).slice(3).trim();
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

/** The file's first byte after whitespace (and a UTF-8 byte-order mark) is `{` (documents.ts: /^\s*\{/). */
async function startsAsJson(path: string): Promise<boolean> {
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    for (let index = 0; index < chunk.length; index++) {
      const b = chunk[index]!;
      if (b === 0x20 || (b >= 0x09 && b <= 0x0d) || b === 0xef || b === 0xbb || b === 0xbf) continue;
      return b === 0x7b;
    }
  }
  return false;
}

/** A line as text: a long one is read back from its file. */
function textOf(line: string | LongLine): string {
  return typeof line === 'string' ? line : line.text();
}

/** A line's start as text: a long line's head. */
function headOf(line: string | LongLine): string {
  return typeof line === 'string' ? line : line.head;
}

function bytesOf(line: string | LongLine): number {
  return typeof line === 'string' ? Buffer.byteLength(line) : line.length;
}

/** A top-level key of a big document: its lines while small, its entries in batches once big. */
interface Part {
  key: string;
  lines: Array<string | LongLine>;
  bytes: number;
  entries?: EntryBatches;
}

/** One document: kept whole while small, then judged part by part. */
class DocumentSizer {
  hasContent = false;
  private bytes = 0;
  private pending: Array<Buffer | LongLine> | undefined = [];
  private whole: Array<string | LongLine> | undefined = [];
  private wholeBytes = 0;
  private part: Part | undefined;
  private keys = 0;
  private head: Record<string, unknown> = {};
  private jsonBytes = 2;
  private data = { plain: 0, decoded: 0, other: 0 };
  private items: OversizedObject[] = [];
  private unreadable = false;

  constructor(private readonly json: boolean) {}

  add(raw: Buffer | LongLine): void {
    const bytes = raw.length + 1;
    this.bytes += bytes;
    if (!this.hasContent && !isBlank(viewOf(raw))) this.hasContent = true;
    // Under 1 MiB a document is never parsed (limits.ts): its lines stay bytes, not strings.
    if (this.pending) {
      this.pending.push(raw);
      if (this.bytes <= PARSE_ABOVE_BYTES) return;
      const kept = this.pending;
      this.pending = undefined;
      for (const line of kept) this.addText(line instanceof LongLine ? line : line.toString('utf8'));
      return;
    }
    this.addText(raw instanceof LongLine ? raw : raw.toString('utf8'));
  }

  private addText(line: string | LongLine): void {
    if (this.whole) {
      this.whole.push(line);
      this.wholeBytes += bytesOf(line) + 1;
      if (this.json || this.wholeBytes <= WHOLE_BYTES) return;
      // Too big to parse whole: its lines so far go part by part, and the rest as they come.
      const kept = this.whole;
      this.whole = undefined;
      for (const keptLine of kept) this.partLine(keptLine, bytesOf(keptLine) + 1);
      return;
    }
    this.partLine(line, bytesOf(line) + 1);
  }

  /** What the API server would refuse of this document (`where` is set by the caller). */
  verdict(): OversizedObject[] {
    if (this.bytes <= PARSE_ABOVE_BYTES) return [];
    if (this.whole) return oversizedInDocument(this.whole.map(textOf).join('\n'), this.json, '');
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

  private partLine(line: string | LongLine, bytes: number): void {
    if (this.unreadable) return;
    const head = headOf(line);
    // A top-level key starts a part; `...` ends a document's content; a top-level `- ` is no mapping.
    if (/^[^\s#]/.test(head) && !head.startsWith('...')) {
      this.closePart();
      if (head.startsWith('- ') || head === '-' || head.startsWith('[') || head.startsWith('{')) this.unreadable = true;
      this.part = { key: head, lines: [line], bytes };
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
    // A top-level `key: value` on one long line of a plain string is counted from its scan.
    const content = part.lines.filter((line) => !isBlankText(headOf(line)));
    const long = content.length === 1 && content[0] instanceof LongLine ? content[0].value : undefined;
    const value = long?.indent === 0 ? { [long.key]: long.value } : readYaml(part.lines.map(textOf).join('\n'));
    if (!isRecord(value)) {
      if (content.length > 0) this.unreadable = true;
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
      if (typeof value !== 'string' && !(value instanceof LongValue)) continue;
      // Decoded only where it counts: a ConfigMap's data is counted as it is written.
      if (field === 'data') {
        this.data.plain += plainBytes(value);
        if (this.head.kind !== 'ConfigMap') this.data.decoded += base64Bytes(value);
      } else this.data.other += field === 'binaryData' ? base64Bytes(value) : plainBytes(value);
    }
  }
}

/** A long line of a batch, and the indentation the batch cuts from its lines. */
interface Cut {
  long: LongLine;
  cut: number;
}

/** A big value's lines, cut into batches of whole entries (each entry starts at its first line's indentation). */
class EntryBatches {
  private indent: number | undefined;
  private batch: Array<string | Cut> = [];
  private bytes = 0;
  private first = true;

  constructor(private readonly onBatch: (values: unknown, first: boolean) => void) {}

  add(line: string | LongLine): void {
    const head = headOf(line);
    const trimmed = head.trim();
    const indent = head.length - head.trimStart().length;
    const content = trimmed !== '' && !trimmed.startsWith('#');
    if (this.indent === undefined && content) this.indent = indent;
    if (content && indent === this.indent && this.bytes > PART_BYTES) this.flush();
    const cut = Math.min(this.indent ?? 0, indent);
    this.batch.push(typeof line === 'string' ? line.slice(cut) : { long: line, cut });
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
    let values: unknown = plainEntries(lines);
    let text = '';
    if (values === undefined) {
      text = lines.map((line) => (typeof line === 'string' ? line : line.long.text().slice(line.cut))).join('\n');
      values = readYaml(text);
    }
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
function plainEntries(lines: ReadonlyArray<string | Cut>): Record<string, string | LongValue> | undefined {
  const entries: Record<string, string | LongValue> = {};
  for (const line of lines) {
    if (typeof line !== 'string') {
      // A long line: its scan says whether it is such a line (lines.ts), at this batch's indentation.
      const long = line.long.value;
      if (long?.indent !== line.cut) return undefined;
      entries[long.key] = long.value;
      continue;
    }
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
  if (value instanceof LongValue) return value.json;
  // A string with nothing to escape is its bytes and two quotes: no copy of a 50 MB value.
  if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) return Buffer.byteLength(value) + 2;
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/** What JSON.stringify escapes: quotes, backslashes, control characters, lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function plainBytes(value: string | LongValue): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : value.bytes;
}

function base64Bytes(value: string | LongValue): number {
  return typeof value === 'string' ? Buffer.from(value, 'base64').length : value.base64();
}

/** Blank or a comment, as text. */
function isBlankText(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof LongValue);
}
