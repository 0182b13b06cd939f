// The Redactor at the sizes a real apply reaches: a Secret value of 1 MiB, a thousand Secrets,
// kguard's own journal Secret read back from the cluster. The forms and the short-value rule are
// in sanitize.test.ts; here each form is checked exactly, on big inputs.
import { describe, expect, it } from 'vitest';
import { journalSecret, type Journal } from '../../src/journal/journal.js';
import { Redactor, REDACTED, secretValuesOfObjects } from '../../src/report/safety/redact.js';

/**
 * Text that does not repeat or compress (mulberry32 picks each character), with everything a form
 * escapes: quotes, backslashes, tabs, newlines (one line every 97 characters), a non-ASCII letter.
 */
function noise(length: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"\\\t -é';
  const characters: string[] = [];
  let state = seed;
  for (let index = 0; index < length; index++) {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    characters.push(index % 97 === 96 ? '\n' : alphabet[((mixed ^ (mixed >>> 14)) >>> 0) % alphabet.length]!);
  }
  return characters.join('');
}

/** The same without newlines: a value without lines of its own to redact. */
function oneLine(length: number, seed: number): string {
  return noise(length, seed).replace(/\n/g, ' ');
}

/** Every form kubectl may print a value in: as is, base64, JSON-escaped once and twice. */
function formsOf(value: string): string[] {
  const escapedOnce = JSON.stringify(value).slice(1, -1);
  return [value, Buffer.from(value).toString('base64'), escapedOnce, JSON.stringify(escapedOnce).slice(1, -1)];
}

/** Each form between markers: the redacted text must be the markers around REDACTED, nothing else. */
function quoting(forms: readonly string[]): { text: string; redacted: string } {
  return {
    text: forms.map((form, index) => `<${index}>${form}`).join(' '),
    redacted: forms.map((_form, index) => `<${index}>${REDACTED}`).join(' '),
  };
}

describe('Redactor at scale', () => {
  it('replaces every form of a 1 MiB value, and a line of it quoted on its own', () => {
    const value = noise(1024 * 1024, 1);
    const redactor = new Redactor();
    redactor.addValue(value);
    const line = value.split('\n')[5]!;
    const { text, redacted } = quoting([...formsOf(value), line]);
    expect(redactor.redact(text)).toBe(redacted);
  });

  it('replaces every form of each of 1,000 values learned together, and a 1 MiB one among them', () => {
    const values = Array.from({ length: 1000 }, (_, index) => `${noise(24 + (index % 50), index + 7)}#${index}`);
    const big = noise(1024 * 1024, 2);
    const redactor = new Redactor();
    for (const value of [...values, big]) redactor.addValue(value);
    const { text, redacted } = quoting([...values.flatMap(formsOf), ...formsOf(big)]);
    expect(redactor.redact(text)).toBe(redacted);
  });

  it('leaves text alone that only begins like a long value', () => {
    const value = oneLine(5000, 3);
    const redactor = new Redactor();
    redactor.addValue(value);
    const almost = `${value.slice(0, 4000)}!`;
    expect(redactor.redact(almost)).toBe(almost);
  });

  it('tells apart values that share their first hundreds of characters', () => {
    const shared = oneLine(300, 4);
    const redactor = new Redactor();
    redactor.addValue(`${shared}-first`);
    redactor.addValue(`${shared}-second`);
    expect(redactor.redact(`a ${shared}-second b ${shared}-first c ${shared}-third`)).toBe(
      `a ${REDACTED} b ${REDACTED} c ${shared}-third`,
    );
  });

  it('learns values after a redaction: the next redaction finds them too', () => {
    const redactor = new Redactor();
    redactor.addValue('first-secret');
    expect(redactor.redact('first-secret second-secret')).toBe(`${REDACTED} second-secret`);
    redactor.addValue('second-secret');
    expect(redactor.redact('first-secret second-secret')).toBe(`${REDACTED} ${REDACTED}`);
  });
});

describe('Redactor with overlapping values', () => {
  it('replaces a value whole when a shorter value is its prefix', () => {
    const redactor = new Redactor();
    redactor.addValue('tok-1234');
    redactor.addValue('tok-1234-5678');
    expect(redactor.redact('a tok-1234-5678 b tok-1234 c')).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it('replaces a value whole when a shorter value is inside it', () => {
    const redactor = new Redactor();
    redactor.addValue('hunter2-pass');
    redactor.addValue('my-hunter2-password');
    expect(redactor.redact('x my-hunter2-password y hunter2-pass z')).toBe(`x ${REDACTED} y ${REDACTED} z`);
  });

  it('replaces the leftmost of two values that overlap, then goes on after it', () => {
    const redactor = new Redactor();
    redactor.addValue('abcdef-1');
    redactor.addValue('ef-1-ghij');
    expect(redactor.redact('abcdef-1-ghij and ef-1-ghij')).toBe(`${REDACTED}-ghij and ${REDACTED}`);
  });
});

describe('Redactor with values shorter than 4 characters', () => {
  it('replaces them only as whole quoted strings, plain or escaped, and keeps the quotes', () => {
    const redactor = new Redactor();
    redactor.addValue('ab');
    redactor.addValue('x');
    expect(redactor.redact('about "ab" "abc" "ab \\"ab\\" {"k":"x"} x-ray "xx"')).toBe(
      `about "${REDACTED}" "abc" "ab \\"${REDACTED}\\" {"k":"${REDACTED}"} x-ray "xx"`,
    );
  });

  it('replaces their base64 form anywhere once it is 4 characters or more', () => {
    const redactor = new Redactor();
    redactor.addValue('ab');
    expect(redactor.redact('data: YWI=')).toBe(`data: ${REDACTED}`);
  });

  it('prefers a longer value found anywhere to a short quoted one at the same place', () => {
    const redactor = new Redactor();
    redactor.addValue('ab');
    redactor.addValue('"ab"-long');
    expect(redactor.redact('"ab"-long and "ab"')).toBe(`${REDACTED} and "${REDACTED}"`);
  });
});

describe("secretValuesOfObjects and kguard's own journal", () => {
  const userSecret = (name: string, value: string, labels: Record<string, string> = {}) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name, namespace: 'shop', labels },
    data: { password: Buffer.from(value).toString('base64') },
  });

  function bigJournal(): ReturnType<typeof journalSecret> {
    // Incompressible copies make a payload of some tens of KB, as 150 applied objects do.
    const objects = Array.from({ length: 40 }, (_, index) => ({
      ref: { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: `copy-${index}` },
      before: userSecret(`copy-${index}`, noise(1000, index + 100)),
    }));
    const journal: Journal = {
      runId: 'kguard-test-run',
      startedAt: '2024-05-01T10:00:00.000Z',
      expiresAt: '2024-05-02T10:00:00.000Z',
      namespace: 'shop',
      state: 'applying',
      command: 'kguard apply -f shop/',
      objects,
    };
    return journalSecret(journal);
  }

  it('learns nothing from the run journal Secret, as kubectl returns it after kguard wrote it', () => {
    const journal = bigJournal();
    const payload = (journal as unknown as { data: { journal: string } }).data.journal;
    expect(payload.length).toBeGreaterThan(20_000);
    const values = secretValuesOfObjects([
      { ...journal, metadata: { ...journal.metadata, uid: 'u-1', resourceVersion: '7' } },
    ]);
    expect(values).toEqual([]);
  });

  it('still learns the Secrets beside it, in a List too, and one that only says kguard manages it', () => {
    const list = { kind: 'List', items: [bigJournal(), userSecret('db', 'db-password-1')] };
    const managed = userSecret('managed', 'managed-value-2', { 'app.kubernetes.io/managed-by': 'kguard' });
    const values = secretValuesOfObjects([list, managed]);
    expect(values).toEqual(expect.arrayContaining(['db-password-1', 'managed-value-2']));
    expect(values).toHaveLength(4);
  });

  it('redacts after reading a journal Secret of tens of KB back (it used to make the pattern too large to compile)', () => {
    const redactor = new Redactor();
    for (const value of secretValuesOfObjects([bigJournal(), userSecret('db', 'db-password-1')]))
      redactor.addValue(value);
    expect(redactor.redact('connecting with db-password-1')).toBe(`connecting with ${REDACTED}`);
  });
});
