// Secret values never reach the output. kubectl quotes manifests in its own errors: a failed
// client-side apply prints the whole patch (`error when applying patch: {…}`), with the
// last-applied-configuration annotation holding the Secret's data a second time, JSON-escaped.
// So kguard learns every value of every Secret the apply holds, before kubectl sees the manifests,
// and replaces each one wherever it appears, in the forms it can take there.
import {
  HISTORY_LABEL,
  HISTORY_TYPE,
  JOURNAL_LABEL,
  JOURNAL_TYPE,
  MANAGED_BY,
  MANAGED_BY_LABEL,
} from '../../journal/labels.js';
import { LiteralMatcher } from '../format/literals.js';

export const REDACTED = '[redacted]';

/**
 * Values shorter than this are not searched for inside other words: a one-letter password would
 * otherwise turn every message into confetti. They are still redacted as whole quoted strings.
 */
const MIN_FREE_TEXT_LENGTH = 4;
/** A line of a multi-line value (a PEM key) is redacted on its own once it is this long. */
const MIN_LINE_LENGTH = 8;

export class Redactor {
  private readonly anywhere = new Set<string>();
  private readonly quotedOnly = new Set<string>();
  /** Built at the first redaction after new values, not at each value: a run learns them in batches. */
  private matcher: { literals: LiteralMatcher; replacements: string[] } | undefined;

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
    if (this.size !== before) this.matcher = undefined;
  }

  get size(): number {
    return this.anywhere.size + this.quotedOnly.size;
  }

  redact(text: string): string {
    if (this.size === 0) return text;
    this.matcher ??= this.compile();
    const { literals, replacements } = this.matcher;
    return literals.replace(text, (literal) => replacements[literal]!);
  }

  /**
   * Where forms match at the same place, a form found anywhere wins over a quoted one, and a
   * longer form over a shorter one: a value is replaced whole before any of its lines.
   */
  private compile(): { literals: LiteralMatcher; replacements: string[] } {
    const byLength = (left: string, right: string) => right.length - left.length;
    const found = [...this.anywhere].sort(byLength).map((form) => ({ form, replacement: REDACTED }));
    // `"v"` and `\"v\"` (inside an escaped annotation): the quotes stay.
    const quoted = [...this.quotedOnly]
      .flatMap((form) =>
        ['"', '\\"'].map((quote) => ({ form: `${quote}${form}${quote}`, replacement: `${quote}${REDACTED}${quote}` })),
      )
      .sort((left, right) => byLength(left.form, right.form));
    const all = [...found, ...quoted];
    return {
      literals: new LiteralMatcher(all.map(({ form }) => form)),
      replacements: all.map(({ replacement }) => replacement),
    };
  }
}

/** Every value of the Secrets among objects as kubectl printed them (snapshots, dry-run results). */
export function secretValuesOfObjects(objects: readonly unknown[]): string[] {
  const values: string[] = [];
  for (const object of objects) collectSecretValues(object, values);
  return values;
}

/** Adds the values of the Secret (or List of them) `object` to `values`. */
export function collectSecretValues(object: unknown, values: string[]): void {
  if (object === null || typeof object !== 'object') return;
  const fields = object as {
    kind?: unknown;
    type?: unknown;
    items?: unknown;
    data?: unknown;
    stringData?: unknown;
    metadata?: { labels?: unknown };
  };
  if (Array.isArray(fields.items)) for (const item of fields.items) collectSecretValues(item, values);
  if (fields.kind !== 'Secret' || isKguardJournal(fields)) return;
  for (const value of Object.values(asRecord(fields.data))) {
    const encoded = String(value).replace(/\s+/g, '');
    values.push(Buffer.from(encoded, 'base64').toString('utf8'));
    values.push(encoded);
  }
  for (const value of Object.values(asRecord(fields.stringData))) values.push(String(value));
}

/**
 * kguard's own run journal: gzip bytes kguard wrote, not a value anyone chose. Learning them would
 * only make the matcher bigger (and the Secrets it copies are learned from the cluster anyway).
 */
function isKguardJournal(secret: { type?: unknown; metadata?: { labels?: unknown } }): boolean {
  const labels = asRecord(secret.metadata?.labels);
  if (labels[MANAGED_BY_LABEL] !== MANAGED_BY) return false;
  return (
    (secret.type === JOURNAL_TYPE && typeof labels[JOURNAL_LABEL] === 'string') ||
    (secret.type === HISTORY_TYPE && typeof labels[HISTORY_LABEL] === 'string')
  );
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
