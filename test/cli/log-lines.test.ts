import { describe, expect, it } from 'vitest';
import { toApplyOptions, type RawApplyOptions } from '../../src/cli/options.js';
import { InputError } from '../../src/errors.js';

const raw: RawApplyOptions = { filename: ['k8s/'], timeout: '5m', pollInterval: '2s', rollback: 'all', output: 'text' };

describe('--log-lines', () => {
  it('prints 5 lines by default, and takes 0 (read no logs) or more', () => {
    expect(toApplyOptions(raw, []).logLines).toBe(5);
    expect(toApplyOptions({ ...raw, logLines: '0' }, []).logLines).toBe(0);
    expect(toApplyOptions({ ...raw, logLines: '40' }, []).logLines).toBe(40);
  });

  it('refuses what is not a number of lines', () => {
    expect(() => toApplyOptions({ ...raw, logLines: 'all' }, [])).toThrow(InputError);
    expect(() => toApplyOptions({ ...raw, logLines: '-3' }, [])).toThrow(/--log-lines "-3" is not a number of lines/);
  });
});
