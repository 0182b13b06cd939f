// The single executable (npm run build:sea): built with this machine's Node and postject, then
// copied alone into a directory with no node_modules and no package.json, where it applies
// against the simulator through the real kubectl: a healthy rollout, and a failed one restored.
import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSea } from '../../build/sea.js';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';

let dir: string;
let executable: string;
let cluster: Cluster;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-sea-'));
  const built = await buildSea(join(dir, 'build'));
  executable = join(dir, 'kguard');
  await copyFile(built, executable);
  await rm(join(dir, 'build'), { recursive: true, force: true });
  cluster = await startCluster({ timeScale: 10, scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository' } } });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[]) =>
  execa(executable, args, {
    cwd: dir,
    reject: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...cluster.env, CI: 'true', NO_COLOR: '1' },
    extendEnv: false,
  });

describe('the single executable', () => {
  it('is one file with Node inside, and says its version', async () => {
    expect((await stat(executable)).size).toBeGreaterThan(30_000_000);
    expect((await run(['--version'])).stdout.trim()).toBe(
      (await import('../../package.json', { with: { type: 'json' } })).default.version,
    );
  });

  it('applies, watches and restores against the simulator with no node_modules beside it', async () => {
    await writeFile(join(dir, 'web.yaml'), deploymentYaml('web', 'nginx:1.25'));
    const healthy = await run(['apply', '-f', 'web.yaml', '--poll-interval', '300ms']);
    expect(healthy.exitCode, healthy.stdout + healthy.stderr).toBe(0);
    expect(healthy.stdout).toContain('deployment/web (namespace default): rolled out');
    await writeFile(join(dir, 'web.yaml'), deploymentYaml('web', 'xxxxxnginx:1.17'));
    const failed = await run(['apply', '-f', 'web.yaml', '--poll-interval', '300ms', '-o', 'json']);
    expect(failed.exitCode, failed.stderr).toBe(3);
    expect(JSON.parse(failed.stdout)).toMatchObject({ outcome: 'rolled-back', exitCode: 3 });
    expect(cluster.store.get('Deployment', 'default', 'web')?.spec.template.spec.containers[0].image).toBe(
      'nginx:1.25',
    );
  });
});
