// The GitHub Action (action.yml) as the runner runs it: the runner's Node runs the committed
// single-file bundle (action-dist/index.mjs), here copied alone into a directory with no
// node_modules and no package.json beside it, with the inputs as INPUT_* variables (named as the
// runner names them, hyphens kept) and the files the runner provides (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY, RUNNER_TEMP, GITHUB_WORKSPACE), against the simulator.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { splitArgs } from '../../src/action/inputs.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { gitlabTestCases } from '../report/gitlab-junit.js';
import { junitSchemaErrors } from '../report/junit-schema.js';
import { reportSchemaErrors } from '../report/schema.js';
import { sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

const action = parse(await readFile(join(repo, 'action.yml'), 'utf8')) as ActionYml;

/** The bundle, alone in a directory: what a workflow's `uses:` finds, minus the rest of the repository. */
let bundleDir: string;
beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'kguard-action-'));
  await copyFile(join(repo, action.runs.main), join(bundleDir, 'index.mjs'));
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

let env: Sandbox;
sandboxFor(
  () => sandbox({ scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository' } } }),
  (fresh) => (env = fresh),
);

/** Runs the bundle as the runner runs a node24 action: `node <main>`, inputs from their defaults unless given. */
async function runAction(inputs: Record<string, string>, extraEnv: Record<string, string> = {}) {
  const inputEnv = Object.fromEntries(
    Object.keys(action.inputs).map((name) => [
      `INPUT_${name.toUpperCase()}`,
      inputs[name] ?? action.inputs[name]?.default ?? '',
    ]),
  );
  const files = {
    output: join(env.dir, 'github-output'),
    summary: join(env.dir, 'step-summary.md'),
    temp: join(env.dir, 'runner-temp'),
    path: join(env.dir, 'github-path'),
  };
  await mkdir(files.temp, { recursive: true });
  await writeFile(files.output, '');
  const result = await execa(process.execPath, [join(bundleDir, 'index.mjs')], {
    cwd: env.dir,
    reject: false,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...env.cluster.env,
      ...inputEnv,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: env.dir,
      GITHUB_OUTPUT: files.output,
      GITHUB_PATH: files.path,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_TEMP: files.temp,
      ...extraEnv,
    },
    extendEnv: false,
  });
  const outputs = Object.fromEntries(
    (await readFile(files.output, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const summary = await readFile(files.summary, 'utf8').catch(() => '');
  const paths = (await readFile(files.path, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { ...result, outputs, summary, temp: files.temp, paths };
}

describe('action.yml', () => {
  it("runs the committed bundle with the runner's Node 24, and declares the inputs and outputs", () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'action-dist/index.mjs' });
    expect(Object.keys(action.inputs).sort()).toEqual(
      [
        'canary',
        'context',
        'contexts',
        'diff',
        'dry-run',
        'extra-args',
        'files',
        'fleet',
        'fleet-rollback',
        'junit',
        'kubeconfig',
        'kustomize',
        'namespace',
        'rollback',
        'server-side',
        'timeout',
      ].sort(),
    );
    expect(Object.keys(action.outputs).sort()).toEqual(['exit-code', 'junit', 'outcome', 'report', 'run-id']);
  });

  it('applies a healthy change from a kubeconfig given as text: outcome, exit-code, the report, the JUnit file, a summary', async () => {
    await mkdir(join(env.dir, 'k8s'));
    await env.write('k8s/web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const kubeconfig = await readFile(env.cluster.kubeconfigPath, 'utf8');
    const run = await runAction(
      { files: 'k8s/web.yaml', timeout: '1m', kubeconfig, 'extra-args': '--poll-interval 300ms' },
      { KUBECONFIG: join(env.dir, 'none') },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({ outcome: 'succeeded', 'exit-code': '0' });
    expect(run.outputs.report).toMatch(/runner-temp\/kguard-report-.*\.json$/);
    expect(reportSchemaErrors(JSON.parse(await readFile(run.outputs.report!, 'utf8')))).toEqual([]);
    expect(run.outputs.junit).toMatch(/runner-temp\/kguard-junit-.*\.xml$/);
    expect(await junitSchemaErrors(await readFile(run.outputs.junit!, 'utf8'))).toEqual([]);
    expect(run.summary.split('\n')[0]).toBe(
      '### ✔ kguard: every changed object was applied and every changed workload rolled out (exit 0)',
    );
    // The kubeconfig's text went to a private file, never to the log.
    const written = (await readdir(run.temp)).find((name) => name.startsWith('kguard-kubeconfig-'))!;
    expect((await stat(join(run.temp, written))).mode & 0o077).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(kubeconfig.trim().split('\n')[0]);
  });

  it("fails the step with kguard's exit code, annotates the manifest line, and names the JUnit report it asked for", async () => {
    await env.deployHealthy('web');
    await mkdir(join(env.dir, 'k8s'));
    await env.write(
      'k8s/config.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: production\n',
    );
    await env.write('k8s/web.yaml', `# the web tier\n${deploymentYaml('web', 'xxxxxnginx:1.17')}`);
    const run = await runAction({
      files: 'k8s/config.yaml\nk8s/web.yaml\n',
      junit: 'kguard.xml',
      'extra-args': "--poll-interval '300ms'",
    });
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.outputs).toMatchObject({ outcome: 'rolled-back', 'exit-code': '3', junit: 'kguard.xml' });
    expect(run.stderr).toMatch(
      /^::error file=k8s\/web\.yaml,line=2,title=kguard%3A deployment\/web \(namespace default\)::deployment\/web \(namespace default\): new pods cannot pull/m,
    );
    expect(run.summary.split('\n')[0]).toBe(
      '### ✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    );
    expect(gitlabTestCases(await readFile(join(env.dir, 'kguard.xml'), 'utf8'))[1]).toMatchObject({
      status: 'failed',
      file: 'k8s/web.yaml',
    });
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('previews with diff: exit 1 when something would change, and nothing changes', async () => {
    await env.deployHealthy('web');
    await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await runAction({ files: 'web.yaml', diff: 'true' });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.outputs).toMatchObject({ outcome: 'previewed', 'exit-code': '1' });
    expect(run.stderr).toMatch(/\+ +image: nginx:1\.26/);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('masks --token in what it prints, puts kguard on GITHUB_PATH, and outputs run-id: a later if: cancelled() step runs kguard rollback', async () => {
    await env.deployHealthy('web');
    await env.write('web.yaml', deploymentYaml('web', 'xxxxxnginx:1.17'));
    const token = 'sekret-token-4711';
    const run = await runAction({
      files: 'web.yaml',
      rollback: 'none',
      'extra-args': `--poll-interval 300ms --token ${token}`,
    });
    // Before: "kguard apply … --token sekret-token-4711" in the job log.
    expect(`${run.stdout}${run.stderr}`.replace(`::add-mask::${token}`, '')).not.toContain(token);
    expect(run.stdout).toContain(`::add-mask::${token}`);
    expect(run.stderr).toMatch(/^kguard apply .*--token \[redacted\]/m);
    expect(run.outputs['run-id']).toMatch(/^kguard-[a-z0-9]+-[a-z0-9]+$/);
    expect(run.paths).toHaveLength(1);
    // The next step: `kguard status` from PATH, as a later step of the job runs it.
    const later = await execa('kguard', ['status'], {
      cwd: env.dir,
      reject: false,
      env: { ...process.env, ...env.cluster.env, PATH: `${run.paths[0]}:${process.env.PATH}`, CI: 'true' },
    });
    expect(later.exitCode, later.stderr).toBe(0);
    // The run ended (its journal is gone): the launcher's kguard reads the cluster as the action's did.
    expect(later.stdout).toBe('no unfinished kguard runs');
  });

  it('refuses an input that is not a boolean, with an annotation and exit-code 1', async () => {
    const run = await runAction({ files: 'web.yaml', 'server-side': 'yes' });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('::error title=kguard::input server-side: "yes" is not a boolean; use true or false.');
    expect(run.outputs).toMatchObject({ outcome: 'error', 'exit-code': '1' });
  });
});

describe('splitArgs', () => {
  it('splits like a shell: quotes group, backslashes escape, -- is kept', () => {
    expect(splitArgs(`--settle 30s --field-manager "ci bot" -- --prune -l 'app=web,tier in (a, b)' a\\ b`)).toEqual([
      '--settle',
      '30s',
      '--field-manager',
      'ci bot',
      '--',
      '--prune',
      '-l',
      'app=web,tier in (a, b)',
      'a b',
    ]);
    expect(splitArgs('  ')).toEqual([]);
    expect(splitArgs('""')).toEqual(['']);
  });
});
