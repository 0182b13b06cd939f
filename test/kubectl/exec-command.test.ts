import { describe, expect, it } from 'vitest';
import { execCommand } from '../../src/kubectl/process/exec.js';
import { stillRunning } from '../still-running.js';

describe('execCommand', () => {
  it('runs the command line with sh -c, with the given environment, and says how it exited', async () => {
    const result = await execCommand('echo "run $KGUARD_RUN_ID"; echo oops >&2; exit 3', {
      env: { KGUARD_RUN_ID: 'kguard-1' },
      timeoutMs: 10_000,
      tailChars: 1000,
    });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, cancelled: false, truncated: false });
    expect(result.output).toContain('run kguard-1\n');
    expect(result.output).toContain('oops\n');
  });

  it('keeps only the end of a chatty output', async () => {
    const result = await execCommand('seq 1 100000', { env: {}, timeoutMs: 10_000, tailChars: 100 });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThanOrEqual(100);
    expect(result.output.endsWith('99999\n100000\n')).toBe(true);
  });

  it('stops the whole process group at its deadline, within a second', async () => {
    const startedAt = Date.now();
    const result = await execCommand('sleep 30 & echo $!; wait', { env: {}, timeoutMs: 300, tailChars: 1000 });
    expect(result.timedOut).toBe(true);
    expect(Date.now() - startedAt).toBeLessThan(2500);
    const child = Number(result.output.trim());
    expect(child).toBeGreaterThan(0);
    expect(await stillRunning(child)).toBe(false);
  });

  it('stops at once when the run is cancelled', async () => {
    const cancel = new AbortController();
    const running = execCommand('sleep 30', {
      env: {},
      timeoutMs: 60_000,
      tailChars: 1000,
      cancelSignal: cancel.signal,
    });
    setTimeout(() => cancel.abort(), 100);
    const result = await running;
    expect(result).toMatchObject({ cancelled: true, timedOut: false });
  });
});
