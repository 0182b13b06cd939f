// What `kguard version` says runs: the release executable (and which) or the JavaScript on its runtime.
import { describe, expect, it } from 'vitest';
import { runtimeVersion } from '../../src/version.js';

describe('runtimeVersion', () => {
  const node = { ...process.versions, node: '24.11.1' };
  it('names the executable and the Bun inside it', () => {
    expect(runtimeVersion({ ...node, bun: '1.4.5' }, 'kguard-linux-x64')).toBe(
      'executable kguard-linux-x64, bun 1.4.5',
    );
  });
  it('says JavaScript and the Node that runs it, without an executable', () => {
    expect(runtimeVersion(node, undefined)).toBe('JavaScript, node 24.11.1');
  });
  it('says JavaScript on Bun when Bun runs the sources', () => {
    expect(runtimeVersion({ ...node, bun: '1.4.5' }, undefined)).toBe('JavaScript, bun 1.4.5');
  });
});
