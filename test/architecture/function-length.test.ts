// A function reads in one screen: none in src/ is over 100 lines (what counts, and the
// declarative tables that do not: function-lengths.ts), as no file is over 400.
import { describe, expect, it } from 'vitest';
import { functionLengths } from './function-lengths.js';

const SRC = new URL('../../src/', import.meta.url).pathname;
const CAP = 100;

describe('function length', () => {
  it(`no function in src/ is over ${CAP} lines`, () => {
    const long = functionLengths(SRC)
      .filter((entry) => entry.lines > CAP)
      .map((entry) => `${entry.file}:${entry.line} ${entry.name} (${entry.lines} lines)`);
    expect(long).toEqual([]);
  });

  it('counts a function from its first line to its last, and leaves a function that is one table out', () => {
    const lengths = functionLengths(new URL('./fixtures/', import.meta.url).pathname);
    const byName = new Map(lengths.map((entry) => [entry.name, entry.lines]));
    expect(byName.get('fiveLines')).toBe(5);
    expect(byName.get('arrowOfThree')).toBe(3);
    expect(byName.has('table')).toBe(false);
    expect(byName.has('arrowTable')).toBe(false);
    expect(byName.get('notATable')).toBe(6);
  });
});
