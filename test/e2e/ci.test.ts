// kguard in CI systems, end to end: GitLab CI's folded log sections and the JUnit report.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { junitSchemaErrors } from '../report/junit-schema.js';
import { sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(
  () => sandbox({ scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository' } } }),
  (fresh) => (env = fresh),
);

describe('kguard apply in GitLab CI', () => {
  it('folds each phase of a failed apply into a collapsed section; the failure and the verdict stay visible', async () => {
    await env.deployHealthy('web');
    const bad = await env.write('bad.yaml', deploymentYaml('web', 'xxxxxnginx:1.17'));
    const run = await env.kguard(['apply', '-f', bad, '--poll-interval', '300ms'], { env: { GITLAB_CI: 'true' } });
    expect(run.exitCode, run.output).toBe(3);
    const sections = [
      ...run.stdout.matchAll(/\u001b\[0Ksection_(start|end):\d+:(kguard_\w+)(\[collapsed=true\])?\r\u001b\[0K/g),
    ].map((match) => `${match[1]} ${match[2]}`);
    expect(sections).toEqual([
      'start kguard_read',
      'end kguard_read',
      'start kguard_apply',
      'end kguard_apply',
      'start kguard_watch',
      'end kguard_watch',
      'start kguard_restore',
      'end kguard_restore',
    ]);
    const afterWatch = run.stdout.split(/section_end:\d+:kguard_watch\r\u001b\[0K\n/)[1] ?? '';
    expect(afterWatch.split('\n')[0]).toMatch(
      /^✖ deployment\/web \(namespace default\): new pods cannot pull image "xxxxxnginx:1.17"/,
    );
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(
      '✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    );
  });

  it('writes no section markers outside GitLab CI', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).not.toContain('section_start');
  });
});

describe('kguard apply --junit FILE', () => {
  it('writes a JUnit report that the JUnit schema accepts: the failed Deployment fails with the diagnosis', async () => {
    await env.deployHealthy('web');
    const bad = await env.write(
      'bad.yaml',
      `${deploymentYaml('web', 'xxxxxnginx:1.17')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: production\n`,
    );
    const junit = join(env.dir, 'kguard.junit.xml');
    const run = await env.kguard(['apply', '-f', bad, '--poll-interval', '300ms', '--junit', junit, '-o', 'json']);
    expect(run.exitCode, run.output).toBe(3);
    const xml = await readFile(junit, 'utf8');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('<testsuite name="kguard apply" tests="2" failures="1" errors="0" skipped="0"');
    // Each case names its manifest file and line (the ConfigMap's document starts after the Deployment's and the ---).
    const configMapLine = deploymentYaml('web', 'xxxxxnginx:1.17').split('\n').length + 1;
    expect(xml).toMatch(
      /<testcase name="deployment\/web \(namespace default\)" classname="kguard.Deployment" time="[\d.]+" file="bad.yaml" line="1">\n {6}<failure message="new pods cannot pull image &quot;xxxxxnginx:1.17&quot;/,
    );
    expect(xml).toContain('restore: restored');
    expect(xml).toMatch(
      new RegExp(
        `<testcase name="configmap/settings \\(namespace default\\)" classname="kguard.ConfigMap" time="[\\d.]+" file="bad.yaml" line="${configMapLine}"/>`,
      ),
    );
  });

  it('writes an error case when nothing could be applied, and a healthy run passes', async () => {
    const junit = join(env.dir, 'error.junit.xml');
    const missing = await env.kguard(['apply', '-f', 'missing.yaml', '--junit', junit]);
    expect(missing.exitCode).toBe(1);
    const errorXml = await readFile(junit, 'utf8');
    expect(await junitSchemaErrors(errorXml)).toEqual([]);
    expect(errorXml).toMatch(/<error message="-f missing.yaml: no such file or directory/);

    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const ok = join(env.dir, 'ok.junit.xml');
    expect((await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--junit', ok])).exitCode).toBe(0);
    const okXml = await readFile(ok, 'utf8');
    expect(await junitSchemaErrors(okXml)).toEqual([]);
    expect(okXml).toContain('tests="1" failures="0" errors="0" skipped="0"');
  });

  it('warns when the file cannot be written, and the exit code stands', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await env.kguard([
      'apply',
      '-f',
      file,
      '--poll-interval',
      '300ms',
      '--junit',
      join(env.dir, 'no-such-dir', 'x.xml'),
    ]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.stderr).toMatch(/kguard: could not write the JUnit report to .*no-such-dir\/x.xml \(ENOENT/);
  });
});
