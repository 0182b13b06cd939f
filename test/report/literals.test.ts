import { describe, expect, it } from 'vitest';
import { LiteralMatcher, PREFIX_LENGTH } from '../../src/report/format/literals.js';

/** What the matcher must do, the slow way: at each place, the first listed literal found there. */
function replaceSlowly(text: string, literals: readonly string[]): string {
  let result = '';
  for (let position = 0; position < text.length; ) {
    const literal = literals.findIndex((candidate) => candidate !== '' && text.startsWith(candidate, position));
    if (literal === -1) {
      result += text[position];
      position += 1;
    } else {
      result += `<${literal}>`;
      position += literals[literal]!.length;
    }
  }
  return result;
}

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

describe('LiteralMatcher', () => {
  it('replaces leftmost first, then the first listed literal at that place', () => {
    const matcher = new LiteralMatcher(['bcd', 'abc', 'ab', 'cde']);
    expect(matcher.replace('xabcdex', (literal) => `<${literal}>`)).toBe('x<1>dex');
    expect(new LiteralMatcher(['ab', 'abc']).replace('abc', (literal) => `<${literal}>`)).toBe('<0>c');
  });

  it('returns the text itself when nothing matches, and knows empty literals never match', () => {
    const text = 'nothing to see';
    expect(new LiteralMatcher(['', 'absent']).replace(text, () => '#')).toBe(text);
    expect(new LiteralMatcher([]).replace(text, () => '#')).toBe(text);
  });

  it('tells apart literals longer than the prefix it indexes, and finds them at the very end', () => {
    const shared = 'x'.repeat(PREFIX_LENGTH * 3);
    const matcher = new LiteralMatcher([`${shared}1`, `${shared}2`]);
    expect(matcher.replace(`a${shared}2 b${shared}3 c${shared}1`, (literal) => `<${literal}>`)).toBe(
      `a<1> b${shared}3 c<0>`,
    );
  });

  it('agrees with the slow way on random literals that overlap in every way', () => {
    const next = random(42);
    const word = (length: number) => Array.from({ length }, () => 'ab"\\'[Math.floor(next() * 4)]).join('');
    for (let round = 0; round < 3000; round++) {
      const literals = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
        word(1 + Math.floor(next() * (next() < 0.8 ? 6 : PREFIX_LENGTH * 2))),
      );
      // Copies of the literals, whole and cut short, among random text.
      const pieces = Array.from({ length: Math.floor(next() * 12) }, () => {
        const literal = literals[Math.floor(next() * literals.length)]!;
        return next() < 0.5
          ? word(Math.floor(next() * 8))
          : literal.slice(0, next() < 0.7 ? undefined : Math.floor(next() * literal.length));
      });
      const text = pieces.join('');
      expect(
        new LiteralMatcher(literals).replace(text, (literal) => `<${literal}>`),
        JSON.stringify({ literals, text }),
      ).toBe(replaceSlowly(text, literals));
    }
  });
});
