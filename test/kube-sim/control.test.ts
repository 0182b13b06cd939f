// Fault injection from a shell: what a person trying failures types, through the real kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { kubectl } from './testing/kubectl.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
});

afterAll(async () => {
  await cluster?.stop();
});

const fault = (body: string) => kubectl(cluster, ['create', '--raw', '/kube-sim/faults', '-f', '-'], body);

describe('POST /kube-sim/faults', () => {
  it('fails the next matching requests with the real Status, then serves again; restore clears what is left', async () => {
    const injected = await fault('{"failNext": {"status": 503, "count": 1, "match": "^GET [^?]*/configmaps"}}');
    expect(injected.exitCode, injected.stderr).toBe(0);
    expect(injected.stdout).toContain('"fault":"failNext"');
    const failed = await kubectl(cluster, ['get', 'configmaps']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/ServiceUnavailable|service unavailable|503/i);
    expect((await kubectl(cluster, ['get', 'configmaps'])).exitCode).toBe(0);

    expect((await fault('{"failNext": {"status": 500, "count": 5, "match": "^GET [^?]*/secrets"}}')).exitCode).toBe(0);
    expect((await fault('{"restore": {}}')).exitCode).toBe(0);
    expect((await kubectl(cluster, ['get', 'secrets'])).exitCode).toBe(0);
  });

  it('denies a verb as RBAC would, until restore', async () => {
    expect(
      (await fault('{"deny": {"verb": "delete", "resource": "configmaps", "namespace": "default"}}')).exitCode,
    ).toBe(0);
    expect((await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps'])).stdout.trim()).toBe('no');
    expect((await fault('{"restore": {}}')).exitCode).toBe(0);
    expect((await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps'])).stdout.trim()).toBe('yes');
  });

  it('refuses what it does not know, saying which faults there are', async () => {
    const refused = await fault('{"explode": {}}');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('failNext');
  });
});
