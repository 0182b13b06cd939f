// A process started with its stdin held back (ExecOptions.heldInput): the apply's kubectl starts
// during the guard and reads nothing until the journal is written (run/apply/guard.ts).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execProcess } from '../../src/kubectl/process/exec.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-held-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A process that says it started, then copies its stdin to `received`, then says it ended. */
const copier = (received: string) => ['-c', `echo started > ${received}.started; cat > ${received}; echo done`];

function later<T>(): { promise: Promise<T>; give(value: T): void } {
  let give: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (give = resolve));
  return { promise, give };
}

async function started(file: string): Promise<void> {
  for (;;) {
    if ((await readFile(`${file}.started`, 'utf8').catch(() => '')).includes('started')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a process with its input held back', () => {
  it('runs at once, and gets the bytes whole only when they are given', async () => {
    const received = join(dir, 'received');
    const input = later<string | undefined>();
    const running = execProcess('/bin/sh', copier(received), { heldInput: input.promise, timeoutMs: 10_000 });
    await started(received);
    expect(await readFile(received, 'utf8')).toBe('');
    input.give('kind: ConfigMap\n');
    const result = await running;
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(await readFile(received, 'utf8')).toBe('kind: ConfigMap\n');
  });

  it('given nothing, is stopped having read nothing, as by a cancel', async () => {
    const received = join(dir, 'received');
    const input = later<string | undefined>();
    const running = execProcess('/bin/sh', copier(received), { heldInput: input.promise, timeoutMs: 10_000 });
    await started(received);
    input.give(undefined);
    const result = await running;
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(await readFile(received, 'utf8')).toBe('');
  });

  it('its deadline starts when its input is given, not when it starts', async () => {
    const received = join(dir, 'received');
    const input = later<string | undefined>();
    const running = execProcess('/bin/sh', copier(received), { heldInput: input.promise, timeoutMs: 1000 });
    await started(received);
    // Held past its deadline: a deadline counted from its start would have stopped it by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    input.give('x');
    const result = await running;
    expect(result.timedOut).toBeFalsy();
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    expect(await readFile(received, 'utf8')).toBe('x');
  });
});
