// kguard as a kubectl plugin: the real kubectl finds bin/kubectl-rollout_guard on PATH and runs it
// for `kubectl rollout-guard ...`, arguments, output and exit code passed through; and it finds
// bin/kubectl_complete-rollout_guard for `kubectl rollout-guard <TAB>`.
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh), false);

function kubectl(args: string[]) {
  return execa('kubectl', args, {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: {
      ...env.cluster.env,
      PATH: `${join(repo, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      CI: 'true',
      NO_COLOR: '1',
    },
  });
}

describe('kubectl rollout-guard', () => {
  it("kubectl runs the plugin from PATH: kubectl rollout-guard --version prints kguard's version", async () => {
    const run = await kubectl(['rollout-guard', '--version']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });

  it('kubectl plugin list finds kubectl-rollout_guard, and the help names the command as typed', async () => {
    const list = await kubectl(['plugin', 'list']);
    expect(list.stdout).toContain(join(repo, 'bin', 'kubectl-rollout_guard'));
    expect(list.stderr).not.toMatch(/warning/i);
    const help = await kubectl(['rollout-guard', 'apply', '--help']);
    expect(help.stdout).toMatch(/^Usage: kubectl rollout-guard apply \[options\]/);
    expect(help.stdout).toContain('  kubectl rollout-guard apply -f k8s/ -l app=web --prune');
  });

  it("kubectl rollout-guard apply applies and watches, with kguard's exit codes", async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await kubectl(['rollout-guard', 'apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('deployment/web (namespace default): rolled out');
    const missing = await kubectl(['rollout-guard', 'apply', '-f', 'missing.yaml']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no such file or directory');
  });

  it("completes through kubectl's own completion (kubectl __complete, as the shells ask it)", async () => {
    const commands = await kubectl(['__complete', 'rollout-guard', 'ap']);
    expect(commands.stdout).toMatch(/^apply\tapply manifests[^\n]*\n:4$/);
    const namespaces = await kubectl(['__complete', 'rollout-guard', 'apply', '--context', 'kguard-sim', '-n', '']);
    expect(namespaces.stdout.split('\n')).toEqual(expect.arrayContaining(['default', ':4']));
    const flags = await kubectl(['__complete', 'rollout-guard', 'apply', '--force-con']);
    expect(flags.stdout).toMatch(/^--force-conflicts\t/);
  });
});
