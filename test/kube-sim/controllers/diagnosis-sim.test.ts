// Issue 9's simulator behaviour: ≤1.31 back-off messages, postStart hook failures, ephemeral-storage
// evictions, sidecars, readiness gates, taints, container output. Exact texts: kubelet and scheduler
// sources named in ../README.md and in test/fixtures/README.md.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../types.js';
import {
  condition,
  containerStatus,
  deployment,
  eventsFor,
  firstSeen,
  startSim,
  waitFor,
  type Sim,
} from './harness.js';

let sim: Sim | undefined;
afterEach(() => sim?.stop());

const pods = (app: string) => sim!.store.list('Pod', 'default', `app=${app}`);
const onlyPod = (app: string): KubeObject | undefined => pods(app)[0];
const eventLines = (pod: KubeObject) =>
  eventsFor(sim!.store, pod.metadata.name).map((event) => `${event.type} ${event.reason}: ${event.message}`);

describe('kubelet version', () => {
  it('≤1.31 says only `Back-off pulling image "x"`; the pull error is in the Failed event', async () => {
    sim = startSim({ kubeletVersion: '1.31', registry: { 'nginx:1.25': { rateLimitedPulls: 5 } } });
    sim.store.create(deployment('web', { replicas: 1 }));
    const status = await firstSeen(sim.store, 'ImagePullBackOff', () => {
      const found = containerStatus(onlyPod('web'));
      return found?.state.waiting?.reason === 'ImagePullBackOff' && found;
    });
    expect(status.state.waiting.message).toBe('Back-off pulling image "nginx:1.25"');
    expect(
      eventLines(onlyPod('web')!).some((line) =>
        /^Warning Failed: Failed to pull image "nginx:1\.25": .*429 Too Many Requests/.test(line),
      ),
    ).toBe(true);
    expect(sim.store.get('Node', '', 'node-1')?.status.nodeInfo.kubeletVersion).toBe('v1.31.0');
  });

  it('1.32 (the default) appends the last pull error', async () => {
    sim = startSim({ registry: { 'nginx:9.99': 'missing' } });
    sim.store.create(deployment('web', { replicas: 1, image: 'nginx:9.99' }));
    const status = await firstSeen(sim.store, 'ImagePullBackOff', () => {
      const found = containerStatus(onlyPod('web'));
      return found?.state.waiting?.reason === 'ImagePullBackOff' && found;
    });
    expect(status.state.waiting.message).toMatch(
      /^Back-off pulling image "nginx:9\.99": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image/,
    );
  });
});

describe('postStart hook failures', () => {
  it('kills the container and reports PostStartHookError with the hook output, then back-off', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        container: { lifecycle: { postStart: { exec: { command: ['/bin/sh', '-c', '/app/warm-cache'] } } } },
        podAnnotations: { 'sim.kguard.dev/post-start': 'cache server unreachable' },
      }),
    );
    const status = await firstSeen(sim.store, 'PostStartHookError', () => {
      const found = containerStatus(onlyPod('web'));
      return found?.state.waiting?.reason === 'PostStartHookError' && found;
    });
    const pod = onlyPod('web')!;
    expect(status.state.waiting.message).toBe(
      `Exec lifecycle hook ([/bin/sh -c /app/warm-cache]) for Container "app" in Pod "${pod.metadata.name}_default(${pod.metadata.uid})" failed - error: command '/bin/sh -c /app/warm-cache' exited with 1: cache server unreachable, message: "cache server unreachable"`,
    );
    expect(status.lastState.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
    expect(eventLines(pod)).toEqual(
      expect.arrayContaining([
        'Warning FailedPostStartHook: PostStartHook failed',
        'Normal Killing: FailedPostStartHook',
      ]),
    );
    await firstSeen(
      sim.store,
      'CrashLoopBackOff',
      () => containerStatus(onlyPod('web'))?.state.waiting?.reason === 'CrashLoopBackOff',
    );
  });
});

describe('evictions', () => {
  it('evicts a pod over its container ephemeral-storage limit; the ReplicaSet replaces it and the next is evicted too', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        container: { resources: { limits: { 'ephemeral-storage': '1Gi' } } },
        podAnnotations: { 'sim.kguard.dev/ephemeral-storage-usage': '2Gi' },
      }),
    );
    const evicted = await waitFor('two evicted pods', () => {
      const found = pods('web').filter((pod) => pod.status?.reason === 'Evicted');
      return found.length >= 2 ? found : undefined;
    });
    const [first] = evicted;
    expect(first!.status).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'Container app exceeded its local ephemeral storage limit "1Gi". ',
    });
    expect(condition(first, 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'TerminationByKubelet' });
    expect(eventLines(first!)).toEqual(
      expect.arrayContaining([
        'Warning Evicted: Container app exceeded its local ephemeral storage limit "1Gi". ',
        'Normal Killing: Stopping container app',
      ]),
    );
    expect(containerStatus(first)?.state.terminated).toMatchObject({ exitCode: 137 });
  });

  it('a container that exits 0 on SIGTERM: the pod ends Succeeded, the Evicted event its only trace, as a real kubelet v1.37.2 left it', async () => {
    // kubelet/fixtures/evicted-exit-0.pod.json (kubernetes#120182, #141483).
    const real = JSON.parse(
      readFileSync(new URL('./kubelet/fixtures/evicted-exit-0.pod.json', import.meta.url), 'utf8'),
    ) as KubeObject;
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        container: { resources: { limits: { 'ephemeral-storage': '1Gi' } } },
        podAnnotations: { 'sim.kguard.dev/ephemeral-storage-usage': '2Gi', 'sim.kguard.dev/sigterm-exit-code': '0' },
      }),
    );
    const ended = await waitFor('a pod that ended', () => pods('web').find((pod) => pod.status?.phase === 'Succeeded'));
    const shape = (pod: KubeObject) => ({
      phase: pod.status?.phase,
      reason: pod.status?.reason,
      message: pod.status?.message,
      conditions: (
        (pod.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string }[]
      )
        // The kubelet's conditions, their reasons and messages (PodScheduled is the scheduler's).
        .filter((c) => c.type !== 'PodScheduled')
        .map((c) => `${c.type}=${c.status} ${c.reason ?? ''} ${c.message ?? ''}`)
        .sort(),
      terminated: {
        exitCode: containerStatus(pod)?.state.terminated?.exitCode,
        reason: containerStatus(pod)?.state.terminated?.reason,
      },
    });
    expect(shape(ended)).toEqual(shape(real));
    expect(shape(ended)).toMatchObject({
      phase: 'Succeeded',
      reason: undefined,
      terminated: { exitCode: 0, reason: 'Completed' },
    });
    expect(condition(ended, 'DisruptionTarget')).toBeUndefined();
    expect(eventLines(ended)).toEqual(
      expect.arrayContaining([
        'Warning Evicted: Container app exceeded its local ephemeral storage limit "1Gi". ',
        'Normal Killing: Stopping container app',
      ]),
    );
  });

  it('leaves a container within its limit alone', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        container: { resources: { limits: { 'ephemeral-storage': '4Gi' } } },
        podAnnotations: { 'sim.kguard.dev/ephemeral-storage-usage': '2Gi' },
      }),
    );
    await waitFor('ready', () => condition(onlyPod('web'), 'Ready')?.status === 'True');
    await new Promise((resolve) => setTimeout(resolve, 200)); // 20 simulated seconds: past a monitoring tick
    expect(pods('web').every((pod) => pod.status?.reason !== 'Evicted')).toBe(true);
  });
});

describe('sidecars (restartable init containers)', () => {
  it('starts the app once the sidecar runs, keeps the sidecar running, and counts its readiness', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podSpec: { initContainers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }] },
      }),
    );
    const pod = await waitFor('ready', () => {
      const found = onlyPod('web');
      return condition(found, 'Ready')?.status === 'True' ? found : undefined;
    });
    const proxy = (pod.status.initContainerStatuses as Record<string, any>[])[0]!; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(proxy).toMatchObject({ name: 'proxy', ready: true, started: true });
    expect(proxy.state.running).toBeDefined();
    expect(pod.status.phase).toBe('Running');
  });

  it('reports a crashing sidecar as CrashLoopBackOff in initContainerStatuses, and the pod unready', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podSpec: { initContainers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31.0', restartPolicy: 'Always' }] },
        podAnnotations: {
          'sim.kguard.dev/exit-code.proxy': '1',
          'sim.kguard.dev/stdout.proxy': 'config error: no listeners\n',
        },
      }),
    );
    const pod = await firstSeen(sim.store, 'sidecar back-off', () => {
      const found = onlyPod('web');
      const proxy = (found?.status?.initContainerStatuses as Record<string, any>[] | undefined)?.[0]; // eslint-disable-line @typescript-eslint/no-explicit-any
      return proxy?.state.waiting?.reason === 'CrashLoopBackOff' ? found : undefined;
    });
    expect(condition(pod, 'Ready')).toMatchObject({
      status: 'False',
      message: 'containers with unready status: [proxy]',
    });
    expect(pod.metadata.annotations?.['sim.kguard.dev/logs.proxy']).toBe('config error: no listeners\n');
  });
});

describe('readiness gates', () => {
  it('keeps a pod unready until another controller sets the gate condition True', async () => {
    sim = startSim();
    sim.store.create(
      deployment('web', { replicas: 1, podSpec: { readinessGates: [{ conditionType: 'example.com/lb-ready' }] } }),
    );
    const pod = await waitFor('gate not ready', () => {
      const found = onlyPod('web');
      return condition(found, 'Ready')?.reason === 'ReadinessGatesNotReady' ? found : undefined;
    });
    expect(condition(pod, 'Ready')?.message).toBe(
      'corresponding condition of pod readiness gate "example.com/lb-ready" does not exist.',
    );
    expect(condition(pod, 'ContainersReady')?.status).toBe('True');
    const fresh = onlyPod('web')!;
    fresh.status.conditions.push({
      type: 'example.com/lb-ready',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: sim.clock.nowIso(),
    });
    delete fresh.metadata.resourceVersion;
    sim.store.updateStatus(fresh);
    await waitFor('ready', () => condition(onlyPod('web'), 'Ready')?.status === 'True');
  });
});

describe('scheduler taints', () => {
  it('keeps pods off tainted nodes with the tainttoleration message, and lets a toleration through', async () => {
    sim = startSim({
      nodes: [
        { name: 'gpu-1', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
        { name: 'gpu-2', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
      ],
    });
    sim.store.create(deployment('web', { replicas: 1 }));
    const pod = await waitFor('unschedulable', () => {
      const found = onlyPod('web');
      return condition(found, 'PodScheduled')?.status === 'False' ? found : undefined;
    });
    expect(condition(pod, 'PodScheduled')?.message).toBe(
      '0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
    expect(sim.store.get('Node', '', 'gpu-1')?.spec.taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ]);
    sim.store.create(
      deployment('tolerant', {
        replicas: 1,
        podSpec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] },
      }),
    );
    await waitFor('scheduled', () => onlyPod('tolerant')?.spec.nodeName);
  });
});
