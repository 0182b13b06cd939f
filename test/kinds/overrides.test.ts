import { describe, expect, it } from 'vitest';
import { overridesOf } from '../../src/kinds/overrides.js';

const annotated = (annotations: Record<string, string>) => ({ metadata: { name: 'x', annotations } });

describe('overridesOf', () => {
  it('defaults: tracked, the run timeout, Jobs must succeed', () => {
    expect(overridesOf({ metadata: { name: 'x' } })).toEqual({
      track: true,
      timeoutMs: undefined,
      mustSucceed: true,
      problems: [],
    });
  });

  it('reads kguard.dev/track, kguard.dev/timeout and kguard.dev/must-succeed', () => {
    expect(
      overridesOf(
        annotated({ 'kguard.dev/track': 'false', 'kguard.dev/timeout': '1m30s', 'kguard.dev/must-succeed': 'false' }),
      ),
    ).toEqual({
      track: false,
      timeoutMs: 90_000,
      mustSucceed: false,
      problems: [],
    });
  });

  it('ignores values it cannot read, and says so', () => {
    const overrides = overridesOf(annotated({ 'kguard.dev/track': 'no', 'kguard.dev/timeout': 'soon' }));
    expect(overrides).toMatchObject({ track: true, timeoutMs: undefined });
    expect(overrides.problems).toEqual([
      'kguard.dev/track: "no" is not "true" or "false"; ignored',
      'kguard.dev/timeout: "soon" is not a duration (use 90s, 5m, 1m30s); --timeout applies',
    ]);
  });
});
