// A manifest file's lines, streamed for the size check (size-stream.ts), and the lines too long to
// hold as text (#45): a 50 MB value is one line, and its bytes, gathered, joined, then decoded, were
// held three times over (258 MiB of memory for a 50 MB file). Over
// LONG_LINE_BYTES a line is scanned as it streams and kept as its place in the file: the size check
// needs of a `key: value` line of a plain string only its key and its value's sizes (as text, as
// JSON, as base64), and those are counted here, byte by byte. Anything the scan cannot vouch for
// (quotes, tabs, non-ASCII, a comment, a value YAML would read as a number) is read back from the
// file and judged as any other line (text()).
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';

/** A line over this many bytes is scanned, not held. */
export const LONG_LINE_BYTES = 4 * 1024 * 1024;
/** The start of a long line kept as text: its indentation and key, for the line-level checks. */
export const HEAD_BYTES = 4096;

/** A long line's value, when the whole line is `key: value` of a plain ASCII string. */
export class LongValue {
  constructor(
    private readonly line: LongLine,
    private readonly valueStart: number,
    /** The value's bytes (trailing spaces dropped, as YAML drops them). */
    readonly bytes: number,
    /** JSON.stringify(value)'s bytes: the quotes and an escape for each `"` and `\`. */
    readonly json: number,
    /** Buffer.from(value, 'base64')'s length, when the value is base64's alphabet alone (else read back). */
    private readonly base64Bytes: number | undefined,
  ) {}

  base64(): number {
    return this.base64Bytes ?? Buffer.from(this.text(), 'base64').length;
  }

  text(): string {
    return this.line.text().slice(this.valueStart, this.valueStart + this.bytes);
  }
}

/** A line over LONG_LINE_BYTES: its head, its place in the file, and its value when plain. */
export class LongLine {
  /** `key: value` of a plain string, at this indentation; undefined for anything else. */
  value: { indent: number; key: string; value: LongValue } | undefined;

  constructor(
    private readonly path: string,
    private readonly start: number,
    /** Its bytes, without its line end. */
    readonly length: number,
    /** Its first HEAD_BYTES bytes as text. */
    readonly head: string,
  ) {}

  /** The whole line, read back from the file (the price of a line the scan could not judge). */
  text(): string {
    const bytes = Buffer.allocUnsafe(this.length);
    const fd = openSync(this.path, 'r');
    try {
      let read = 0;
      while (read < this.length) {
        const got = readSync(fd, bytes, read, this.length - read, this.start + read);
        if (got === 0) break;
        read += got;
      }
      return bytes.toString('utf8', 0, read);
    } finally {
      closeSync(fd);
    }
  }
}

/** The indentation, key and `: ` of a plain entry (size-stream.ts PLAIN_ENTRY's key), and its value's first bytes. */
const ENTRY_HEAD = /^( *)([A-Za-z0-9._/-]+): (?:[^\s!&*|>'"%@`{}[\],#?:-]|-[^\s])/;

/** A long line's bytes, fed as they stream: its head, and the sizes of its value while it stays plain. */
export class LineScan {
  private readonly head: string;
  private length = 0;
  private readonly entry: { indent: number; key: string; valueStart: number } | undefined;
  private plain: boolean;
  private previous = 0;
  /** A CR in the value: its line end if nothing follows it (linesOf drops it), else no plain string. */
  private cr = false;
  /** The line's last byte so far is a CR. */
  private endsInCr = false;
  private trailingSpaces = 0;
  private lastOther = 0;
  private escapes = 0;
  private base64Chars = 0;
  private padding = 0;
  private base64Clean = true;
  private numberish = true;

  /** `head`: the line's first bytes (up to HEAD_BYTES of them); `start`: where the line starts in the file. */
  constructor(
    private readonly path: string,
    private readonly start: number,
    head: Buffer,
  ) {
    this.head = head.subarray(0, HEAD_BYTES).toString('utf8');
    const match = ENTRY_HEAD.exec(head.subarray(0, HEAD_BYTES).toString('latin1'));
    const [, spaces, key] = (match ?? []) as unknown as [string, string, string];
    // The value starts after `key: `; its first byte (checked by ENTRY_HEAD) is scanned with the rest.
    this.entry = match ? { indent: spaces.length, key, valueStart: spaces.length + key.length + 2 } : undefined;
    this.plain = match !== null && !/^0[xo]/.test(this.head.slice(this.entry!.valueStart));
  }

  /** The line's next bytes, in order, from its first. */
  add(piece: Buffer): void {
    const skip = Math.max(0, (this.entry?.valueStart ?? 0) - this.length);
    this.length += piece.length;
    if (piece.length > 0) this.endsInCr = piece[piece.length - 1] === 0x0d;
    if (!this.plain || skip >= piece.length) return;
    const rest = piece.subarray(skip);
    // Most of a long value is base64's alphabet (or letters and digits): one regular expression
    // says so for the whole piece, and a byte at a time is the way for anything else.
    const text = rest.toString('latin1');
    if (!this.cr && this.padding === 0 && ALPHABET.test(text)) {
      this.base64Chars += rest.length;
      if (this.numberish && !DIGITS.test(text)) this.numberish = false;
      this.trailingSpaces = 0;
      this.previous = this.lastOther = rest[rest.length - 1]!;
      return;
    }
    for (let index = 0; this.plain && index < rest.length; index++) this.byte(rest[index]!);
  }

  end(): LongLine {
    const length = this.endsInCr ? this.length - 1 : this.length;
    const line = new LongLine(this.path, this.start, length, this.head);
    const entry = this.entry;
    if (!entry || !this.plain || this.numberish || this.lastOther === 0x3a /* `:` */) return line;
    const bytes = length - entry.valueStart - this.trailingSpaces;
    const base64 = this.base64Clean && this.padding <= 2 ? Math.floor((this.base64Chars * 3) / 4) : undefined;
    line.value = {
      indent: entry.indent,
      key: entry.key,
      value: new LongValue(line, entry.valueStart, bytes, bytes + 2 + this.escapes, base64),
    };
    return line;
  }

  private byte(b: number): void {
    if (this.cr) {
      this.plain = false;
      return;
    }
    if (b === 0x0d) {
      this.cr = true;
      return;
    }
    // Printable ASCII and the space only: a tab, a control byte or UTF-8 is judged from the text.
    if (b < 0x20 || b > 0x7e) {
      this.plain = false;
      return;
    }
    // `: ` and ` #` end a plain scalar's meaning as a string (size-stream.ts plainEntries).
    if ((b === 0x20 && this.previous === 0x3a) || (b === 0x23 && this.previous === 0x20)) {
      this.plain = false;
      return;
    }
    this.previous = b;
    if (b === 0x20) {
      this.trailingSpaces += 1;
      this.base64Clean = false;
      this.numberish = false;
      return;
    }
    this.trailingSpaces = 0;
    this.lastOther = b;
    if (b === 0x22 || b === 0x5c) this.escapes += 1;
    if (!NUMBERISH[b]) this.numberish = false;
    if (b === 0x3d) this.padding += 1;
    else if (BASE64[b] && this.padding === 0) this.base64Chars += 1;
    else this.base64Clean = false;
  }
}

/** Base64's alphabet alone, and digits alone (the fast way through a piece of a long value). */
const ALPHABET = /^[A-Za-z0-9+/_-]*$/;
const DIGITS = /^[0-9+eE-]*$/;

/** Bytes of base64's alphabet as Buffer.from decodes it: A-Z a-z 0-9 + / and the URL-safe - _. */
const BASE64 = byteSet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_');
/**
 * Bytes a YAML 1.2 decimal number is written with (size-stream.ts NOT_A_STRING): a long value of
 * these alone, or one that starts as a hexadecimal or octal one (0x, 0o), is judged from its text.
 * `.inf` and `.nan` are never this long.
 */
const NUMBERISH = byteSet('0123456789+-.eE');

function byteSet(chars: string): boolean[] {
  const set = new Array<boolean>(256).fill(false);
  for (const char of chars) set[char.charCodeAt(0)] = true;
  return set;
}

/**
 * The file's lines as bytes, without their line ends: a document under 1 MiB is never decoded. A
 * line over LONG_LINE_BYTES is scanned as it streams and comes as a LongLine, never held: a 50 MB
 * value is one line.
 */
export async function* linesOf(path: string): AsyncGenerator<Buffer | LongLine> {
  // A line longer than a chunk is gathered in pieces and joined once.
  let pieces: Buffer[] = [];
  let gathered = 0;
  let scan: LineScan | undefined;
  let lineStart = 0;
  let offset = 0;
  const gather = (piece: Buffer) => {
    if (scan) scan.add(piece);
    else {
      pieces.push(piece);
      gathered += piece.length;
      if (gathered <= LONG_LINE_BYTES) return;
      scan = new LineScan(path, lineStart, Buffer.concat(pieces, Math.min(gathered, HEAD_BYTES)));
      for (const kept of pieces) scan.add(kept);
      pieces = [];
    }
  };
  const take = (): Buffer | LongLine => {
    if (scan) {
      const line = scan.end();
      scan = undefined;
      gathered = 0;
      return line;
    }
    const line = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    pieces = [];
    gathered = 0;
    return line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      gather(chunk.subarray(start, end));
      yield take();
      start = end + 1;
      lineStart = offset + start;
    }
    if (start < chunk.length) gather(chunk.subarray(start));
    offset += chunk.length;
  }
  if (pieces.length > 0 || scan) yield take();
}

/** A line's bytes, or a long line's first ones: enough for the checks on a line's start. */
export function viewOf(line: Buffer | LongLine): Buffer {
  return line instanceof LongLine ? Buffer.from(line.head) : line;
}

export function firstNonSpace(line: Buffer): number {
  let index = 0;
  while (index < line.length && (line[index] === 0x20 || line[index] === 0x09)) index++;
  return index;
}

/** Blank or a comment: no content (documents.ts hasContent). */
export function isBlank(line: Buffer): boolean {
  const first = firstNonSpace(line);
  return first === line.length || line[first] === 0x23;
}
