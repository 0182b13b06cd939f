import { verifyFailed } from './runs.js';
import { describe, expect, it } from 'vitest';
import type { Diagnosis } from '../../src/model/findings.js';
import type { Reporter, RunEvent } from '../../src/model/events.js';
import { formatEvent } from '../../src/report/format/format.js';
import { GitlabCiReporter } from '../../src/report/ci/gitlab.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const progress = { desired: 2, updated: 1, ready: 0, available: 0 } as never;
const diagnosis: Diagnosis = {
  summary: 'new pods cannot pull their image "x:1": ImagePullBackOff',
  evidence: [],
  nextStep: 'check the image',
};

function run(events: RunEvent[]): string {
  let log = '';
  const stream = {
    write: (text: string) => {
      log += text;
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const plain: Reporter = { emit: (event) => stream.write(`${formatEvent(event).text}\n`), close: () => undefined };
  const reporter = new GitlabCiReporter(plain, stream, () => 1_700_000_000_000);
  for (const event of events) reporter.emit(event);
  reporter.close();
  return log;
}

describe('GitlabCiReporter', () => {
  it('folds each phase into its own collapsed section, keeps the final line outside, and repeats the failure after its section', () => {
    const log = run([
      { kind: 'understood', objects: [web] },
      { kind: 'applied', objects: [{ resource: 'deployment.apps', name: 'web', action: 'configured' }], dryRun: false },
      { kind: 'tracking', workload: web, detail: 'changed by this apply' },
      { kind: 'progress', workload: web, progress, waitingFor: 'pods', phase: 'rollout' },
      { kind: 'failed', workload: web, diagnosis, elapsedMs: 1200 },
      { kind: 'restoring', objects: [web] },
      { kind: 'progress', workload: web, progress, waitingFor: 'pods', phase: 'rollback' },
      { kind: 'finished', outcome: 'rolled-back', exitCode: 3, failedWorkloads: 1, restored: true },
    ]);
    const lines = log.split('\n');
    const start = (name: string, header: string) =>
      `\u001b[0Ksection_start:1700000000:kguard_${name}[collapsed=true]\r\u001b[0K${header}`;
    const end = (name: string) => `\u001b[0Ksection_end:1700000000:kguard_${name}\r\u001b[0K`;
    expect(lines[0]).toBe(start('read', 'kguard: read the manifests as kubectl does, dry run, snapshot'));
    expect(lines[2]).toBe(end('read'));
    expect(lines[3]).toBe(start('apply', 'kguard: kubectl apply and what it changed'));
    expect(lines[5]).toBe(end('apply'));
    expect(lines[6]).toBe(start('watch', 'kguard: watch the changed workloads'));
    expect(lines[10]).toBe(end('watch'));
    expect(lines[11]).toBe(lines[9]);
    expect(lines[11]).toContain('deployment/web (namespace shop): new pods cannot pull their image');
    expect(lines[12]).toBe(start('restore', 'kguard: restore what the apply changed'));
    expect(lines[13]).toMatch(/^restoring 1 object/);
    expect(lines[14]).toMatch(/^rollback of deployment\/web/);
    expect(lines[15]).toBe(end('restore'));
    expect(lines[16]).toMatch(/^kguard: the apply failed and the cluster was restored/);
    expect(log.match(/section_start/g)).toHaveLength(4);
    expect(log.match(/section_end/g)).toHaveLength(4);
  });

  it("folds the checks, a verify Job's progress and the bake into a verify section, and repeats the failure after it", () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', namespace: 'shop', name: 'smoke-x2k4q' };
    const check = { type: 'job' as const, file: 'smoke.yaml', job };
    const log = run([
      { kind: 'healthy', workload: web, progress, elapsedMs: 1000 },
      { kind: 'verify-started', check, during: 'verify', timeoutMs: 120_000 },
      { kind: 'progress', workload: job, progress, waitingFor: 'waiting for the job to complete', phase: 'verify' },
      verifyFailed(check, {
        summary: 'job/smoke-x2k4q (namespace shop) failed: cannot complete',
        elapsedMs: 3000,
        lines: [],
      }),
      { kind: 'verify-job-cleanup', job, action: 'deleted', commands: [] },
      { kind: 'restoring', objects: [web] },
    ]);
    const lines = log.split('\n');
    expect(lines[3]).toBe(
      '\u001b[0Ksection_start:1700000000:kguard_verify[collapsed=true]\r\u001b[0Kkguard: verify (--verify, --verify-job) and bake (--bake)',
    );
    expect(lines[5]).toBe(
      'verify: job/smoke-x2k4q (namespace shop): 0/2 new pods ready: waiting for the job to complete',
    );
    expect(lines[8]).toBe('\u001b[0Ksection_end:1700000000:kguard_verify\r\u001b[0K');
    expect(lines[9]).toBe(lines[6]);
    expect(lines[9]).toMatch(/^verification failed: job\/smoke-x2k4q/);
  });
});
