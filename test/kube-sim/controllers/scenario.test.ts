import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, loadScenario } from '../scenario.js';
import {
  condition,
  containerStatus,
  deployment,
  eventsFor,
  firstSeen,
  getDeployment,
  simForThisTest,
  untilSimTime,
  waitFor,
} from './harness.js';

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kube-sim-scenario-')), name);
  writeFileSync(path, text);
  return path;
}

describe('loadScenario', () => {
  it('defaults to three 4-cpu / 8Gi nodes where every image pulls', () => {
    const scenario = loadScenario({});
    expect(scenario.nodes.map((node) => [node.name, node.cpu, node.memory])).toEqual([
      ['node-1', '4', '8Gi'],
      ['node-2', '4', '8Gi'],
      ['node-3', '4', '8Gi'],
    ]);
    expect(scenario.defaultImage).toBe('present');
    expect(scenario.timing).toEqual(DEFAULT_TIMING);
  });

  it('reads YAML and JSON files and fills what they leave out', () => {
    const yaml = loadScenario(
      file(
        's.yaml',
        'nodes: {count: 1, cpu: "2"}\nregistry:\n  nginx:1.99: missing\n  nginx:1.25: {rateLimitedPulls: 2}\ntiming: {pullMs: 500}\n',
      ),
    );
    expect(yaml.nodes).toHaveLength(1);
    expect(yaml.nodes[0]).toMatchObject({ name: 'node-1', cpu: '2', memory: '8Gi' });
    expect(yaml.registry).toEqual({ 'nginx:1.99': 'missing', 'nginx:1.25': { rateLimitedPulls: 2 } });
    expect(yaml.timing.pullMs).toBe(500);
    expect(yaml.timing.sandboxMs).toBe(DEFAULT_TIMING.sandboxMs);
    const json = loadScenario(
      file(
        's.json',
        JSON.stringify({ defaultImage: 'missing', nodes: [{ name: 'gpu', cpu: '16', labels: { gpu: 'yes' } }] }),
      ),
    );
    expect(json.defaultImage).toBe('missing');
    expect(json.nodes[0]!.labels).toMatchObject({ gpu: 'yes', 'kubernetes.io/hostname': 'gpu' });
  });

  it('names the field it cannot understand', () => {
    expect(() => loadScenario({ registry: { 'nginx:1': 'gone' as never } })).toThrow(
      'scenario.registry["nginx:1"]: unknown value "gone"',
    );
    expect(() => loadScenario({ timing: { pullSeconds: 3 } as never })).toThrow(
      'scenario.timing.pullSeconds: unknown setting',
    );
    expect(() => loadScenario(file('bad.yaml', '- a\n- b\n'))).toThrow('a scenario must be a mapping');
  });
});

describe('scenario behaviour', () => {
  it('matches registry entries by repository and by pattern, and honours defaultImage', async () => {
    const sim = simForThisTest({
      defaultImage: 'missing',
      registry: { nginx: 'present', 'registry.internal/*': 'unreachable' },
    });
    sim.store.create(deployment('any-tag', { replicas: 1, image: 'nginx:1.27' }));
    sim.store.create(deployment('internal', { replicas: 1, image: 'registry.internal/team/app:3' }));
    sim.store.create(deployment('unknown', { replicas: 1, image: 'redis:7' }));
    await waitFor(
      'nginx any tag pulls',
      () => condition(getDeployment(sim!.store, 'any-tag'), 'Available')?.status === 'True',
    );
    const internal = await firstSeen(sim.store, 'unreachable', () => {
      const s = containerStatus(sim!.store.list('Pod', 'default', 'app=internal')[0]);
      return s?.state.waiting?.reason === 'ErrImagePull' ? s : undefined;
    });
    expect(internal.state.waiting.message).toBe(
      'failed to pull and unpack image "registry.internal/team/app:3": failed to resolve reference "registry.internal/team/app:3": failed to do request: Head "https://registry.internal/v2/team/app/manifests/3": dial tcp: lookup registry.internal on 172.18.0.1:53: no such host',
    );
    await firstSeen(
      sim.store,
      'redis missing',
      () =>
        containerStatus(sim!.store.list('Pod', 'default', 'app=unknown')[0])?.state.waiting?.reason === 'ErrImagePull',
    );
  });

  it('registers the nodes as Node objects', () => {
    const sim = simForThisTest({ nodes: { count: 2, cpu: '8', memory: '16Gi' } });
    const nodes = sim.store.list('Node');
    expect(nodes.map((node) => node.metadata.name)).toEqual(['node-1', 'node-2']);
    expect(nodes[0]!.status.allocatable).toMatchObject({ cpu: '8', memory: '16Gi', pods: '110' });
    expect(condition(nodes[0], 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
  });

  it('crash-count makes a crash transient: the container keeps running after N failed starts', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: {
          'sim.kguard.dev/exit-code': '2',
          'sim.kguard.dev/run-seconds': '1',
          'sim.kguard.dev/crash-count': '1',
        },
      }),
    );
    const status = await waitFor('running after one crash', () => {
      const s = containerStatus(sim!.store.list('Pod', 'default', 'app=web')[0]);
      return s?.restartCount === 1 && s.state.running ? s : undefined;
    });
    expect(status.lastState.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    // Let 10 simulated seconds pass from the moment the simulator says this instance started (it
    // crashed after 1 s before): it must still be the same, running, ready instance.
    await untilSimTime(sim.clock, Date.parse(status.state.running.startedAt) + 10_000);
    const later = containerStatus(sim.store.list('Pod', 'default', 'app=web')[0]);
    expect(later).toMatchObject({
      restartCount: 1,
      ready: true,
      state: { running: { startedAt: status.state.running.startedAt } },
    });
  });

  it('readiness-delay-seconds keeps a pod unready (connection refused) until the delay passes', async () => {
    // Time scale 25, not 100: the first probe must run within the 15 s delay for a refused probe to
    // exist at all, i.e. within 600 ms of wall time rather than 150 ms on a loaded machine.
    const sim = simForThisTest({}, 25);
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/readiness-delay-seconds': '15' },
        container: { readinessProbe: { httpGet: { path: '/ready', port: 80 }, periodSeconds: 5 } },
      }),
    );
    await waitFor(
      'ready',
      () => condition(sim!.store.list('Pod', 'default', 'app=web')[0], 'Ready')?.status === 'True',
    );
    const pod = sim.store.list('Pod', 'default', 'app=web')[0]!;
    // Ready only once the delay has passed since the container started, by the simulator's own timestamps.
    const startedAt = Date.parse(containerStatus(pod)!.state.running.startedAt);
    expect(Date.parse(condition(pod, 'Ready')!.lastTransitionTime!) - startedAt).toBeGreaterThanOrEqual(15_000);
    const unhealthy = eventsFor(sim.store, pod.metadata.name).find((e) => e.reason === 'Unhealthy')!;
    expect(unhealthy.message).toBe(
      `Readiness probe failed: Get "http://${pod.status.podIP}:80/ready": dial tcp ${pod.status.podIP}:80: connect: connection refused`,
    );
  });

  it('aggregates repeated events into count and lastTimestamp', async () => {
    const sim = simForThisTest({ registry: { 'nginx:9.99': 'missing' } });
    sim.store.create(deployment('web', { replicas: 1, image: 'nginx:9.99' }));
    const event = await waitFor('BackOff x3', () => {
      const pod = sim!.store.list('Pod', 'default', 'app=web')[0];
      const found = pod && eventsFor(sim!.store, pod.metadata.name).find((e) => e.reason === 'BackOff');
      return found && Number(found.count) >= 3 ? found : undefined;
    });
    expect(Date.parse(String(event.lastTimestamp))).toBeGreaterThan(Date.parse(String(event.firstTimestamp)));
    const backOffEvents = sim.store.list('Event').filter((e) => e.reason === 'BackOff');
    expect(backOffEvents).toHaveLength(1);
  });

  it('writes nothing once a healthy rollout has settled', async () => {
    const sim = simForThisTest();
    // When (simulated time) each write was committed, read as it is committed.
    let lastWriteAt = sim.clock.now().getTime();
    sim.store.subscribe(() => (lastWriteAt = sim!.clock.now().getTime()));
    sim.store.create(deployment('web', { replicas: 3 }));
    await waitFor(
      'complete',
      () =>
        condition(getDeployment(sim!.store, 'web'), 'Progressing')?.reason === 'NewReplicaSetAvailable' &&
        getDeployment(sim!.store, 'web')!.status.availableReplicas === 3,
    );
    // Settled: 5 simulated seconds without a write (instead of a fixed wall-clock pause, which a
    // loaded machine can make too short for the last status writes).
    await waitFor('no write for 5 simulated seconds', () => sim!.clock.now().getTime() - lastWriteAt >= 5_000);
    const settled = sim.store.currentResourceVersion();
    const settledAt = sim.clock.now().getTime();
    await untilSimTime(sim.clock, settledAt + 30_000);
    await new Promise((resolve) => setTimeout(resolve, 20)); // timers due by now get to run
    expect(sim.store.currentResourceVersion()).toBe(settled);
  });
});
