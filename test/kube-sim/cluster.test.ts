import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCluster } from './cluster.js';
import { kubectl } from './testing/kubectl.js';

describe('startCluster', () => {
  // How fast it starts is measured by the benchmark (npm run bench), not asserted here.
  it('starts with the standard namespaces and a kubeconfig', async () => {
    const cluster = await startCluster();
    try {
      expect(cluster.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(readFileSync(cluster.kubeconfigPath, 'utf8')).toContain(`server: ${cluster.url}`);
      expect(cluster.env).toEqual({
        KUBECONFIG: cluster.kubeconfigPath,
        KUBECACHEDIR: expect.stringContaining('kguard-sim-'),
      });
      const namespaces = cluster.store.list('Namespace').map((namespace) => namespace.metadata.name);
      expect(namespaces).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));
      const version = await kubectl(cluster, ['version', '-o', 'json']);
      expect(JSON.parse(version.stdout)).toMatchObject({
        serverVersion: { major: '1', minor: '32', gitVersion: 'v1.32.0' },
      });
    } finally {
      await cluster.stop();
    }
  });

  it('runs several independent clusters in one process', async () => {
    const [first, second] = await Promise.all([startCluster(), startCluster()]);
    try {
      expect(first.url).not.toBe(second.url);
      first.store.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'only-in-first', namespace: 'default' },
      });
      expect((await kubectl(first, ['get', 'cm', '-o', 'name'])).stdout).toBe('configmap/only-in-first');
      expect((await kubectl(second, ['get', 'cm', '-o', 'name'])).stdout).toBe('');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('stops completely: open watches end, the port closes and the temp directory goes', async () => {
    const cluster = await startCluster();
    const watch = await fetch(`${cluster.url}/api/v1/pods?watch=true`);
    const body = watch.text();
    await cluster.stop();
    await expect(body).resolves.toBe('');
    expect(existsSync(cluster.kubeconfigPath)).toBe(false);
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
  });
});
