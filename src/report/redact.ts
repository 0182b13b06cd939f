// Secret values never reach the output. kubectl quotes manifests in its own errors: a failed
// client-side apply prints the whole patch (`error when applying patch: {…}`), with the
// last-applied-configuration annotation holding the Secret's data a second time, JSON-escaped.
// So kguard learns every value of every Secret the apply holds, before kubectl sees the manifests,
// and replaces each one wherever it appears, in the forms it can take there.
import { createRequire } from 'node:module';
import { JOURNAL_TYPE } from '../journal/journal.js';

/** yaml is loaded at the first manifest read, not at start-up: `kguard --version` reads none. */
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not searched for inside other words: a one-letter password would
 * otherwise turn every message into confetti. They are still redacted as whole quoted strings.
 */
const MIN_FREE_TEXT_LENGTH = 4;
/** A line of a multi-line value (a PEM key) is redacted on its own once it is this long. */
const MIN_LINE_LENGTH = 8;
/**
 * Values longer than this are replaced by plain search, not through the one regex: V8 refuses a
 * regex past a size ("Invalid regular expression: ... too large"), and a big certificate bundle
 * would take every message with it.
 */
const MAX_PATTERN_VALUE_LENGTH = 1024;

export class Redactor {
  private readonly anywhere = new Set<string>();
  private readonly quotedOnly = new Set<string>();
  private pattern: RegExp | undefined;
  /** The anywhere-values too long for the regex, longest first. */
  private long: string[] = [];

  /** Learns one Secret value (the decoded bytes as text) in every form kubectl may print it. */
  addValue(value: string): void {
    if (value === '') return;
    const encoded = Buffer.from(value, 'utf8').toString('base64');
    const escapedOnce = JSON.stringify(value).slice(1, -1);
    const escapedTwice = JSON.stringify(escapedOnce).slice(1, -1);
    const forms = [value, encoded, escapedOnce, escapedTwice];
    for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_LINE_LENGTH) forms.push(line);
    const before = this.size;
    for (const form of forms) {
      if (form.length >= MIN_FREE_TEXT_LENGTH) this.anywhere.add(form);
      else this.quotedOnly.add(form);
    }
    if (this.size !== before) this.pattern = undefined;
  }

  get size(): number {
    return this.anywhere.size + this.quotedOnly.size;
  }

  redact(text: string): string {
    if (this.size === 0) return text;
    this.pattern ??= this.compile();
    for (const value of this.long) if (text.includes(value)) text = text.split(value).join(REDACTED);
    // Without quoted alternatives the regex has no group, and the second argument is the offset.
    return text.replace(this.pattern, (_match, quote: unknown) => (typeof quote === 'string' ? `${quote}${REDACTED}${quote}` : REDACTED));
  }

  private compile(): RegExp {
    // Longest first, so a value is replaced whole before any of its lines.
    const sorted = [...this.anywhere].sort((a, b) => b.length - a.length);
    this.long = sorted.filter((value) => value.length > MAX_PATTERN_VALUE_LENGTH);
    const short = sorted.filter((value) => value.length <= MAX_PATTERN_VALUE_LENGTH);
    try {
      return alternation(short, [...this.quotedOnly]);
    } catch {
      // Too many values for one regex: every free-text value by plain search.
      this.long = sorted;
      return alternation([], [...this.quotedOnly]);
    }
  }
}

function alternation(anywhere: readonly string[], quoted: readonly string[]): RegExp {
  const alternatives = anywhere.map(escapeRegExp);
  // `"v"` and `\"v\"` (inside an escaped annotation): the quote is captured and put back.
  if (quoted.length > 0) alternatives.push(`(\\\\?")(?:${quoted.map(escapeRegExp).join('|')})\\1`);
  // Nothing left for the regex: one that never matches (an empty one would match everywhere).
  return new RegExp(alternatives.length > 0 ? alternatives.join('|') : '(?!)', 'g');
}

/**
 * Every value of every Secret in a stream of YAML or JSON documents (List items included):
 * `data` values are base64 (their decoded text is learned), `stringData` values are plain.
 * Unreadable documents are skipped: kubectl will say what is wrong with them.
 */
export function secretValuesIn(text: string): string[] {
  const values: string[] = [];
  let documents;
  try {
    documents = yaml().parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  } catch {
    return values;
  }
  for (const document of Array.isArray(documents) ? documents : [documents]) {
    let content: unknown;
    try {
      content = document.toJS({ maxAliasCount: -1 });
    } catch {
      continue;
    }
    collect(content, values);
  }
  return values;
}

/** Every value of the Secrets among objects as kubectl printed them (snapshots, dry-run results). */
export function secretValuesOfObjects(objects: readonly unknown[]): string[] {
  const values: string[] = [];
  for (const object of objects) collect(object, values);
  return values;
}

function collect(object: unknown, values: string[]): void {
  if (object === null || typeof object !== 'object') return;
  const fields = object as { kind?: unknown; items?: unknown; data?: unknown; stringData?: unknown };
  if (Array.isArray(fields.items)) for (const item of fields.items) collect(item, values);
  if (fields.kind !== 'Secret') return;
  // kguard's own run journal: compressed copies of objects whose Secret values were learned when
  // they were read; it is never printed, and its bytes would only weigh on every redaction.
  if ((object as { type?: unknown }).type === JOURNAL_TYPE) return;
  for (const value of Object.values(asRecord(fields.data))) {
    const encoded = String(value).replace(/\s+/g, '');
    values.push(Buffer.from(encoded, 'base64').toString('utf8'));
    values.push(encoded);
  }
  for (const value of Object.values(asRecord(fields.stringData))) values.push(String(value));
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
