import { describe, expect, it } from 'vitest';
import { perCopy } from '../../src/objects/per-copy.js';

describe('perCopy', () => {
  it('works a value out once for each object, and anew for another copy of the same content', () => {
    let calls = 0;
    const nameOf = perCopy((object: { name: string }) => {
      calls += 1;
      return object.name.toUpperCase();
    });
    const first = { name: 'web' };
    expect(nameOf(first)).toBe('WEB');
    expect(nameOf(first)).toBe('WEB');
    expect(calls).toBe(1);
    expect(nameOf({ name: 'web' })).toBe('WEB');
    expect(calls).toBe(2);
  });

  it('remembers an undefined value too, and nothing for a call that threw', () => {
    let calls = 0;
    const nothing = perCopy((_object: object) => {
      calls += 1;
      return undefined;
    });
    const key = {};
    nothing(key);
    nothing(key);
    expect(calls).toBe(1);
    let tries = 0;
    const failing = perCopy((_object: object) => {
      tries += 1;
      throw new Error('no rules');
    });
    expect(() => failing(key)).toThrow('no rules');
    expect(() => failing(key)).toThrow('no rules');
    expect(tries).toBe(2);
  });
});
