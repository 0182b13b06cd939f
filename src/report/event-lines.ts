// One event as lines any line reader can take. Go's bufio.Scanner stops at 64 KiB
// (bufio.MaxScanTokenSize) with "token too long" and never reads the lines after it, so no line
// of --events may be longer: an event whose line would be is cut into parts, each a whole event
// of the same kind with `part` and `parts` added (its longest list split between them, in order);
// a single item still too long has its longest texts shortened. Pure.

/** Bytes of one line, its newline included: under Go's default scanner buffer, with room to spare. */
export const MAX_EVENT_LINE_BYTES = 60 * 1024;

type Fields = Record<string, unknown>;

/** The lines (newline-terminated) that carry `event` after the stream's own fields; seq is numbered by `nextSeq`. */
export function eventLines(
  head: (seq: number) => Fields,
  event: Fields,
  nextSeq: () => number,
  maxBytes = MAX_EVENT_LINE_BYTES,
): string[] {
  // Sized with the widest sequence number a stream reaches, so numbering cannot push a line over.
  const widest = head(999_999_999);
  if (bytes(serialize({ ...widest, ...event })) <= maxBytes) return [serialize({ ...head(nextSeq()), ...event })];
  const size = (candidate: Fields) => bytes(serialize({ ...widest, ...candidate, part: 99_999, parts: 99_999 }));
  const parts = splitToFit(event, size, maxBytes);
  return parts.map((part, index) => serialize({ ...head(nextSeq()), ...part, part: index + 1, parts: parts.length }));
}

function serialize(fields: Fields): string {
  return `${JSON.stringify(fields)}\n`;
}

function bytes(line: string): number {
  return Buffer.byteLength(line, 'utf8');
}

/** Halves the longest list until every part fits; a part with no list left to split has its texts shortened. */
function splitToFit(event: Fields, size: (candidate: Fields) => number, maxBytes: number): Fields[] {
  if (size(event) <= maxBytes) return [event];
  const list = longestList(event);
  if (!list || (event[list] as unknown[]).length < 2) return [shorten(event, size, maxBytes)];
  const items = event[list] as unknown[];
  const half = Math.ceil(items.length / 2);
  return [
    ...splitToFit({ ...event, [list]: items.slice(0, half) }, size, maxBytes),
    ...splitToFit({ ...event, [list]: items.slice(half) }, size, maxBytes),
  ];
}

function longestList(event: Fields): string | undefined {
  let best: string | undefined;
  let bestBytes = 0;
  for (const [key, value] of Object.entries(event)) {
    if (!Array.isArray(value) || value.length === 0) continue;
    const length = JSON.stringify(value).length;
    if (length > bestBytes) [best, bestBytes] = [key, length];
  }
  return best;
}

const SHORTENED = '… [shortened: the line would pass 64 KiB]';

/** Shortens the longest strings (anywhere in the event) until it fits. */
function shorten(event: Fields, size: (candidate: Fields) => number, maxBytes: number): Fields {
  let current = event;
  for (let limit = 16 * 1024; limit >= 64 && size(current) > maxBytes; limit = Math.floor(limit / 2))
    current = clip(current, limit) as Fields;
  return current;
}

function clip(value: unknown, limit: number): unknown {
  if (typeof value === 'string') return value.length > limit ? `${value.slice(0, limit)}${SHORTENED}` : value;
  if (Array.isArray(value)) return value.map((item) => clip(item, limit));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clip(item, limit)]));
  return value;
}
