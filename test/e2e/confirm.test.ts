// Preview and confirm: apply --diff shows what would change (kubectl diff per object, its exit 1
// is an answer, not an error); apply --confirm asks on a terminal and only there.
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { KGUARD, sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const hasScript = existsSync('/usr/bin/script') || existsSync('/bin/script');
const configMap = (name: string, mode: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  mode: ${mode}\n`;

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

/** Writes by the run that are not dry runs (the preview must make none). */
function writes(since: number): string[] {
  return env.cluster.requests
    .slice(since)
    .filter((request) => request.method !== 'GET' && !/dryRun=All/.test(request.url))
    .map((request) => `${request.method} ${request.url}`);
}

/** kguard on a real pseudo-terminal (util-linux script), typing `answer` at it. */
async function onTerminal(args: string[], answer: string) {
  const command = [KGUARD, ...args].map((arg) => `'${arg}'`).join(' ');
  const result = await execa('script', ['-qec', command, '/dev/null'], {
    cwd: env.dir,
    reject: false,
    input: answer,
    env: { ...env.cluster.env, CI: 'true', NO_COLOR: '1', TERM: 'xterm' },
    timeout: 90_000,
  });
  return { exitCode: result.exitCode ?? -1, output: String(result.stdout ?? '') };
}

async function twoVersions() {
  await env.deployHealthy('web');
  const first = await env.write('v1.yaml', `${configMap('settings', 'one')}---\n${configMap('same', 'x')}`);
  expect((await env.kguard(['apply', '-f', first])).exitCode).toBe(0);
  return env.write(
    'v2.yaml',
    `${configMap('settings', 'two')}---\n${configMap('same', 'x')}---\n${configMap('extra', 'new')}---\n${deploymentYaml('web', 'nginx:1.26')}`,
  );
}

describe('kguard apply --diff', () => {
  it('lists every object as created, changed or unchanged, with kubectl diff for each change, changes nothing, and exits 1 as kubectl diff does', async () => {
    const file = await twoVersions();
    const since = env.cluster.requests.length;
    const run = await env.kguard(['apply', '-f', file, '--diff']);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain('configmap/settings (namespace default): changed: data.mode');
    expect(run.output).toContain('configmap/same (namespace default): unchanged');
    expect(run.output).toContain('configmap/extra (namespace default): created');
    expect(run.output).toMatch(
      /deployment\/web \(namespace default\): changed: .*spec\.template\.spec\.containers\[0\]\.image/,
    );
    expect(run.output).toMatch(
      /• configmap\/settings \(namespace default\): kubectl diff \(live object → after the apply\):\n {4}@@ [^\n]+\n(?: {4}.*\n)*? {4}- {2}mode: one\n {4}\+ {2}mode: two/,
    );
    expect(run.output).toMatch(
      /deployment\/web \(namespace default\): kubectl diff[^\n]*\n(?: {4}.*\n)*? {4}- +image: nginx:1\.25\n {4}\+ +image: nginx:1\.26/,
    );
    expect(run.output).toMatch(
      /configmap\/extra \(namespace default\): kubectl diff[^\n]*\n(?: {4}.*\n)*? {4}\+ {2}mode: new/,
    );
    expect(run.output).not.toContain('configmap/same (namespace default): kubectl diff');
    // Before: "… (exit 1, as kubectl diff when there are differences) (exit 1)": the exit code said twice.
    expect(run.output).toMatch(
      /^✔ kguard: dry run: nothing was changed; the apply would change what the diff above shows \(exit 1, as kubectl diff when there are differences\)$/m,
    );
    expect(writes(since)).toEqual([]);
    expect(env.imageOf('web')).toBe('nginx:1.25');
    // Nothing to change: exit 0, as kubectl diff without differences.
    const same = await env.kguard([
      'apply',
      '-f',
      await env.write('v1-again.yaml', `${configMap('settings', 'one')}---\n${configMap('same', 'x')}`),
      '--diff',
      '-o',
      'json',
    ]);
    expect(same.exitCode, same.output).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ outcome: 'previewed', exitCode: 0 });
  });
});

describe('kguard apply --confirm', () => {
  it('refuses without a terminal, with exit 1 and what to do, and changes nothing', async () => {
    const file = await twoVersions();
    const since = env.cluster.requests.length;
    const run = await env.kguard(['apply', '-f', file, '--confirm']);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain(
      'kguard: --confirm asks before applying, but stdin is not a terminal, so nobody could answer. Pass --yes to apply without asking',
    );
    expect(writes(since)).toEqual([]);
  });

  it('applies without asking with --yes, on a terminal or not', async () => {
    const file = await twoVersions();
    const run = await env.kguard(['apply', '-f', file, '--confirm', '--yes', '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(0);
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });

  it.skipIf(!hasScript)('on a terminal: shows the preview with the diff, asks, and applies on yes', async () => {
    const file = await twoVersions();
    const run = await onTerminal(['apply', '-f', file, '--confirm', '--poll-interval', '300ms'], 'y\n');
    expect(run.exitCode, run.output).toBe(0);
    const asked = run.output.indexOf('Apply these changes? [y/N]');
    expect(asked, run.output).toBeGreaterThan(-1);
    expect(run.output.slice(0, asked)).toMatch(/ {4}\+ +image: nginx:1\.26/);
    // The preview prints no verdict of its own: the only final line is the apply's.
    expect(run.output).not.toContain('dry run: nothing was changed');
    expect(run.output.slice(asked)).toContain(
      'kguard: every changed object was applied and every changed workload rolled out (exit 0)',
    );
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });

  it.skipIf(!hasScript)('on a terminal: anything but yes applies nothing and exits 1', async () => {
    const file = await twoVersions();
    const since = env.cluster.requests.length;
    const run = await onTerminal(['apply', '-f', file, '--confirm'], 'no\n');
    expect(run.exitCode, run.output).toBe(1);
    expect(run.output).toContain('kguard: not applied: the answer was not yes. Nothing was changed. (exit 1)');
    expect(writes(since)).toEqual([]);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});
