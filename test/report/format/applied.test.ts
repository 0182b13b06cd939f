// The line that says what kubectl applied: kubectl's words for the first 8 objects and how many more
// (the lines after it name every change; at 1,000 objects the whole list was one 40 KB line).
import { describe, expect, it } from 'vitest';
import type { AppliedObject } from '../../../src/model/result.js';
import { formatEvent } from '../../../src/report/format/format.js';

const applied = (count: number): AppliedObject[] =>
  Array.from({ length: count }, (_, index) => ({
    resource: 'configmap',
    name: `config-${index}`,
    action: 'configured',
  }));

describe('the applied line', () => {
  it('names every object up to 8', () => {
    expect(formatEvent({ kind: 'applied', objects: applied(2), dryRun: false }).text).toBe(
      'applied 2 objects (configmap/config-0 configured, configmap/config-1 configured)',
    );
  });

  it('names the first 8 of more and counts the rest', () => {
    const text = formatEvent({ kind: 'applied', objects: applied(1000), dryRun: false }).text;
    expect(text).toMatch(
      /^applied 1000 objects \(configmap\/config-0 configured, .*configmap\/config-7 configured and 992 more\)$/,
    );
    expect(text).not.toContain('config-8 ');
  });
});
