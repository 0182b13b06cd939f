// The size check of a JSON manifest over 4 MiB, streamed (#45): JSON.parse of a 50 MB file, its
// lines, their join and JSON.stringify of the result held the text four times over (212 MiB for one
// 50 MB value, 356 MiB for 500,000 keys). Here the bytes are read once, as they stream, and only
// what limits.ts looks at is kept: each object's size as JSON.stringify would write it (no spaces,
// its own escapes), its apiVersion, kind and metadata.name, and its data's sizes (as text and
// base64-decoded). The object is the document, or each item of a List (limits.ts objectsOf).
// A key written twice in one object is counted twice (JSON.parse keeps the last): kubectl's strict
// decoding refuses such a manifest anyway. A text JSON.parse would refuse is left to its size, as
// limits.ts does.
import { createReadStream } from 'node:fs';
import { dataProblem, MAX_DATA_BYTES, MAX_REQUEST_BODY_BYTES, requestProblem, type OversizedObject } from './limits.js';

/** A string kept as text up to this length (apiVersion, kind, a name, a key); longer ones only counted. */
const KEPT_CHARS = 1024;
const DATA_FIELDS = new Set(['data', 'binaryData', 'stringData']);
/** Base64's alphabet (letters, digits, + / - _): such a run inside a string is counted at once. */
const ALPHABET_RUN = /^[A-Za-z0-9+/_-]*$/;
/** What continues a number or true, false, null. */
const LITERAL_BYTE = /[-+.0-9a-zA-Z]/;

/** An object judged alone: the document, or a List's item. */
interface Judged {
  start: number;
  head: { apiVersion?: string; kind?: string; name?: string };
  data: Record<string, { plain: number; decoded: number }>;
  /** It has an `items` array (a List's, if its kind says so). */
  hasItems: boolean;
  items: OversizedObject[];
}

interface Frame {
  array: boolean;
  /** Entries so far (for the commas). */
  count: number;
  /** The key whose value comes next (objects), when short enough to keep. */
  key: string | undefined;
  /** The object judged alone that this one is. */
  judged?: Judged;
  /** What this container is to the judged object around it. */
  role?: 'metadata' | 'data' | 'items';
  field?: string;
  owner?: Judged;
}

/** A string as it streams: its text while short, and its sizes. */
class JsonString {
  text = '';
  kept = true;
  /** UTF-8 bytes of the decoded string (Buffer.byteLength). */
  utf8 = 0;
  /** Bytes of JSON.stringify(string), quotes included. */
  json = 2;
  /** base64 characters before the first `=` (Buffer.from(value, 'base64') skips the others). */
  base64 = 0;
  private padded = false;
  /** A high surrogate waiting for its low one. */
  private high = false;

  /** One UTF-16 code unit, from an ASCII byte or a `\\` escape. */
  unit(code: number): void {
    this.keep(String.fromCharCode(code));
    if (code >= 0xdc00 && code <= 0xdfff && this.high) {
      // A pair: four bytes in UTF-8 and in JSON.
      this.high = false;
      this.utf8 += 4;
      this.json += 4;
      return;
    }
    this.settleHigh();
    if (code >= 0xd800 && code <= 0xdbff) {
      this.high = true;
      return;
    }
    if (code >= 0xdc00 && code <= 0xdfff) {
      this.utf8 += 3;
      this.json += 6;
      return;
    }
    const bytes = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    this.utf8 += bytes;
    this.json += code === 0x22 || code === 0x5c || ESCAPED_CONTROLS.has(code) ? 2 : code < 0x20 ? 6 : bytes;
    if (code === 0x3d) this.padded = true;
    else if (!this.padded && isBase64(code)) this.base64 += 1;
  }

  /** A character written in UTF-8 in the file: as many bytes in the value and in JSON. */
  utf8Char(bytes: Buffer): void {
    this.settleHigh();
    this.keep(bytes.toString('utf8'));
    this.utf8 += bytes.length;
    this.json += bytes.length;
  }

  /** A run of base64's alphabet (most of a big value): each byte one character, one byte in JSON. */
  run(text: string): void {
    this.settleHigh();
    this.keep(text);
    this.utf8 += text.length;
    this.json += text.length;
    if (!this.padded) this.base64 += text.length;
  }

  private keep(text: string): void {
    if (!this.kept) return;
    if (this.text.length + text.length > KEPT_CHARS) {
      this.kept = false;
      this.text = '';
    } else this.text += text;
  }

  end(): void {
    this.settleHigh();
  }

  /** The bytes Buffer.from(value, 'base64') gives: 3 for every 4 characters of its alphabet. */
  decoded(): number {
    return Math.floor((this.base64 * 3) / 4);
  }

  private settleHigh(): void {
    if (!this.high) return;
    // A lone surrogate: U+FFFD in UTF-8, `\udXXX` in JSON (well-formed JSON.stringify).
    this.high = false;
    this.utf8 += 3;
    this.json += 6;
  }
}

/** `\b \t \n \f \r`: JSON.stringify writes these in two characters, other controls in six. */
const ESCAPED_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

function isBase64(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x2d ||
    code === 0x5f
  );
}

/** The objects of the JSON file at `path` the API server would refuse for their size. */
export async function oversizedInJson(path: string, where: string, bytes: number): Promise<OversizedObject[]> {
  const sizer = new JsonSizer();
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>)
      sizer.add(chunk);
    return sizer.end(where);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // Not readable: kubectl's to say why. Its size alone still goes over the request limit (limits.ts).
    return bytes > 3 * MAX_REQUEST_BODY_BYTES ? [{ where, problem: requestProblem(bytes, 'its text alone is') }] : [];
  }
}

class JsonSizer {
  /** JSON.stringify's bytes of everything read so far. */
  private total = 0;
  private readonly stack: Frame[] = [];
  private top: Judged | undefined;
  private done = false;
  private string: JsonString | undefined;
  private isKey = false;
  private escape: string | undefined;
  private utf8Left = 0;
  private utf8: number[] = [];
  private literal = '';

  add(chunk: Buffer): void {
    let index = 0;
    // The chunk's next backslash, found once for many strings (most have none).
    let slash = -1;
    while (index < chunk.length) {
      const b = chunk[index]!;
      if (this.string && this.utf8Left === 0 && this.escape === undefined && b !== 0x22 && b !== 0x5c) {
        // Up to the next quote or backslash, a run of base64's alphabet goes at once.
        const quote = chunk.indexOf(0x22, index);
        if (slash < index) {
          const found = chunk.indexOf(0x5c, index);
          slash = found === -1 ? chunk.length : found;
        }
        const stop = Math.min(quote === -1 ? chunk.length : quote, slash);
        const text = chunk.toString('latin1', index, stop);
        if (stop - index > 16 && ALPHABET_RUN.test(text)) {
          this.string.run(text);
          index = stop;
          continue;
        }
      }
      if (this.string) this.inString(b);
      else if (this.literal !== '' && LITERAL_BYTE.test(String.fromCharCode(b))) this.literal += String.fromCharCode(b);
      else {
        if (this.literal !== '') this.endLiteral();
        this.structural(b);
      }
      index += 1;
    }
  }

  end(where: string): OversizedObject[] {
    if (this.literal !== '') this.endLiteral();
    if (!this.done || this.string) throw new SyntaxError('unexpected end of JSON');
    const top = this.top;
    if (!top) return [];
    if (top.head.kind?.endsWith('List') && top.hasItems) return top.items.map((item) => ({ ...item, where }));
    return problemsOf(top, this.total - top.start, where);
  }

  private structural(b: number): void {
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) return;
    if (this.done) throw new SyntaxError('more after the JSON value');
    const frame = this.stack.at(-1);
    if (b === 0x2c /* , */) {
      if (!frame || frame.count === 0) throw new SyntaxError('unexpected ,');
      this.total += 1;
      return;
    }
    if (b === 0x3a /* : */) {
      this.total += 1;
      return;
    }
    if (b === 0x7d /* } */ || b === 0x5d /* ] */) {
      if (!frame || frame.array !== (b === 0x5d)) throw new SyntaxError('unexpected end of a container');
      this.stack.pop();
      this.total += 1;
      if (frame.judged) this.endJudged(frame.judged);
      this.valueDone();
      return;
    }
    if (b === 0x22 /* " */) {
      this.string = new JsonString();
      this.isKey = frame !== undefined && !frame.array && !this.keyRead;
      return;
    }
    if (b === 0x7b /* { */ || b === 0x5b /* [ */) {
      this.total += 1;
      this.open(b === 0x5b);
      return;
    }
    if (/[-0-9tfn]/.test(String.fromCharCode(b))) {
      this.literal = String.fromCharCode(b);
      return;
    }
    throw new SyntaxError(`unexpected byte ${b}`);
  }

  /** In the innermost object, a key was read and its value not yet. */
  private keyRead = false;

  private open(array: boolean): void {
    const parent = this.stack.at(-1);
    const frame: Frame = { array, count: 0, key: undefined };
    if (parent) parent.count += 1;
    const owner = parent?.judged;
    const key = parent?.key;
    if (!parent) {
      if (!array) this.top = frame.judged = this.newJudged();
    } else if (parent.role === 'items') {
      if (!array) frame.judged = this.newJudged();
    } else if (owner && key !== undefined) {
      if (!array && key === 'metadata') Object.assign(frame, { role: 'metadata', owner });
      else if (!array && DATA_FIELDS.has(key)) Object.assign(frame, { role: 'data', field: key, owner });
      else if (array && key === 'items' && owner === this.top) {
        owner.hasItems = true;
        Object.assign(frame, { role: 'items', owner });
      }
    }
    this.keyRead = false;
    this.stack.push(frame);
  }

  private newJudged(): Judged {
    return { start: this.total - 1, head: {}, data: {}, hasItems: false, items: [] };
  }

  private endJudged(judged: Judged): void {
    if (judged === this.top) return;
    const owner = this.top;
    if (owner) owner.items.push(...problemsOf(judged, this.total - judged.start, ''));
  }

  /** A value ended: the object's next entry may start. */
  private valueDone(): void {
    const frame = this.stack.at(-1);
    if (!frame) {
      this.done = true;
      return;
    }
    if (!frame.array) {
      frame.key = undefined;
      this.keyRead = false;
    }
  }

  private inString(b: number): void {
    const string = this.string!;
    if (this.utf8Left > 0) {
      this.utf8.push(b);
      this.utf8Left -= 1;
      if (this.utf8Left === 0) string.utf8Char(Buffer.from(this.utf8));
      return;
    }
    if (this.escape !== undefined) this.inEscape(string, b);
    else if (b === 0x22) this.endString(string);
    else if (b === 0x5c) this.escape = '';
    else if (b < 0x20) throw new SyntaxError('a control character in a string');
    else if (b < 0x80) string.unit(b);
    else {
      // A UTF-8 sequence: counted as its bytes (the file is read as UTF-8).
      this.utf8 = [b];
      this.utf8Left = (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) - 1;
    }
  }

  private inEscape(string: JsonString, b: number): void {
    const char = String.fromCharCode(b);
    if (this.escape === '') {
      const simple = SIMPLE_ESCAPES[char];
      if (simple !== undefined) {
        this.escape = undefined;
        string.unit(simple);
      } else if (char === 'u') this.escape = 'u';
      else throw new SyntaxError('a bad escape');
      return;
    }
    if (!/[0-9a-fA-F]/.test(char)) throw new SyntaxError('a bad \\u escape');
    const sequence = `${this.escape}${char}`;
    this.escape = sequence.length < 5 ? sequence : undefined;
    if (sequence.length === 5) string.unit(Number.parseInt(sequence.slice(1), 16));
  }

  private endString(string: JsonString): void {
    string.end();
    this.string = undefined;
    const frame = this.stack.at(-1);
    this.total += string.json;
    if (this.isKey && frame) {
      frame.count += 1;
      frame.key = string.kept ? string.text : undefined;
      this.keyRead = true;
      return;
    }
    if (frame?.array) frame.count += 1;
    if (frame) this.stringValue(frame, string);
    this.valueDone();
  }

  private stringValue(frame: Frame, string: JsonString): void {
    const key = frame.key;
    if (frame.judged && string.kept && (key === 'apiVersion' || key === 'kind')) frame.judged.head[key] = string.text;
    if (frame.role === 'metadata' && key === 'name' && string.kept) frame.owner!.head.name = string.text;
    if (frame.role === 'data') {
      const sums = (frame.owner!.data[frame.field!] ??= { plain: 0, decoded: 0 });
      sums.plain += string.utf8;
      sums.decoded += string.decoded();
    }
  }

  private endLiteral(): void {
    const text = this.literal;
    this.literal = '';
    const frame = this.stack.at(-1);
    let bytes: number;
    if (text === 'true' || text === 'false' || text === 'null') bytes = text.length;
    else if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(text)) bytes = JSON.stringify(Number(text)).length;
    else throw new SyntaxError(`unexpected ${text.slice(0, 20)}`);
    this.total += bytes;
    if (frame?.array) frame.count += 1;
    this.valueDone();
  }
}

const SIMPLE_ESCAPES: Record<string, number> = {
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

/** limits.ts objectProblems, from an object's sizes. */
function problemsOf(judged: Judged, body: number, where: string): OversizedObject[] {
  const { apiVersion, kind, name } = judged.head;
  const named = { where, kind, name };
  if (apiVersion === 'v1' && (kind === 'ConfigMap' || kind === 'Secret')) {
    const { data, binaryData, stringData } = judged.data;
    const bytes =
      kind === 'Secret'
        ? (data?.decoded ?? 0) + (stringData?.plain ?? 0)
        : (data?.plain ?? 0) + (binaryData?.decoded ?? 0);
    if (bytes > MAX_DATA_BYTES) return [{ ...named, problem: dataProblem(bytes, kind) }];
  }
  return body > MAX_REQUEST_BODY_BYTES ? [{ ...named, problem: requestProblem(body, 'as JSON it is') }] : [];
}
