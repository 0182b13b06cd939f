// The library entry (src/index.ts) against the simulated cluster: in this process, and as the
// documented example (docs/library.md), run by node from a project that installed kguard.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apply, InputError, type ApplyEvent } from '../../src/index.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from '../e2e/harness.js';
import { reportSchemaErrors } from '../report/schema.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository' } } });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await env.stop();
});

/** The ```js block under the library-example marker in docs/library.md, as written there. */
async function documentedExample(): Promise<string> {
  const page = await readFile(join(repo, 'docs', 'library.md'), 'utf8');
  const match = /<!-- library-example[^>]*-->\n```js\n([\s\S]*?)```/.exec(page);
  if (!match?.[1]) throw new Error('docs/library.md has no library example block');
  return match[1];
}

describe('apply() from the library', () => {
  it('resolves with the JSON report, calls back with every event, and neither writes to stdout nor exits', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const stdout = vi.spyOn(process.stdout, 'write');
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const events: ApplyEvent[] = [];
    const lines: string[] = [];
    const report = await apply({
      files: [file],
      kubeconfig: env.cluster.env.KUBECONFIG,
      pollInterval: 300,
      onEvent: (event, line) => {
        events.push(event);
        lines.push(line.text);
      },
    });
    expect(stdout).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report).toMatchObject({
      outcome: 'succeeded',
      exitCode: 0,
      objects: [{ kind: 'Deployment', name: 'web', verdict: 'healthy' }],
    });
    expect(events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(['understood', 'applied', 'changes', 'healthy', 'finished']),
    );
    expect(report.messages).toEqual(lines);
  });

  it('reports a failed rollout as a restored run (exit code 3), not as an error; manifests can be text', async () => {
    await env.deployHealthy('web');
    const report = await apply({
      stdin: deploymentYaml('web', 'xxxxxnginx:1.17'),
      kubeconfig: env.cluster.env.KUBECONFIG,
      pollInterval: '300ms',
    });
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report).toMatchObject({ outcome: 'rolled-back', exitCode: 3 });
    expect(report.objects[0]).toMatchObject({
      verdict: 'failed',
      category: 'image-pull',
      restore: { status: 'restored' },
    });
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('rejects with an InputError (exit code 1) for what the CLI refuses, before anything is applied', async () => {
    const missing = apply({ files: [join(env.dir, 'missing.yaml')], kubeconfig: env.cluster.env.KUBECONFIG });
    await expect(missing).rejects.toBeInstanceOf(InputError);
    await expect(missing).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('no such file or directory'),
    });
    await expect(apply({ files: ['x.yaml'], timeout: 'soon' })).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('is not a duration'),
    });
  });
});

describe('the library example of docs/library.md', () => {
  it('runs as written in a project that installed kguard, and prints the outcome per object', async () => {
    // A project with kguard in node_modules: `import 'kguard'` goes through package.json exports.
    await mkdir(join(env.dir, 'node_modules'), { recursive: true });
    await symlink(repo, join(env.dir, 'node_modules', 'kguard'), 'dir');
    await writeFile(join(env.dir, 'example.mjs'), await documentedExample());
    await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await execa('node', ['example.mjs'], { cwd: env.dir, env: { ...env.cluster.env }, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe('succeeded (exit 0)\nDeployment/web: healthy');
    expect(run.stderr).toContain('[applied] applied 1 object (deployment.apps/web created)');

    await env.write('web.yaml', deploymentYaml('web', 'xxxxxnginx:1.17'));
    const failed = await execa('node', ['example.mjs'], { cwd: env.dir, env: { ...env.cluster.env }, reject: false });
    expect(failed.exitCode, failed.stderr).toBe(3);
    expect(failed.stdout).toMatch(
      /^rolled-back \(exit 3\)\nDeployment\/web: failed - new pods cannot pull image "xxxxxnginx:1.17"/,
    );
  });
});

describe('the typed entry point', () => {
  it('type-checks a TypeScript consumer through package.json exports and types (dist/src/index.d.ts)', async () => {
    const project = join(env.dir, 'consumer');
    await mkdir(join(project, 'node_modules'), { recursive: true });
    await symlink(repo, join(project, 'node_modules', 'kguard'), 'dir');
    await writeFile(join(project, 'package.json'), '{"type":"module"}');
    await writeFile(
      join(project, 'deploy.ts'),
      [
        "import { apply, KguardError, type ApplyReport, type ApplyEvent } from 'kguard';",
        "const seen: ApplyEvent['kind'][] = [];",
        "const report: ApplyReport = await apply({ files: ['web.yaml'], timeout: 120_000, rollback: 'failed', onEvent: (event) => seen.push(event.kind) });",
        'const code: number = report.exitCode;',
        'const verdicts: string[] = report.objects.map((object) => object.verdict);',
        'export { code, verdicts, KguardError };',
        '// @ts-expect-error: a rollback mode that does not exist',
        "await apply({ files: ['x'], rollback: 'sometimes' });",
      ].join('\n'),
    );
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      join(repo, 'node_modules', '@types'),
      'deploy.ts',
    ];
    const result = await execa('node', [tsc, ...flags], { cwd: project, reject: false });
    expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(0);
  });
});
