// bin/kguard says "run npm run build" only when the build is missing; any other error that reaches
// it is a bug, said without its message (it may quote cluster data).
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const launchers = ['kguard', 'kubectl-rollout_guard'];
let directory: string | undefined;

async function checkout(entryJs?: string): Promise<string> {
  directory = await mkdtemp(path.join(tmpdir(), 'kguard-launcher-'));
  await mkdir(path.join(directory, 'bin'));
  for (const file of [...launchers, 'launch.mjs'])
    await copyFile(new URL(`../../bin/${file}`, import.meta.url), path.join(directory, 'bin', file));
  await writeFile(path.join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  if (entryJs !== undefined) {
    await mkdir(path.join(directory, 'dist/src/cli'), { recursive: true });
    await writeFile(path.join(directory, 'dist/src/cli/entry.js'), entryJs);
  }
  return directory;
}

afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

describe.each(launchers)('bin/%s', (launcher) => {
  it('asks for npm run build only when the build is missing (exit 2)', async () => {
    const root = await checkout();
    const run = await execa(process.execPath, [path.join(root, 'bin', launcher), '--version'], { reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/dist\/src\/cli\/entry\.js is missing\. Run "npm run build"/);
  });

  it('calls any other escaped error a bug (exit 70) and never prints its message', async () => {
    const root = await checkout(
      "throw new RangeError('Invalid regular expression: /hunter2-secret-value|cGFzc3dvcmQ=/');\n",
    );
    const run = await execa(process.execPath, [path.join(root, 'bin', launcher), '--version'], { reject: false });
    expect(run.exitCode).toBe(70);
    expect(run.stderr).toMatch(/internal error \(RangeError\)/);
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stderr).not.toContain('npm run build');
  });
});

describe('the bundle', () => {
  it('runs in a package that ships it without the checkout build record, and not when tsc built after it', async () => {
    const root = await checkout("process.stdout.write('compiled sources');\n");
    await writeFile(path.join(root, 'dist/kguard.mjs'), "process.stdout.write('bundle');\n");
    const packed = await execa(process.execPath, [path.join(root, 'bin', 'kguard'), '--version']);
    expect(packed.stdout).toBe('bundle');
    // A later tsc-only build in a checkout: its sources are newer than the bundle.
    await writeFile(path.join(root, 'dist/.tsbuildinfo'), '{}');
    await utimes(path.join(root, 'dist/kguard.mjs'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    const checkedOut = await execa(process.execPath, [path.join(root, 'bin', 'kguard'), '--version']);
    expect(checkedOut.stdout).toBe('compiled sources');
  });
});
