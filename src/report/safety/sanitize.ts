// Text from the cluster (event and pod messages, kubectl's errors) is printed to terminals, CI logs
// and job summaries. Before anyone prints it, it passes here: Secret values are redacted, control
// characters and terminal escape sequences are removed, and nothing in it can start a CI workflow
// command. Pure.
import type { Redactor } from './redact.js';

// ECMA-48 sequences: CSI (ESC [ … final byte), OSC / DCS / SOS / PM / APC strings (ended by BEL
// or ST = ESC \), and the two-byte escapes. The 8-bit C1 forms (U+009B CSI...) are covered by the
// control-character pass that follows.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|\u001b[ -~]?/g;
// C0 controls but tab and newline, DEL, C1 controls; bidirectional overrides and isolates, which
// can make a line read differently from what it says (CVE-2021-42574, "Trojan Source").
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * GitHub Actions runs a workflow command from any log line that starts with `::` once leading
 * whitespace is trimmed (actions/runner ActionCommand.TryParseV2: `::error::`, `::add-mask::`,
 * `::stop-commands::`), and an old-style `##[command]` anywhere in a line (ActionCommand.TryParse);
 * Azure Pipelines reads `##vso[`. GitLab folds logs at `section_start:TIME:NAME` /
 * `section_end:` markers. A space breaks each of them and leaves the text readable.
 */
function neutraliseCommands(line: string): string {
  return line
    .replace(/^(\s*):(?=:)/, '$1: ')
    .replace(/##(?=\[|vso\[)/gi, '# #')
    .replace(/section_(start|end):/gi, 'section_$1 :');
}

/** One piece of text from the cluster, made safe to print anywhere. Newlines and tabs stay. */
export function sanitizeText(text: string, redactor?: Redactor): string {
  const redacted = redactor ? redactSafely(text, redactor) : text;
  return redacted
    .replace(/\r\n?/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(ESCAPE_SEQUENCES, '')
    .replace(CONTROL_CHARACTERS, '')
    .split('\n')
    .map(neutraliseCommands)
    .join('\n');
}

/**
 * Text the redactor could not check is not printed: a Secret value must never slip out because
 * kguard itself broke, and printing must never break a run after its apply.
 */
export const UNCHECKED_TEXT = '[not shown: kguard could not check this text for Secret values]';

function redactSafely(text: string, redactor: Redactor): string {
  try {
    return redactor.redact(text);
  } catch {
    return UNCHECKED_TEXT;
  }
}

/** Every string inside plain data (events, the JSON report), sanitised; the shape is kept. */
export function sanitizeDeep<T>(value: T, redactor?: Redactor): T {
  if (typeof value === 'string') return sanitizeText(value, redactor) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => sanitizeDeep(item, redactor)) as T;
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, sanitizeDeep(item, redactor)])) as T;
  }
  return value;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
