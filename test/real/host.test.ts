// `npm run cluster:real -- --kubeconfig PATH --real-nodes 1`, as a person or a check runs it: only
// real nodes (no kwok), one line `registry: HOST:PORT` into which anyone may push with skopeo, a
// pod from a pushed image that runs and logs; then a kill -9 of the command, after which its
// watchdog stops the node and the host is as it was (host.ts: /run, cgroups, links, sysctls,
// mounts, processes).
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hostDifferences, snapshotHost } from './host.js';

const CLI = fileURLToPath(new URL('../../dist/test/control-plane/cli.js', import.meta.url));
const children: { kill(signal: NodeJS.Signals): boolean }[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('cluster:real --real-nodes', () => {
  it('runs real pods from its registry with no kwok node, and leaves the host as it was after a kill -9', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kguard-host-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const before = snapshotHost();
    const cli = execa('node', [CLI, '--kubeconfig', kubeconfig, '--real-nodes', '1', '--max-minutes', '10'], {
      reject: false,
      all: true,
      stdin: 'ignore',
    });
    children.push(cli);
    let output = '';
    const registry = await new Promise<string>((resolve, reject) => {
      cli.all?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = /^registry: (\S+)$/m.exec(output);
        if (line && output.includes('export KUBECONFIG=')) resolve(line[1]!);
      });
      void cli.then(() => reject(new Error(`cluster:real ended before it was ready:\n${output}`)));
    });
    expect(registry).toMatch(/^127\.0\.0\.1:\d+$/);
    const kubectl = (args: string[]) =>
      execa('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig }, reject: false, timeout: 60_000 });

    const nodes = await kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(nodes.stdout).toBe('real-node-1');
    // A check pushes an image of its own (plain HTTP, no credentials).
    const pushed = await execa(
      'skopeo',
      [
        'copy',
        '--src-tls-verify=false',
        '--dest-tls-verify=false',
        `docker://${registry}/kguard/testapp:1`,
        `docker://${registry}/mine/app:v1`,
      ],
      { reject: false, timeout: 60_000 },
    );
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    const run = await kubectl([
      'run',
      'mine',
      `--image=${registry}/mine/app:v1`,
      '--restart=Never',
      '--',
      '-print',
      'hello from a real pod',
      '-serve',
      ':8080',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const ready = await kubectl(['wait', 'pod/mine', '--for=condition=Ready', '--timeout=60s']);
    expect(ready.exitCode, ready.stderr).toBe(0);
    // The API server reaches the kubelet (InternalIP, its client certificate) for the logs.
    const logs = await kubectl(['logs', 'mine']);
    expect(logs.stdout.trim(), logs.stderr).toBe('hello from a real pod');

    // This cluster's node names (`real-node-1: cgroup /kguard-<id>-1, bridge kg<id>n1`): another
    // cluster's node on this machine (the suite's own) is not this run's to leave or remove.
    const ownCluster = /^ {2}real-node-1: cgroup \/kguard-([0-9a-f]{6})-1, bridge kg\1n1 /m.exec(output)?.[1];
    expect(ownCluster, output).toMatch(/^[0-9a-f]{6}$/);
    cli.kill('SIGKILL');
    await cli;
    // The watchdog stops the processes (SIGTERM, SIGKILL after 5 s), then the node's cgroup tree and bridge.
    let left: string[] = [];
    const deadline = Date.now() + 40_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      left = hostDifferences(before, snapshotHost(), ownCluster);
    } while (left.length > 0 && Date.now() < deadline);
    expect(left).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});
