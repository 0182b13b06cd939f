// kguard as a kubectl plugin: the real kubectl finds bin/kubectl-guard on PATH and runs it for
// `kubectl guard ...`, arguments, output and exit code passed through.
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;

let env: Sandbox;
beforeAll(async () => {
  env = await sandbox();
});
afterAll(async () => {
  await env.stop();
});

function kubectl(args: string[]) {
  return execa('kubectl', args, {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: { ...env.cluster.env, PATH: `${join(repo, 'bin')}${delimiter}${process.env.PATH ?? ''}`, CI: 'true', NO_COLOR: '1' },
  });
}

describe('kubectl guard', () => {
  it('kubectl runs the plugin from PATH: kubectl guard --version prints kguard\'s version', async () => {
    const run = await kubectl(['guard', '--version']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });

  it('kubectl plugin list finds kubectl-guard, and the help names the command as typed', async () => {
    const list = await kubectl(['plugin', 'list']);
    expect(list.stdout).toContain(join(repo, 'bin', 'kubectl-guard'));
    const help = await kubectl(['guard', 'apply', '--help']);
    expect(help.stdout).toMatch(/^Usage: kubectl guard apply \[options\]/);
  });

  it('kubectl guard apply applies and watches, with kguard\'s exit codes', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await kubectl(['guard', 'apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('deployment/web (namespace default): rolled out');
    const missing = await kubectl(['guard', 'apply', '-f', 'missing.yaml']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('no such file or directory');
  });
});
