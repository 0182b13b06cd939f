// kubectl children die with kguard even when kguard is killed with SIGKILL (no handler runs):
// the reaper's pipe closes and it kills every process group still on its list.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../e2e/harness.js';

const EXEC = fileURLToPath(new URL('../../dist/src/kubectl/process/exec.js', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the reaper', () => {
  it('kills the process groups of a kguard that was killed with SIGKILL, and only those', async () => {
    const pidFile = join(await mkdtemp(join(tmpdir(), 'kguard-reaper-')), 'pids');
    const script = `
      import { execProcess } from ${JSON.stringify(EXEC)};
      // Two children that outlive their parent unless reaped; one that ends by itself first.
      await execProcess('/bin/sh', ['-c', 'true'], {});
      for (let i = 0; i < 2; i++) void execProcess('/bin/sh', ['-c', 'echo $$ >> ${pidFile}; exec sleep 60'], {});
      setInterval(() => undefined, 1000);
    `;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    const pids = await eventually(async () => {
      const found = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
      return found.length === 2 ? found : undefined;
    });
    // An unrelated process group that must survive.
    const bystander = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    try {
      expect(pids.every(alive)).toBe(true);
      parent.kill('SIGKILL');
      await eventually(() => (pids.every((pid) => !alive(pid)) ? true : undefined));
      expect(alive(bystander.pid!)).toBe(true);
    } finally {
      for (const pid of [...pids, bystander.pid!]) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
});
