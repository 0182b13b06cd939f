import { describe, expect, it } from 'vitest';
import { ProcessPool } from '../../src/kubectl/process/pool.js';
import { createKubectl } from '../../src/kubectl/client.js';
import type { Exec } from '../../src/kubectl/process/exec.js';

describe('ProcessPool', () => {
  it('never runs more than its size at once, and runs everything', async () => {
    const pool = new ProcessPool(8);
    let running = 0;
    let highest = 0;
    const done = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        pool.use(async () => {
          running += 1;
          highest = Math.max(highest, running);
          await new Promise((resolve) => setTimeout(resolve, index % 3));
          running -= 1;
          return index;
        }),
      ),
    );
    expect(done).toEqual(Array.from({ length: 100 }, (_, index) => index));
    expect(highest).toBe(8);
    expect(pool.peak).toBe(8);
  });

  it('frees the slot of work that throws', async () => {
    const pool = new ProcessPool(1);
    await expect(pool.use(async () => Promise.reject(new Error('kubectl died')))).rejects.toThrow('kubectl died');
    await expect(pool.use(async () => 'next')).resolves.toBe('next');
  });
});

describe('Kubectl --concurrency', () => {
  it('runs at most `concurrency` kubectl processes for a fan-out of 200 reads', async () => {
    let running = 0;
    let highest = 0;
    const exec: Exec = async () => {
      running += 1;
      highest = Math.max(highest, running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running -= 1;
      return { exitCode: 0, stdout: '', stderr: '' };
    };
    const kubectl = createKubectl(exec, {
      binary: 'kubectl',
      connectionArgs: [],
      requestTimeout: '30s',
      readDeadlineMs: 10_000,
      concurrency: 3,
    });
    await Promise.all(Array.from({ length: 200 }, (_, index) => kubectl.getObject('configmaps', 'shop', `c${index}`)));
    expect(highest).toBe(3);
    expect(kubectl.peakProcesses).toBe(3);
    expect(kubectl.spawned).toBe(200);
  });
});
