// The API channel against the simulated API server, through the real `kubectl proxy`: raw calls
// answered as kubectl --raw answers them, one process for all of them, and a process of its own
// again for each call whenever the proxy cannot serve.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiChannel } from '../../src/kubectl/channel/api-channel.js';
import { backgroundProcess, execProcess, streamProcess, type Exec } from '../../src/kubectl/process/exec.js';
import { startCluster, type Cluster } from '../kube-sim/cluster.js';

let cluster: Cluster;
let connection: string[];

beforeAll(async () => {
  cluster = await startCluster({ timeScale: 10 });
  connection = [`--kubeconfig=${cluster.kubeconfigPath}`, '--context=kguard-sim'];
});
afterAll(() => cluster.stop());

/** execProcess, with the argv of each call that ran as a process of its own. */
function countingExec(): { exec: Exec; processes: string[][] } {
  const processes: string[][] = [];
  return {
    processes,
    exec: async (file, args, options) => {
      processes.push([...args]);
      return execProcess(file, args, options);
    },
  };
}

/** The kubectl proxy processes serving this file's cluster. */
function proxyPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      const argv = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          return [];
        }
      })();
      return argv.includes('proxy') && argv.includes(`--kubeconfig=${cluster.kubeconfigPath}`);
    })
    .map(Number);
}

describe('the API channel', () => {
  it('answers raw reads and writes through one kubectl proxy, as kubectl --raw prints them', async () => {
    cluster.store.create(yamlToConfigMap('settings', { mode: 'a' }));
    const { exec, processes } = countingExec();
    const channel = apiChannel(exec, streamProcess, 'kubectl', backgroundProcess);
    try {
      const path = '/api/v1/namespaces/default/configmaps/settings';
      const read = await channel.exec('kubectl', [...connection, 'get', '--raw', path, '--request-timeout=30s'], {
        timeoutMs: 30_000,
      });
      expect(read).toMatchObject({ exitCode: 0, proxied: true });
      const live = JSON.parse(read.stdout) as { metadata: { resourceVersion: string; name: string } };
      expect(live.metadata.name).toBe('settings');

      // A write conditional on an old resourceVersion: 409, in kubectl's words.
      const stale = { ...live, metadata: { ...live.metadata, resourceVersion: '1' }, data: { mode: 'b' } };
      const refused = await channel.exec(
        'kubectl',
        [...connection, 'replace', '--raw', `${path}?fieldManager=kguard-restore`, '-f', '-'],
        { timeoutMs: 30_000, input: JSON.stringify(stale) },
      );
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(
        /^Error from server \(Conflict\): Operation cannot be fulfilled on configmaps "settings"/,
      );

      const written = await channel.exec(
        'kubectl',
        [...connection, 'replace', '--raw', `${path}?fieldManager=kguard-restore`, '-f', '-'],
        {
          timeoutMs: 30_000,
          input: JSON.stringify({ ...live, data: { mode: 'b' } }),
        },
      );
      expect(written.exitCode, written.stderr).toBe(0);
      expect(cluster.store.get('ConfigMap', 'default', 'settings')?.data).toEqual({ mode: 'b' });

      const missing = await channel.exec(
        'kubectl',
        [...connection, 'get', '--raw', '/api/v1/namespaces/default/configmaps/nothing'],
        { timeoutMs: 30_000 },
      );
      expect(missing.stderr).toBe('Error from server (NotFound): configmaps "nothing" not found\n');

      // The same answers, one process: the proxy.
      expect(processes).toEqual([]);
      expect(channel.processes).toBe(1);
      expect(channel.requests).toBe(4);
    } finally {
      channel.close();
    }
  });

  it('streams a watch through the proxy as events arrive, and stops it', async () => {
    const channel = apiChannel(execProcess, streamProcess, 'kubectl', backgroundProcess);
    try {
      const list = JSON.parse(
        (
          await channel.exec('kubectl', [...connection, 'get', '--raw', '/api/v1/namespaces/default/configmaps'], {
            timeoutMs: 30_000,
          })
        ).stdout,
      ) as { metadata: { resourceVersion: string } };
      let seen = '';
      const watch = channel.stream(
        'kubectl',
        [
          ...connection,
          'get',
          '--raw',
          `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`,
        ],
        (text) => (seen += text),
      );
      cluster.store.create(yamlToConfigMap('watched', { a: '1' }));
      await until(() => seen.includes('"watched"'));
      expect(JSON.parse(seen.split('\n')[0] as string)).toMatchObject({
        type: 'ADDED',
        object: { metadata: { name: 'watched' } },
      });
      watch.stop();
      expect((await watch.done).exitCode).not.toBe(0);
      expect(channel.processes).toBe(1);
    } finally {
      channel.close();
    }
  });

  it("runs each call as its own kubectl process when the proxy cannot start, with kubectl's own answer", async () => {
    const { exec, processes } = countingExec();
    const channel = apiChannel(exec, streamProcess, 'kubectl', backgroundProcess);
    try {
      const args = [`--kubeconfig=${cluster.kubeconfigPath}`, '--context=no-such-context', 'get', '--raw', '/api/v1'];
      const result = await channel.exec('kubectl', args, { timeoutMs: 30_000 });
      expect(result.proxied).toBeUndefined();
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toContain('no-such-context');
      expect(processes).toEqual([args]);
    } finally {
      channel.close();
    }
  });

  it('falls back to processes when the proxy dies mid-run, and close() leaves no proxy and no socket behind', async () => {
    const { exec, processes } = countingExec();
    const channel = apiChannel(exec, streamProcess, 'kubectl', backgroundProcess);
    const args = [...connection, 'get', '--raw', '/api/v1/namespaces/default/configmaps'];
    expect((await channel.exec('kubectl', args, { timeoutMs: 30_000 })).proxied).toBe(true);
    const socketArg = proxyArgv().find((arg) => arg.startsWith('--unix-socket='));
    expect(socketArg).toBeDefined();
    for (const pid of proxyPids()) process.kill(pid, 'SIGKILL');
    await until(() => proxyPids().length === 0);
    const after = await channel.exec('kubectl', args, { timeoutMs: 30_000 });
    expect(after.exitCode, after.stderr).toBe(0);
    expect(after.proxied).toBeUndefined();
    expect(processes).toEqual([args]);
    channel.close();
    expect(existsSync(socketArg!.slice('--unix-socket='.length))).toBe(false);
  });

  it('starts no proxy once closed: a late call runs as a process and nothing is left behind', async () => {
    const { exec, processes } = countingExec();
    const channel = apiChannel(exec, streamProcess, 'kubectl', backgroundProcess);
    channel.close();
    channel.start(connection);
    const args = [...connection, 'get', '--raw', '/api/v1/namespaces/default/configmaps'];
    const late = await channel.exec('kubectl', args, { timeoutMs: 30_000 });
    expect(late.exitCode, late.stderr).toBe(0);
    expect(late.proxied).toBeUndefined();
    expect(processes).toEqual([args]);
    expect(proxyPids()).toEqual([]);
  });
});

function proxyArgv(): string[] {
  const [pid] = proxyPids();
  return pid === undefined ? [] : readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
}

function yamlToConfigMap(name: string, data: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

async function until(probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
