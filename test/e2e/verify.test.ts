// Issue 17, end to end: bin/kguard → real kubectl → simulated cluster. Healthy is not yet working:
// a --verify command, a --verify-job Job and a --bake decide, and a failure restores the apply.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { assertValidEventStream } from '../report/events-schema.js';
import { webAt } from './run-fixtures.js';
import { eventually, sandbox, type Sandbox, withSandbox } from './harness.js';
import { stillRunning } from '../still-running.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

/** Each test has its own simulated cluster, so the tests run side by side. */
const withCluster = (test: (sandboxed: Sandbox) => Promise<void>) => withSandbox(sandbox, test);

/** kguard apply -f FILE --verify CHECK --bake BAKE --verify-interval EVERY: the check run again during the bake. */
function bakeWithChecks(sandboxed: Sandbox, file: string, check: string, bake: string, every: string) {
  return sandboxed.kguard([
    'apply',
    '-f',
    file,
    ...fast,
    '--verify',
    check,
    '--bake',
    bake,
    '--verify-interval',
    every,
  ]);
}

/**
 * web at nginx:1.25, rolled out by a plain kubectl apply (one process, where kguard would take a
 * score: the e2e suite has a time budget); then the file that changes it to nginx:1.26.
 */
async function webChange(sandboxed: Sandbox): Promise<string> {
  await webAt(sandboxed, 'nginx:1.25');
  return sandboxed.write('web-1.26.yaml', deploymentYaml('web', 'nginx:1.26'));
}

describe.concurrent('kguard apply --verify', () => {
  it('restores the whole apply when a verify command exits 7, and shows the command, its exit code, its last lines and its environment', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const check = [
        'env | grep ^KGUARD_ | sort > env.txt',
        'cp "$KGUARD_REPORT" report-so-far.json',
        'echo "GET /healthz"',
        'echo "HTTP 503: upstream db unavailable" >&2',
        'exit 7',
      ].join('; ');
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--verify', check, '--output', 'json']);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      expect(run.stderr).toContain(`✖ verification failed: \`${check}\` exited with code 7 (after`);
      expect(run.stderr).toMatch(
        /last lines of its output:\n {6}\| GET \/healthz\n {6}\| HTTP 503: upstream db unavailable\n/,
      );
      expect(run.stderr).toContain('↩ deployment/web (namespace default): put back as it was before the apply');
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report).toMatchObject({ outcome: 'rolled-back', exitCode: 3, bake: null });
      expect(report.objects[0]).toMatchObject({ verdict: 'healthy', restore: { status: 'restored' } });
      expect(report.verify).toEqual([
        expect.objectContaining({
          type: 'command',
          command: check,
          during: 'verify',
          passed: false,
          exitCode: 7,
          timedOut: false,
          lines: ['GET /healthz', 'HTTP 503: upstream db unavailable'],
        }),
      ]);
      // What the command learnt: the run, its context and namespace, and the report so far (gone since).
      const env = readFileSync(join(sandboxed.dir, 'env.txt'), 'utf8');
      expect(env).toMatch(/^KGUARD_CONTEXT=kguard-sim$/m);
      expect(env).toMatch(/^KGUARD_NAMESPACE=default$/m);
      expect(env).toMatch(/^KGUARD_PHASE=verify$/m);
      expect(env).toMatch(/^KGUARD_RUN_ID=kguard-/m);
      const reportPath = /^KGUARD_REPORT=(.+)$/m.exec(env)?.[1] ?? '';
      expect(existsSync(reportPath)).toBe(false);
      const sofar = JSON.parse(readFileSync(join(sandboxed.dir, 'report-so-far.json'), 'utf8')) as JsonReport;
      expect(sofar).toMatchObject({ outcome: 'succeeded', verify: [] });
      expect(sofar.objects[0]).toMatchObject({ name: 'web', verdict: 'healthy' });
    }));

  it('stops a verify command that hangs past --verify-timeout, its whole process group, and restores', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const hang = 'echo "waiting for the canary"; sleep 60 & echo $! > sleeper.pid; wait';
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--verify', hang, '--verify-timeout', '1s']);
      expect(run.exitCode, run.output).toBe(3);
      expect(run.output).toContain(
        `verification failed: \`${hang}\` did not finish within --verify-timeout <DURATION> and was stopped: SIGTERM to its process group`,
      );
      expect(run.output).toContain('  | waiting for the canary');
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      // The shell's child, in the same process group, went with it.
      const sleeper = Number(readFileSync(join(sandboxed.dir, 'sleeper.pid'), 'utf8').trim());
      expect(await stillRunning(sleeper)).toBe(false);
    }));
});

/** A smoke-test Job whose container prints `lines` and exits with `exitCode` after a few simulated seconds. */
function smokeJob(exitCode: number, lines: string[]): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  generateName: smoke-
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        sim.kguard.dev/exit-code: "${exitCode}"
        sim.kguard.dev/run-seconds: "3"
        sim.kguard.dev/stdout: ${JSON.stringify(`${lines.join('\n')}\n`)}
    spec:
      restartPolicy: Never
      containers:
      - name: smoke
        image: curlimages/curl:8.8.0
`;
}

/**
 * The Job is gone when the run ends (deleted by uid before the exit); its pods follow through the
 * garbage collector (propagationPolicy Background), as on a real cluster: a moment later.
 */
async function jobAndPodsGone(sandboxed: Sandbox): Promise<void> {
  expect(jobsIn(sandboxed).filter((name) => name.startsWith('Job/'))).toEqual([]);
  await eventually(() => (jobsIn(sandboxed).length === 0 ? true : undefined), 10_000);
}

function jobsIn(sandboxed: Sandbox): string[] {
  return sandboxed.cluster.store
    .everything()
    .filter((object) => object.kind === 'Job' || (object.kind === 'Pod' && object.metadata.name.startsWith('smoke-')))
    .map((object) => `${object.kind}/${object.metadata.name}`);
}

describe.concurrent('kguard apply --verify-job', () => {
  it("restores the apply when the verify Job fails, shows its pod's last lines, and deletes the Job", () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const job = await sandboxed.write('smoke.yaml', smokeJob(1, ['GET /checkout', 'FAIL: /checkout answered 500']));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--verify-job', job, '--output', 'json']);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(
        /• verifying: job\/smoke-[a-z0-9]{5} \(namespace default\) from .*smoke\.yaml \(--verify-job, at most 2m\)/,
      );
      expect(run.stderr).toMatch(
        /✖ verification failed: job\/smoke-[a-z0-9]{5} \(namespace default\) failed: cannot complete: its pods failed more often than backoffLimit allows: BackoffLimitExceeded/,
      );
      expect(run.stderr).toMatch(
        /last lines of container smoke \(pod smoke-[a-z0-9]{5}-[a-z0-9]+\):\n {6}\| GET \/checkout\n {6}\| FAIL: \/checkout answered 500\n/,
      );
      expect(run.stderr).toContain(
        "next: the check says the new version does not work: its pod's last lines are above (the Job is deleted after its check; --keep-verify keeps it)",
      );
      expect(run.stderr).toMatch(
        /• job\/smoke-[a-z0-9]{5} \(namespace default\): deleted \(the verify Job of this run\)/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      await jobAndPodsGone(sandboxed);
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report.verify).toEqual([
        expect.objectContaining({
          type: 'job',
          file: job,
          passed: false,
          cleanup: { action: 'deleted', detail: null, commands: [] },
          job: { namespace: 'default', name: expect.stringMatching(/^smoke-/) },
        }),
      ]);
      expect(report.verify[0]?.logs[0]?.lines).toEqual(['GET /checkout', 'FAIL: /checkout answered 500']);
    }));

  it('passes when the verify Job completes, and deletes it after', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const job = await sandboxed.write('smoke.yaml', smokeJob(0, ['all 12 checks passed']));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--verify-job', job]);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(
        /✔ verified: job\/smoke-[a-z0-9]{5} \(namespace default\) from .*smoke\.yaml completed \(1\/1 completions succeeded\) in <DURATION>/,
      );
      expect(run.output).toMatch(
        /job\/smoke-[a-z0-9]{5} \(namespace default\): deleted \(the verify Job of this run\)/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
      await jobAndPodsGone(sandboxed);
    }));

  it("writes --events lines the shipped schema accepts, the verify Job's own (phase verify) among them, when the check passes and when it fails", () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const runs = [
        { name: 'passes', exitCode: 0, job: smokeJob(0, ['all 12 checks passed']) },
        { name: 'fails', exitCode: 3, job: smokeJob(1, ['FAIL: /checkout answered 500']) },
      ];
      const phases = new Set<unknown>();
      for (const { name, exitCode, job } of runs) {
        const jobFile = await sandboxed.write(`smoke-${name}.yaml`, job);
        const run = await sandboxed.kguard([
          'apply',
          '-f',
          file,
          ...fast,
          '--verify-job',
          jobFile,
          '--events',
          `${name}.ndjson`,
        ]);
        expect(run.exitCode, run.output).toBe(exitCode);
        // The harness checks every --events stream too; this says which run broke the schema.
        const events = assertValidEventStream(
          readFileSync(join(sandboxed.dir, `${name}.ndjson`), 'utf8'),
          `--verify-job that ${name}`,
        );
        const verifying = events.filter((event) => event.phase === 'verify');
        expect(verifying.length, `--verify-job that ${name}`).toBeGreaterThan(0);
        expect(verifying.every((event) => (event.workload as { kind?: string }).kind === 'Job')).toBe(true);
        for (const event of events) if (event.phase !== undefined) phases.add(event.phase);
        expect(events.at(-1)).toMatchObject({ kind: 'finished', exitCode });
        // Back to nginx:1.25, so that the next run changes web again.
        if (exitCode === 0) await webAt(sandboxed, 'nginx:1.25');
      }
      // The rollout, the verify Job and the restore after the failed check: every phase the schema names.
      expect([...phases].sort()).toEqual(['rollback', 'rollout', 'verify']);
    }));

  it('deletes the verify Job when a signal stops the run while it runs, and restores (exit 130)', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const job = await sandboxed.write(
        'slow.yaml',
        smokeJob(0, ['still checking']).replace('run-seconds: "3"', 'run-seconds: "900"'),
      );
      const { child, done } = sandboxed.kguardProcess(['apply', '-f', file, ...fast, '--verify-job', job]);
      await eventually(() => (jobsIn(sandboxed).some((name) => name.startsWith('Pod/')) ? true : undefined), 90_000);
      child.kill('SIGTERM');
      const run = await done;
      expect(run.exitCode, run.output).toBe(130);
      expect(run.output).toMatch(
        /• verifying: job\/smoke-[a-z0-9]{5} \(namespace default\) from .*slow\.yaml stopped: the run was cancelled/,
      );
      expect(run.output).toMatch(
        /job\/smoke-[a-z0-9]{5} \(namespace default\): deleted \(the verify Job of this run\)/,
      );
      await jobAndPodsGone(sandboxed);
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    }));
});

/**
 * web at nginx:1.26 whose containers write 3Gi to their writable layer after `runSeconds` simulated
 * seconds, over their 1Gi ephemeral-storage limit, and exit 0 when the kubelet stops them.
 */
function fillingQuietly(runSeconds: number): string {
  return deploymentYaml('web', 'nginx:1.26')
    .replace(
      '    spec:\n      containers:',
      `      annotations:\n        sim.kguard.dev/ephemeral-storage-usage: 3Gi\n        sim.kguard.dev/run-seconds: "${runSeconds}"\n        sim.kguard.dev/sigterm-exit-code: "0"\n    spec:\n      containers:`,
    )
    .replace(
      '          value: production\n',
      '          value: production\n        resources:\n          limits: { ephemeral-storage: 1Gi }\n',
    );
}

/** web at nginx:1.26 whose containers run `runSeconds` simulated seconds (Ready all along: no probe), exit 1 once, then run on. */
function crashingOnce(runSeconds: number): string {
  return deploymentYaml('web', 'nginx:1.26').replace(
    '    spec:\n      containers:',
    `      annotations:\n        sim.kguard.dev/exit-code: "1"\n        sim.kguard.dev/run-seconds: "${runSeconds}"\n        sim.kguard.dev/crash-count: "1"\n        sim.kguard.dev/stdout: "serving on :80\\npanic: nil map in cache warm-up\\n"\n    spec:\n      containers:`,
  );
}

describe.concurrent('kguard apply --bake', () => {
  it('catches a container that crashes 5 s after it became Ready, and restores the apply', () =>
    withCluster(async (sandboxed) => {
      await webAt(sandboxed, 'nginx:1.25');
      // 50 simulated seconds at the harness's time scale of 10: 5 s of wall time after it started.
      const file = await sandboxed.write('web-crashing.yaml', crashingOnce(50));
      expect(crashingOnce(50)).toContain('sim.kguard.dev/run-seconds: "50"');
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--bake', '30s', '--output', 'json']);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/✔ deployment\/web \(namespace default\): rolled out, 2\/2 new pods ready/);
      expect(run.stderr).toContain(
        '• baking for 30s: watching 1 workload for restarts, pods leaving Ready and evictions',
      );
      expect(run.stderr).toMatch(
        /✖ deployment\/web \(namespace default\): (container web of pod web-[a-z0-9-]+ restarted \(exit code 1, Error\)|pod web-[a-z0-9-]+ is no longer Ready: container web ended \(exit code 1, Error\)) \(after \d+\.\ds of the 30s bake\)/,
      );
      expect(run.stderr).toMatch(
        /last lines of container web \(pod web-[a-z0-9-]+(, run before the restart)?\):\n {6}\| serving on :80\n {6}\| panic: nil map in cache warm-up\n/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report).toMatchObject({ outcome: 'rolled-back', exitCode: 3, verify: [] });
      expect(report.bake).toMatchObject({
        durationMs: 30_000,
        passed: false,
        stoppedBy: 'workload',
        workload: { kind: 'Deployment', name: 'web' },
      });
      // Caught at the crash, not at the end of the bake.
      expect(report.bake!.elapsedMs).toBeGreaterThan(2_000);
      expect(report.bake!.elapsedMs).toBeLessThan(15_000);
    }));

  // kubernetes#120182, #141483: a pod evicted for its own limit whose container exits 0 on SIGTERM
  // ends Succeeded with nothing of the eviction but its Evicted event (kube-sim follows the real
  // kubelet's recording, test/kube-sim/controllers/kubelet/fixtures/evicted-exit-0).
  it('catches a new pod evicted for its own ephemeral-storage limit that exits 0 (it ends Succeeded), and restores', () =>
    withCluster(async (sandboxed) => {
      await webAt(sandboxed, 'nginx:1.25');
      const file = await sandboxed.write('web-filling.yaml', fillingQuietly(50));
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--bake', '30s', '--output', 'json']);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/✔ deployment\/web \(namespace default\): rolled out, 2\/2 new pods ready/);
      expect(run.stderr).toMatch(
        /✖ deployment\/web \(namespace default\): pod web-[a-z0-9-]+ was evicted by the kubelet: Container web exceeded its local ephemeral storage limit "1Gi"\. \(its containers exited 0, so the pod shows Succeeded\) \(after \d+\.\ds of the 30s bake\)/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report).toMatchObject({ outcome: 'rolled-back', exitCode: 3 });
      expect(report.bake).toMatchObject({ passed: false, stoppedBy: 'workload', workload: { name: 'web' } });
      expect(report.bake!.elapsedMs).toBeLessThan(20_000);
    }));

  it('runs the --verify commands again every --verify-interval, and restores when one fails during the bake', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      // Passes the first time, fails from the second: the canary's second request breaks.
      const check =
        'if [ -f checked-once ]; then echo "second look: 502 from /api" >&2; exit 1; fi; touch checked-once; echo "first look: ok"';
      const run = await bakeWithChecks(sandboxed, file, check, '20s', '1s');
      expect(run.exitCode, run.output).toBe(3);
      expect(run.output).toContain(`✔ verified: \`${check}\` exited 0 in <DURATION>`);
      expect(run.output).toContain('; the --verify commands run again every <DURATION>');
      expect(run.output).toContain(`✖ bake: check failed: \`${check}\` exited with code 1 (after <DURATION>)`);
      expect(run.output).toContain('  | second look: 502 from /api');
      expect(run.output).toContain(
        `✖ the bake stopped: \`${check}\`, run again, exited with code 1 (after <DURATION> of the <DURATION> bake)`,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    }));

  it('passes a bake in which nothing breaks, the checks passing again, and keeps the apply', () =>
    withCluster(async (sandboxed) => {
      const file = await webChange(sandboxed);
      const run = await bakeWithChecks(sandboxed, file, 'true', '2s', '500ms');
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(
        /✔ baked for <DURATION>: no restart, no pod left Ready, no eviction in 1 workload; the checks passed \d+ more times?/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    }));
});
