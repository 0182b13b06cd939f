import { describe, expect, it } from 'vitest';
import { createKubectl } from '../../src/kubectl/client.js';
import type { Exec, ExecResult, StreamExec } from '../../src/kubectl/process/exec.js';
import type { WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import { fixtureText, kubectlStderr } from '../fixtures/load.js';

const connection = {
  binary: 'kubectl',
  connectionArgs: ['--context=prod'],
  requestTimeout: '30s',
  readDeadlineMs: 45_000,
};
const failed = (stderr: string): ExecResult => ({ exitCode: 1, stdout: '', stderr });

function recording(
  answer: (args: readonly string[]) => ExecResult,
  streamEnd: ExecResult = { exitCode: 0, stdout: '', stderr: '' },
) {
  const calls: string[][] = [];
  const exec: Exec = async (_file, args) => {
    calls.push([...args]);
    return answer(args);
  };
  const streamed: string[][] = [];
  const stream: StreamExec = (_file, args, onStdout) => {
    streamed.push([...args]);
    // The captured stream, handed over in odd pieces as a pipe would.
    const text = fixtureText('kubectl/get-raw-watch-pods.jsonl');
    for (let at = 0; at < text.length; at += 1000) onStdout(text.slice(at, at + 1000));
    return { done: Promise.resolve(streamEnd), stop: () => undefined };
  };
  return { kubectl: createKubectl(exec, connection, stream), calls, streamed };
}

describe('Kubectl list and watch', () => {
  it('lists a collection with kubectl get --raw and keeps the list resourceVersion', async () => {
    const { kubectl, calls } = recording(() => ({
      exitCode: 0,
      stdout: fixtureText('kubectl/get-raw-list-pods.json'),
      stderr: '',
    }));
    const list = await kubectl.listCollection({ namespace: 'shop', type: 'pods', labelSelector: 'app=web' });
    expect(calls).toEqual([
      [
        '--context=prod',
        'get',
        '--raw',
        '/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb',
        '--request-timeout=30s',
      ],
    ]);
    expect(list.ok && list.resourceVersion).toMatch(/^\d+$/);
    expect(list.ok && list.items.every((item) => item.kind === 'Pod' && item.apiVersion === 'v1')).toBe(true);
  });

  it('gives list items the kind the API server leaves out of lists', async () => {
    const { kubectl } = recording(() => ({
      exitCode: 0,
      stdout: JSON.stringify({
        kind: 'ReplicaSetList',
        apiVersion: 'apps/v1',
        metadata: { resourceVersion: '7' },
        items: [{ metadata: { name: 'a' } }],
      }),
      stderr: '',
    }));
    const list = await kubectl.listCollection({ namespace: 'shop', type: 'replicasets.apps' });
    expect(list).toEqual({
      ok: true,
      resourceVersion: '7',
      items: [{ kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: { name: 'a' } }],
    });
  });

  it('watches with kubectl get --raw from the resourceVersion, with bookmarks and a server timeout, and no request timeout', async () => {
    const { kubectl, streamed } = recording(() => failed('unused'));
    const events: WatchEvent[] = [];
    const watch = kubectl.watchCollection(
      { namespace: 'shop', type: 'deployments.apps', fieldSelector: 'metadata.name=web' },
      { resourceVersion: '40', timeoutSeconds: 300 },
      (event) => events.push(event),
    );
    expect(await watch.done).toEqual({ ended: true });
    expect(streamed).toEqual([
      [
        '--context=prod',
        'get',
        '--raw',
        '/apis/apps/v1/namespaces/shop/deployments?fieldSelector=metadata.name%3Dweb&watch=1&resourceVersion=40&allowWatchBookmarks=true&timeoutSeconds=300',
      ],
    ]);
    expect(events.length).toBe(fixtureText('kubectl/get-raw-watch-pods.jsonl').trim().split('\n').length);
  });

  it('tells a refused connection (wait and try again) from an RBAC refusal (it will not change), in kubectl’s words', async () => {
    const refused = recording(() => failed(''), failed(kubectlStderr('get-raw-watch-refused')));
    const query = { namespace: 'default', type: 'pods' };
    const from = { resourceVersion: '40', timeoutSeconds: 300 };
    expect(await refused.kubectl.watchCollection(query, from, () => undefined).done).toMatchObject({
      ended: false,
      transient: true,
      message: expect.stringContaining('was refused'),
    });
    const forbidden = recording(() => failed(''), failed(kubectlStderr('get-raw-watch-forbidden')));
    expect(await forbidden.kubectl.watchCollection(query, from, () => undefined).done).toMatchObject({
      ended: false,
      transient: false,
      message: expect.stringContaining('cannot watch resource "pods"'),
    });
    const listRefused = recording(() => failed(kubectlStderr('get-connection-refused')));
    expect(await listRefused.kubectl.listCollection(query)).toMatchObject({ ok: false, transient: true });
  });

  it('finds a custom kind’s plural once, in the discovery document of its group version', async () => {
    const discovery = {
      kind: 'APIResourceList',
      groupVersion: 'cert-manager.io/v1',
      resources: [
        { name: 'certificates', kind: 'Certificate' },
        { name: 'certificates/status', kind: 'Certificate' },
      ],
    };
    const { kubectl, calls } = recording((args) =>
      args.includes('/apis/cert-manager.io/v1')
        ? { exitCode: 0, stdout: JSON.stringify(discovery), stderr: '' }
        : {
            exitCode: 0,
            stdout: JSON.stringify({
              kind: 'CertificateList',
              apiVersion: 'cert-manager.io/v1',
              metadata: { resourceVersion: '3' },
              items: [],
            }),
            stderr: '',
          },
    );
    const query = { namespace: 'shop', type: 'Certificate.v1.cert-manager.io', fieldSelector: 'metadata.name=web-tls' };
    await kubectl.listCollection(query);
    await kubectl.listCollection(query);
    expect(calls.map((args) => args[3])).toEqual([
      '/apis/cert-manager.io/v1',
      '/apis/cert-manager.io/v1/namespaces/shop/certificates?fieldSelector=metadata.name%3Dweb-tls',
      '/apis/cert-manager.io/v1/namespaces/shop/certificates?fieldSelector=metadata.name%3Dweb-tls',
    ]);
  });
});
