// The GitHub Action (action.yml) as the runner runs it: the apply step's script with its env
// (inputs substituted as ${{ inputs.* }} expressions are), and the files the runner provides
// (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, GITHUB_WORKSPACE), against the simulator.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { splitArgs } from '../../src/action/inputs.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { reportSchemaErrors } from '../report/schema.js';
import { sandbox, type Sandbox } from './harness.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  id?: string;
  name: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
}
interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(await readFile(join(repo, 'action.yml'), 'utf8')) as ActionYml;

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository' } } });
});
afterEach(async () => {
  await env.stop();
});

/** Runs the step with `id` as the runner does: its env's ${{ inputs.x }} filled from `inputs` or the defaults. */
async function runStep(id: string, inputs: Record<string, string>) {
  const step = action.runs.steps.find((candidate) => candidate.id === id)!;
  const value = (name: string) => inputs[name] ?? action.inputs[name]?.default ?? '';
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, text]) => [name, text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_match, input: string) => value(input))]),
  );
  const files = { output: join(env.dir, 'github-output'), summary: join(env.dir, 'step-summary.md'), temp: join(env.dir, 'runner-temp') };
  await mkdir(files.temp, { recursive: true });
  await writeFile(files.output, '');
  const result = await execa(step.shell, ['-e', '-c', step.run], {
    cwd: env.dir,
    reject: false,
    env: {
      ...env.cluster.env,
      ...stepEnv,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: repo,
      GITHUB_WORKSPACE: env.dir,
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_TEMP: files.temp,
    },
  });
  const outputs = Object.fromEntries(
    (await readFile(files.output, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const summary = await readFile(files.summary, 'utf8').catch(() => '');
  return { ...result, outputs, summary };
}

describe('action.yml', () => {
  it('is a composite action that installs kguard from its own checkout and passes inputs only through the environment', () => {
    expect(action.runs.using).toBe('composite');
    const [install, apply] = action.runs.steps;
    expect(install?.run).toContain('cd "$GITHUB_ACTION_PATH"');
    expect(install?.run).toMatch(/npm ci[^\n]*\n\s*npm run build/);
    expect(apply?.id).toBe('apply');
    expect(apply?.run).not.toContain('${{');
    expect(Object.keys(action.inputs).sort()).toEqual(['context', 'extra-args', 'files', 'kustomize', 'namespace', 'rollback', 'server-side', 'timeout']);
    for (const input of Object.keys(action.inputs)) expect(Object.values(apply?.env ?? {})).toContain(`\${{ inputs.${input} }}`);
    expect(action.outputs).toEqual({
      outcome: expect.objectContaining({ value: '${{ steps.apply.outputs.outcome }}' }),
      'exit-code': expect.objectContaining({ value: '${{ steps.apply.outputs.exit-code }}' }),
      report: expect.objectContaining({ value: '${{ steps.apply.outputs.report }}' }),
    });
  });

  it('applies a healthy change: outcome succeeded, exit-code 0, the report file, a summary', async () => {
    await mkdir(join(env.dir, 'k8s'));
    await env.write('k8s/web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await runStep('apply', { files: 'k8s/web.yaml', timeout: '1m', 'extra-args': '--poll-interval 300ms' });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({ outcome: 'succeeded', 'exit-code': '0' });
    expect(run.outputs.report).toMatch(/runner-temp\/kguard-report-.*\.json$/);
    const report = JSON.parse(await readFile(run.outputs.report!, 'utf8')) as unknown;
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(run.summary.split('\n')[0]).toBe('### ✔ kguard: every changed object was applied and every changed workload rolled out (exit 0)');
  });

  it('fails the step with kguard\'s exit code, annotates the manifest line and sets the outputs', async () => {
    await env.deployHealthy('web');
    await mkdir(join(env.dir, 'k8s'));
    await env.write('k8s/config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: production\n');
    await env.write('k8s/web.yaml', `# the web tier\n${deploymentYaml('web', 'xxxxxnginx:1.17')}`);
    const run = await runStep('apply', { files: 'k8s/config.yaml\nk8s/web.yaml\n', 'extra-args': "--poll-interval '300ms'" });
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.outputs).toMatchObject({ outcome: 'rolled-back', 'exit-code': '3' });
    expect(run.stderr).toMatch(/^::error file=k8s\/web\.yaml,line=2,title=kguard%3A deployment\/web \(namespace default\)::deployment\/web \(namespace default\): new pods cannot pull/m);
    expect(run.summary.split('\n')[0]).toBe('### ✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)');
    expect(run.summary).toMatch(/^\| configmap\/settings \(namespace default\) \| created \| applied \| ↩ deleted \(this apply created it\) \|$/m);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('refuses an input that is not a boolean, with an annotation and exit-code 1', async () => {
    const run = await runStep('apply', { files: 'web.yaml', 'server-side': 'yes' });
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
