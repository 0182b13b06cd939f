// Watches: kubectl get -w, replay from a resourceVersion, selector filtering, bookmarks, expiry.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { spawnKubectl, waitForOutput } from './testing/kubectl.js';
import type { KubeObject } from './types.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
});

afterAll(async () => {
  await cluster?.stop();
});

interface WatchEvent {
  type: string;
  object: KubeObject & { code?: number; message?: string; reason?: string };
}

function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data };
}

/** Reads watch events until `count` arrived (or the server ended the stream), then disconnects. */
async function readWatch(path: string, count: number, whileWatching?: () => void): Promise<WatchEvent[]> {
  const controller = new AbortController();
  const response = await fetch(`${cluster.url}${path}`, { signal: controller.signal });
  expect(response.status).toBe(200);
  whileWatching?.();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: WatchEvent[] = [];
  let buffered = '';
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    while (events.length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

function summary(events: WatchEvent[]): string[] {
  return events.map((event) => `${event.type} ${event.object.metadata?.name ?? ''}`.trim());
}

describe('watch', () => {
  it('streams a later change to `kubectl get pods -w`', async () => {
    cluster.store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'watched', namespace: 'default', labels: { app: 'watch-test' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const child = spawnKubectl(cluster, [
      'get',
      'pods',
      '-l',
      'app=watch-test',
      '-w',
      '--output-watch-events',
      '-o',
      'json',
    ]);
    try {
      await waitForOutput(child, (text) => text.includes('"type":"ADDED"'));
      const pod = cluster.store.get('Pod', 'default', 'watched')!;
      cluster.store.update({ ...pod, metadata: { ...pod.metadata, annotations: { touched: 'yes' } } });
      const output = await waitForOutput(child, (text) => text.includes('"type":"MODIFIED"'));
      const modified = output
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .map((line) => JSON.parse(line) as WatchEvent)
        .find((event) => event.type === 'MODIFIED');
      expect(modified?.object.metadata.annotations).toEqual({ touched: 'yes' });
    } finally {
      child.kill();
      await child;
    }
  });

  it('replays every change after the requested resourceVersion, in order', async () => {
    const start = cluster.store.currentResourceVersion();
    const created = cluster.store.create(configMap('replay-a'));
    cluster.store.update({ ...created, data: { v: '2' } });
    cluster.store.create(configMap('replay-b'));
    cluster.store.delete('ConfigMap', 'default', 'replay-a');
    const events = await readWatch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}`, 4);
    expect(summary(events)).toEqual(['ADDED replay-a', 'MODIFIED replay-a', 'ADDED replay-b', 'DELETED replay-a']);
    expect(events.map((event) => Number(event.object.metadata.resourceVersion))).toEqual([
      start + 1,
      start + 2,
      start + 3,
      start + 4,
    ]);
  });

  it('sends synthetic ADDED events for current objects when no resourceVersion is given', async () => {
    cluster.store.create(configMap('current-a', { set: 'current' }));
    cluster.store.create(configMap('current-b', { set: 'current' }));
    const events = await readWatch(
      '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=set%3Dcurrent&resourceVersion=0',
      2,
    );
    expect(summary(events)).toEqual(['ADDED current-a', 'ADDED current-b']);
  });

  it('filters by label and field selectors, and reports an object leaving the selection as DELETED', async () => {
    const start = cluster.store.currentResourceVersion();
    const tracked = cluster.store.create(configMap('filter-a', { team: 'blue' }));
    cluster.store.create(configMap('filter-b', { team: 'red' }));
    cluster.store.update({ ...tracked, metadata: { ...tracked.metadata, labels: { team: 'red' } } });
    const blue = await readWatch(
      `/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team%3Dblue&resourceVersion=${start}`,
      2,
    );
    expect(summary(blue)).toEqual(['ADDED filter-a', 'DELETED filter-a']);
    const red = await readWatch(
      `/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team%3Dred&resourceVersion=${start}`,
      2,
    );
    expect(summary(red)).toEqual(['ADDED filter-b', 'ADDED filter-a']);
    const byName = await readWatch(
      `/api/v1/configmaps?watch=true&fieldSelector=metadata.name%3Dfilter-b&resourceVersion=${start}`,
      1,
    );
    expect(summary(byName)).toEqual(['ADDED filter-b']);
  });

  it('sends bookmarks when allowed and ends the stream after timeoutSeconds', async () => {
    const began = Date.now();
    const events = await readWatch(
      '/api/v1/namespaces/default/pods?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&fieldSelector=metadata.name%3Dnobody',
      10,
    );
    // The stream ended by itself (the await returned), and not before timeoutSeconds.
    expect(Date.now() - began).toBeGreaterThanOrEqual(1900);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.type === 'BOOKMARK')).toBe(true);
    expect(events[0]!.object).toMatchObject({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(cluster.store.currentResourceVersion()) },
    });
  });

  it('answers a resourceVersion older than the history with a 410 Expired ERROR event', async () => {
    const start = cluster.store.currentResourceVersion();
    for (let i = 0; i < 11_100; i++) cluster.store.create(configMap(`flood-${i}`));
    const events = await readWatch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start}`, 1);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(events[0]!.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('ends `kubectl get -w` with exit code 0 when watches are cut', async () => {
    cluster.store.create(configMap('cut-me'));
    const child = spawnKubectl(cluster, [
      'get',
      'configmaps',
      '-w',
      '-o',
      'name',
      '--field-selector',
      'metadata.name=cut-me',
    ]);
    await waitForOutput(child, (text) => text.includes('configmap/cut-me'));
    // kubectl prints the listed item before it opens the watch; a change proves the watch is open.
    cluster.store.update({ ...cluster.store.get('ConfigMap', 'default', 'cut-me')!, data: { changed: 'yes' } });
    await waitForOutput(child, (text) => text.includes('configmap/cut-me')); // only output written after this call counts
    cluster.faults.cutWatches();
    const result = await child;
    expect(result.exitCode).toBe(0);
  });

  it('streams a list (sendInitialEvents, as kubectl 1.35 watches): the current objects, a bookmark marking their end, then changes', async () => {
    cluster.store.create(configMap('stream-a', { stream: 'yes' }));
    cluster.store.create(configMap('stream-b', { stream: 'yes' }));
    const events = await readWatch(
      '/api/v1/namespaces/default/configmaps?watch=true&labelSelector=stream%3Dyes&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      4,
      () => {
        setTimeout(() => cluster.store.create(configMap('stream-c', { stream: 'yes' })), 50);
      },
    );
    expect(summary(events)).toEqual(['ADDED stream-a', 'ADDED stream-b', 'BOOKMARK', 'ADDED stream-c']);
    expect(events[2]!.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(cluster.store.get('ConfigMap', 'default', 'stream-b')!.metadata.resourceVersion),
    );
  });

  it('refuses sendInitialEvents without resourceVersionMatch=NotOlderThan, and resourceVersionMatch without it (422, as validateWatchOptions)', async () => {
    const refused = await fetch(
      `${cluster.url}/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true`,
    );
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    const alone = await fetch(
      `${cluster.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersionMatch=NotOlderThan`,
    );
    expect(alone.status).toBe(422);
  });
});
