import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/objects/diff.js';

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', { from: 'live', to: 'after' })).toEqual([]);
  });

  it('shows a changed line with 3 lines of context, as diff -u does', () => {
    const from = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'spec:',
      '  replicas: 2',
      '  template:',
      '    image: nginx:1.26',
      '    name: web',
      '  paused: false',
      'x: 1',
      'y: 2',
    ].join('\n');
    const to = from.replace('nginx:1.26', 'nginx:1.25');
    expect(unifiedDiff(from, to, { from: 'live deployment/web', to: 'before run kguard-1' })).toEqual([
      '--- live deployment/web',
      '+++ before run kguard-1',
      '@@ -3,7 +3,7 @@',
      ' spec:',
      '   replicas: 2',
      '   template:',
      '-    image: nginx:1.26',
      '+    image: nginx:1.25',
      '     name: web',
      '   paused: false',
      ' x: 1',
    ]);
  });

  it('splits far-apart changes into hunks and counts added and removed lines', () => {
    const from = Array.from({ length: 20 }, (_, index) => `line ${index}`).join('\n');
    const to = from.replace('line 1\n', '').replace('line 18', 'line 18\nline 18b');
    const diff = unifiedDiff(from, to, { from: 'a', to: 'b' });
    expect(diff.filter((line) => line.startsWith('@@'))).toEqual(['@@ -1,5 +1,4 @@', '@@ -17,4 +16,5 @@']);
    expect(diff).toContain('-line 1');
    expect(diff).toContain('+line 18b');
  });
});
