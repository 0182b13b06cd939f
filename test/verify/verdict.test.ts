// The verdict of one check, from how it ended (verify/verdict.ts): pure, on results shaped as
// execCommand returns them and on the tracker's outcomes for a Job.
import { describe, expect, it } from 'vitest';
import { NO_PROGRESS } from '../../src/kinds/engine.js';
import type { CommandResult } from '../../src/kubectl/process/exec.js';
import { JOB_CONDITION_REASONS } from '../../src/classify/conditions.js';
import { commandOutcome, jobOutcome, outputLines } from '../../src/verify/verdict.js';

const ended = (result: Partial<CommandResult>): CommandResult => ({
  timedOut: false,
  cancelled: false,
  output: '',
  truncated: false,
  ...result,
});
const context = { during: 'verify' as const, elapsedMs: 420, timeoutMs: 120_000, keep: false };

describe('commandOutcome', () => {
  it('passes at exit 0 and keeps what the command printed', () => {
    const outcome = commandOutcome('curl -fsS web/healthz', ended({ exitCode: 0, output: 'ok\n' }), context);
    expect(outcome).toMatchObject({
      passed: true,
      exitCode: 0,
      summary: 'exited 0',
      lines: ['ok'],
      timedOut: false,
      during: 'verify',
      elapsedMs: 420,
    });
    expect(outcome.check).toEqual({ type: 'command', command: 'curl -fsS web/healthz' });
  });

  it('fails at any other exit code, with its last lines and a next step', () => {
    const outcome = commandOutcome('./smoke.sh', ended({ exitCode: 7, output: 'GET /healthz\r\nHTTP 503\n' }), context);
    expect(outcome).toMatchObject({
      passed: false,
      exitCode: 7,
      summary: 'exited with code 7',
      lines: ['GET /healthz', 'HTTP 503'],
    });
    expect(outcome.nextStep).toMatch(/does not work/);
  });

  it("names the shell's own codes: 127 is a command the shell did not find", () => {
    expect(
      commandOutcome('smok.sh', ended({ exitCode: 127, output: 'sh: 1: smok.sh: not found\n' }), context).summary,
    ).toBe('exited with code 127 (the shell did not find the command)');
    expect(commandOutcome('./notes.txt', ended({ exitCode: 126 }), context).summary).toMatch(/could not run it/);
  });

  it('fails at the deadline, even if the stopped process exited 0 on SIGTERM', () => {
    const outcome = commandOutcome('sleep 600', ended({ exitCode: 0, timedOut: true, signal: 'SIGTERM' }), {
      ...context,
      timeoutMs: 90_000,
    });
    expect(outcome).toMatchObject({
      passed: false,
      timedOut: true,
      summary: expect.stringMatching(/^did not finish within --verify-timeout 1m30s and was stopped/),
    });
  });

  it('is not a verdict when the run was cancelled', () => {
    expect(commandOutcome('sleep 600', ended({ cancelled: true, signal: 'SIGTERM' }), context)).toMatchObject({
      passed: false,
      cancelled: true,
    });
  });

  it('fails when it cannot be started, or when a signal ends it', () => {
    expect(commandOutcome('x', ended({ spawnError: 'ENOENT' }), context)).toMatchObject({
      passed: false,
      summary: 'could not be started (ENOENT)',
    });
    expect(commandOutcome('x', ended({ signal: 'SIGKILL' }), context)).toMatchObject({
      passed: false,
      summary: 'was ended by SIGKILL',
    });
  });
});

describe('outputLines', () => {
  it('keeps the last 50 lines, each at most 500 characters', () => {
    const output = `${Array.from({ length: 80 }, (_, index) => `line ${index}`).join('\n')}\n${'x'.repeat(900)}\n`;
    const lines = outputLines({ output, truncated: false });
    expect(lines).toHaveLength(50);
    expect(lines[0]).toBe('line 31');
    expect(lines.at(-1)).toHaveLength(500);
  });

  it('drops the first line when the tail cut it in half', () => {
    expect(outputLines({ output: 'f line\nwhole line\n', truncated: true })).toEqual(['whole line']);
  });
});

describe('jobOutcome', () => {
  const check = {
    type: 'job' as const,
    file: 'smoke.yaml',
    job: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'shop', name: 'smoke-x2k4q' },
  };

  it('passes when the Job completed', () => {
    const outcome = jobOutcome(
      check,
      {
        tracked: true,
        verdict: { state: 'healthy', progress: { ...NO_PROGRESS, summary: '1/1 completions succeeded' }, findings: [] },
        elapsedMs: 3000,
      },
      context,
    );
    expect(outcome).toMatchObject({ passed: true, summary: 'completed (1/1 completions succeeded)' });
  });

  it("fails at the Job's Failed condition, with its evidence and logs", () => {
    const rule = JOB_CONDITION_REASONS.BackoffLimitExceeded!;
    const logs = [
      { pod: 'smoke-x2k4q-abcde', container: 'smoke', previous: false, lines: ['FAIL: /checkout 500'], shown: 5 },
    ];
    const outcome = jobOutcome(
      check,
      {
        tracked: true,
        verdict: {
          state: 'failed',
          progress: NO_PROGRESS,
          findings: [],
          cause: {
            source: 'condition',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            rule,
          },
        },
        diagnosis: {
          summary: 'x',
          evidence: ['pod smoke-x2k4q-abcde, container smoke: Error: exited with code 1'],
          nextStep: 'read its logs',
          logs,
        },
        elapsedMs: 3000,
      },
      context,
    );
    expect(outcome).toMatchObject({
      passed: false,
      summary:
        'job/smoke-x2k4q (namespace shop) failed: cannot complete: its pods failed more often than backoffLimit allows: BackoffLimitExceeded',
      evidence: ['pod smoke-x2k4q-abcde, container smoke: Error: exited with code 1'],
      logs,
    });
  });

  it('fails at --verify-timeout, saying what it waited for', () => {
    const outcome = jobOutcome(
      check,
      {
        tracked: true,
        verdict: {
          state: 'timed-out',
          progress: NO_PROGRESS,
          findings: [],
          waitingFor: 'waiting for the job to complete',
        },
        elapsedMs: 120_000,
      },
      context,
    );
    expect(outcome).toMatchObject({
      passed: false,
      timedOut: true,
      summary:
        'job/smoke-x2k4q (namespace shop) did not complete within --verify-timeout 2m (waiting for the job to complete)',
    });
  });

  it('fails when someone deleted the Job before it finished; a cancelled run is no verdict', () => {
    expect(
      jobOutcome(
        check,
        {
          tracked: true,
          verdict: { state: 'gone', progress: NO_PROGRESS, findings: [], detail: 'it was deleted' },
          elapsedMs: 1,
        },
        context,
      ).passed,
    ).toBe(false);
    expect(jobOutcome(check, undefined, context)).toMatchObject({ passed: false, cancelled: true });
  });
});
