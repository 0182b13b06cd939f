// kubectl logs, and the injected API faults as kubectl experiences them.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { deploymentYaml, kubectl } from './testing/kubectl.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
  cluster.store.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'logger',
      namespace: 'default',
      annotations: {
        'sim.kguard.dev/logs.app': 'starting\nlistening on :80\nready\n',
        'sim.kguard.dev/logs.sidecar': 'proxy up\n',
      },
    },
    spec: {
      containers: [
        { name: 'app', image: 'nginx' },
        { name: 'sidecar', image: 'envoy' },
      ],
    },
    status: { phase: 'Running' },
  });
  cluster.store.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pulling', namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'nginx:doesnotexist' }] },
    status: {
      phase: 'Pending',
      containerStatuses: [{ name: 'app', ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } }],
    },
  });
  await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('faulty', 'nginx:1.25'));
});

afterEach(async () => {
  await cluster.faults.restore();
});

afterAll(async () => {
  await cluster?.stop();
});

describe('kubectl logs', () => {
  it('prints the log the kubelet recorded for the chosen container, honouring --tail', async () => {
    expect(await kubectl(cluster, ['logs', 'logger', '-c', 'app'])).toMatchObject({
      exitCode: 0,
      stdout: 'starting\nlistening on :80\nready',
    });
    expect(await kubectl(cluster, ['logs', 'logger', '-c', 'app', '--tail=1'])).toMatchObject({
      exitCode: 0,
      stdout: 'ready',
    });
    expect(await kubectl(cluster, ['logs', 'pod/logger', '-c', 'sidecar'])).toMatchObject({
      exitCode: 0,
      stdout: 'proxy up',
    });
  });

  it('explains why a container that never started has no logs', async () => {
    const result = await kubectl(cluster, ['logs', 'pulling']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Error from server (BadRequest): container "app" in pod "pulling" is waiting to start: trying and failing to pull image',
    );
  });

  it('has no previous log for a container that never restarted', async () => {
    const result = await kubectl(cluster, ['logs', 'logger', '-c', 'app', '--previous']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Error from server (BadRequest): previous terminated container "app" in pod "logger" not found',
    );
  });

  it('rejects an unknown container', async () => {
    const result = await kubectl(cluster, ['logs', 'logger', '-c', 'nope']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('container nope is not valid for pod logger');
  });
});

describe('faults', () => {
  it('answers the next resource request with a 500 Status that kubectl prints', async () => {
    cluster.faults.failNext(500);
    const failed = await kubectl(cluster, ['get', 'deployment', 'faulty']);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr.trim()).toBe(
      'Error from server (InternalError): Internal error occurred: etcdserver: request timed out',
    );
    expect((await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name'])).stdout).toBe(
      'deployment.apps/faulty',
    );
  });

  it('denies a matching request like RBAC does', async () => {
    cluster.faults.failNext(403, 1, /^PATCH .*\/deployments\/faulty/);
    const result = await kubectl(cluster, ['scale', 'deployment', 'faulty', '--replicas=3']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'deployments.apps "faulty" is forbidden: User "system:anonymous" cannot patch resource "deployments/scale" in API group "apps" in the namespace "default"',
    );
    cluster.faults.failNext(403, 1, /^GET .*\/pods\?/);
    const list = await kubectl(cluster, ['get', 'pods', '-A']);
    expect(list.stderr.trim()).toBe(
      'Error from server (Forbidden): pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope',
    );
  });

  it('lets client-go retry a 429 that carries Retry-After, as against a real server', async () => {
    cluster.faults.failNext(429, 1);
    const began = Date.now();
    const result = await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/faulty' });
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
  });

  it('answers only the matching request late with slowNext, so kubectl --request-timeout gives up on it', async () => {
    cluster.faults.slowNext(5000, 1, /^GET [^?]*\/deployments\/faulty/);
    const slow = await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name', '--request-timeout=1s']);
    expect(slow.exitCode).toBe(1);
    expect(slow.stderr).toMatch(/Client\.Timeout|context deadline exceeded|timeout/i);
    // Used up: the next one is answered at once.
    expect(await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name', '--request-timeout=1s'])).toMatchObject(
      { exitCode: 0 },
    );
  });

  it('refuses connections while unreachable, until restored', async () => {
    await kubectl(cluster, ['get', 'pods']); // warm the discovery cache, as a running kguard would have
    await cluster.faults.unreachable();
    const result = await kubectl(cluster, ['get', 'pods']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      `The connection to the server ${cluster.url.replace('http://', '')} was refused - did you specify the right host or port?`,
    );
    await cluster.faults.restore();
    expect((await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name'])).exitCode).toBe(0);
  });

  it('comes back by itself after the given unreachable time', async () => {
    await cluster.faults.unreachable(300);
    await expect(fetch(`${cluster.url}/version`)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await fetch(`${cluster.url}/version`)).status).toBe(200);
  });

  it('delays every answer by the injected latency', async () => {
    cluster.faults.latency(400);
    const began = Date.now();
    const result = await kubectl(cluster, ['get', 'deployment', 'faulty', '-o', 'name']);
    expect(result.exitCode).toBe(0);
    expect(Date.now() - began).toBeGreaterThanOrEqual(400);
  });
});
