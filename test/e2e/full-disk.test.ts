// Every message true when the disk is full (#45): bin/kguard and the real kubectl against the
// simulator, writing its event stream, JUnit file and JSON report to /dev/full, where every write
// fails with ENOSPC (Linux's full(4) device). The run goes on, says once which file it could not
// write and why, and ends with the exit code its apply deserves.
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { KGUARD, normalize, OFFLINE_REGISTRIES, type Sandbox } from './harness.js';
import { deployWeb, fast, MISSING, runSandbox } from './run-fixtures.js';

let env: Sandbox;
beforeEach(async () => {
  env = await runSandbox();
});
afterEach(async () => {
  await env.stop();
});

/** bin/kguard to the end; with `stdoutFile`, its stdout is that file itself (sh redirects it), not a pipe. */
async function kguardTo(args: string[], stdoutFile?: string) {
  const [command, argv] =
    stdoutFile === undefined ? [KGUARD, args] : ['sh', ['-c', `exec "$0" "$@" > ${stdoutFile}`, KGUARD, ...args]];
  const result = await execa(command, argv, {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: { ...process.env, ...env.cluster.env, ...OFFLINE_REGISTRIES, CI: 'true', NO_COLOR: '1' },
    timeout: 120_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    output: normalize(`${String(result.stdout ?? '')}\n${String(result.stderr ?? '')}`),
  };
}

const ENOSPC = '(ENOSPC: no space left on device, write)';

describe('a full disk (/dev/full): every lost output is said once, and the exit code stands', () => {
  it('--events /dev/full: one warning names the file and the cause; the failed rollout is restored (exit 3)', async () => {
    await deployWeb(env);
    const run = await kguardTo([
      'apply',
      '-f',
      await env.write('web.yaml', deploymentYaml('web', MISSING)),
      ...fast,
      '--events',
      '/dev/full',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    // Before: nothing said; the stream was simply empty.
    const warnings = run.output.split('\n').filter((line) => line.includes('/dev/full'));
    expect(warnings).toEqual([
      `kguard: could not write the events to /dev/full ${ENOSPC}: free space or fix the path; the run goes on and its exit code stands`,
    ]);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  }, 120_000);

  it('--rollback none with --events, --junit and the JSON report all on /dev/full: each said once, nothing said restored (exit 3)', async () => {
    await deployWeb(env);
    const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
    const flags = ['--events', '/dev/full', '--junit', '/dev/full', '-o', 'json', '--rollback', 'none'];
    const run = await kguardTo(['apply', '-f', file, ...fast, ...flags], '/dev/full');
    expect(run.exitCode, run.output).toBe(3);
    const warnings = run.output.split('\n').filter((line) => line.startsWith('kguard: could not write'));
    expect(warnings.sort()).toEqual([
      `kguard: could not write the JSON report to stdout ${ENOSPC}: free space or fix the path; the run goes on and its exit code stands`,
      `kguard: could not write the JUnit report to /dev/full ${ENOSPC}: free space or fix the path; the run goes on and its exit code stands`,
      `kguard: could not write the events to /dev/full ${ENOSPC}: free space or fix the path; the run goes on and its exit code stands`,
    ]);
    expect(run.output).not.toMatch(/is restored|was restored|restored to/);
    expect(run.output).toMatch(
      /^✖ kguard: the apply failed and what it changed was left in place \(--rollback none\) \(exit 3\)$/m,
    );
    expect(env.imageOf('web')).toBe(MISSING);
  }, 120_000);
});
