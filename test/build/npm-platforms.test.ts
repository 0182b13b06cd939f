// What `npm install kguard` brings: one npm package per release executable, matched by npm on os,
// cpu and libc, and the launcher (bin/launch.mjs) that runs the installed one instead of the bundle.
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINARY_TARGETS } from '../../build/binaries.js';
import { optionalDependencies, PLATFORMS, platformManifest, platformPackageName } from '../../build/npm-platforms.js';

describe('the platform packages', () => {
  it('match each executable on os, cpu and (on Linux) the C library', () => {
    const main = { name: 'kguard', version: '1.2.3', license: 'MIT' };
    const manifests = BINARY_TARGETS.map((target) => platformManifest(target, main) as Record<string, unknown>);
    expect(manifests.map((manifest) => [manifest.name, manifest.os, manifest.cpu, manifest.libc])).toEqual([
      ['@kguard/linux-x64', ['linux'], ['x64'], ['glibc']],
      ['@kguard/linux-arm64', ['linux'], ['arm64'], ['glibc']],
      ['@kguard/linux-x64-musl', ['linux'], ['x64'], ['musl']],
      ['@kguard/darwin-x64', ['darwin'], ['x64'], undefined],
      ['@kguard/darwin-arm64', ['darwin'], ['arm64'], undefined],
    ]);
    for (const manifest of manifests) {
      expect(manifest.version).toBe('1.2.3');
      expect(manifest.files).toEqual(['bin/kguard']);
    }
    expect(Object.keys(PLATFORMS)).toEqual(BINARY_TARGETS.map((target) => target.asset));
  });

  it('are every one an optional dependency of kguard, at its version', () => {
    expect(optionalDependencies('1.2.3')).toEqual(
      Object.fromEntries(BINARY_TARGETS.map((target) => [platformPackageName(target.asset), '1.2.3'])),
    );
  });
});

describe('the launcher, with a platform package installed', () => {
  let root: string;
  let launcher: string;
  beforeAll(async () => {
    // node_modules as npm lays it out: kguard's bin/ beside @kguard/<platform>/bin/kguard (a
    // script here, standing in for the executable: it says how it was started and ends as told).
    root = await mkdtemp(join(tmpdir(), 'kguard-platforms-'));
    await mkdir(join(root, 'node_modules', 'kguard'), { recursive: true });
    await cp(new URL('../../bin', import.meta.url), join(root, 'node_modules', 'kguard', 'bin'), { recursive: true });
    launcher = join(root, 'node_modules', 'kguard', 'bin', 'kguard');
    for (const target of BINARY_TARGETS) {
      const bin = join(root, 'node_modules', platformPackageName(target.asset), 'bin');
      await mkdir(bin, { recursive: true });
      await writeFile(
        join(bin, 'kguard'),
        `#!/bin/sh\ntrap 'echo "got TERM"; kill $! 2>/dev/null; exit 143' TERM\necho "executable: $*"\n[ "$1" = wait ] && { sleep 30 >/dev/null 2>&1 & wait $!; }\nexit "\${EXIT:-0}"\n`,
      );
      await chmod(join(bin, 'kguard'), 0o755);
    }
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('runs the executable with the arguments, and ends with its exit code', async () => {
    const run = await execa(launcher, ['apply', '-f', 'web.yaml'], { env: { EXIT: '3' }, reject: false });
    expect(run.stdout).toBe('executable: apply -f web.yaml');
    expect(run.exitCode).toBe(3);
  });

  it('passes a SIGTERM sent to it alone on to the executable', async () => {
    const child = execa(launcher, ['wait'], { reject: false });
    await new Promise<void>((resolve) => child.stdout?.on('data', () => resolve()));
    child.kill('SIGTERM');
    const run = await child;
    expect(run.stdout).toBe('executable: wait\ngot TERM');
    expect(run.exitCode).toBe(143);
  });

  it("becomes the executable at install (npm's postinstall), so a run starts no Node first", async () => {
    const copy = join(root, 'installed');
    await mkdir(join(copy, 'node_modules', 'kguard'), { recursive: true });
    await cp(join(root, 'node_modules'), join(copy, 'node_modules'), { recursive: true });
    const bin = join(copy, 'node_modules', 'kguard', 'bin');
    await execa(process.execPath, [join(bin, 'install.mjs')]);
    for (const command of ['kguard', 'kubectl-rollout_guard']) {
      expect(await readFile(join(bin, command), 'utf8')).toMatch(/^#!\/bin\/sh\n/);
      // No Node between: the shell script runs as the command itself.
      const run = await execa(join(bin, command), ['status'], { env: { PATH: '/nonexistent' }, extendEnv: false });
      expect(run.stdout).toBe('executable: status');
    }
    expect(await readFile(join(bin, 'kubectl_complete-rollout_guard'), 'utf8')).toContain('__complete');
  });

  it('runs the JavaScript instead under KGUARD_RUNTIME=node', async () => {
    // No dist/ beside this copy of bin/: the JavaScript path says so.
    const run = await execa(launcher, ['version'], { env: { KGUARD_RUNTIME: 'node' }, reject: false });
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('dist/src/cli/entry.js is missing');
  });
});
