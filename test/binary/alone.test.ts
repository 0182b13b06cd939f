// The release executable on its own: no node_modules, no package.json, no Node beside it; it says
// its version and the runtime inside, and starts kubectl from PATH as bin/kguard does.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { KGUARD } from '../e2e/harness.js';

describe('the linux-x64 executable', () => {
  it('is the only file in its folder', async () => {
    expect(KGUARD).toBe(process.env.KGUARD_BIN);
    expect(await readdir(path.dirname(KGUARD))).toEqual(['kguard']);
  });

  it('says its version and the Bun inside, with no Node on PATH', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const run = await execa(KGUARD, ['version'], { env: { PATH: '/nonexistent' }, extendEnv: false });
    expect(run.stdout).toMatch(
      new RegExp(`^${version.replace(/\./g, '\\.')} \\(executable kguard-linux-x64, bun \\d+\\.\\d+\\.\\d+\\)$`),
    );
  });
});
