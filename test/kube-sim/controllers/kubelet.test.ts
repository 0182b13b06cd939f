import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../types.js';
import {
  condition,
  containerStatus,
  deployment,
  eventsFor,
  firstSeen,
  getDeployment,
  simForThisTest,
  waitFor,
  type Sim,
} from './harness.js';

function onlyPod(sim: Sim, app: string): KubeObject | undefined {
  return sim.store.list('Pod', 'default', `app=${app}`)[0];
}

function waitingReason(
  pod: KubeObject | undefined,
  name = 'app',
  list: 'containerStatuses' | 'initContainerStatuses' = 'containerStatuses',
): string | undefined {
  return (pod?.status?.[list] as { name: string; state: { waiting?: { reason: string } } }[] | undefined)?.find(
    (s) => s.name === name,
  )?.state.waiting?.reason;
}

function podEvents(sim: Sim, pod: KubeObject): string[] {
  return eventsFor(sim.store, pod.metadata.name).map((event) => `${event.type} ${event.reason}: ${event.message}`);
}

describe('kubelet', () => {
  it('runs a healthy pod: pull, create, start, Ready, with the real container status shape', async () => {
    const sim = simForThisTest();
    sim.store.create(deployment('web', { replicas: 1 }));
    const pod = await waitFor('ready pod', () => {
      const found = onlyPod(sim!, 'web');
      return condition(found, 'Ready')?.status === 'True' ? found : undefined;
    });
    const status = containerStatus(pod)!;
    expect(status).toMatchObject({
      name: 'app',
      ready: true,
      started: true,
      restartCount: 0,
      lastState: {},
      image: 'docker.io/library/nginx:1.25',
    });
    expect(status.state.running.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(status.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(status.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(pod.status.conditions.map((c: { type: string }) => c.type)).toEqual([
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ]);
    expect(pod.status).toMatchObject({ phase: 'Running', hostIP: '172.18.0.2', qosClass: 'BestEffort' });
    expect(pod.status.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    const events = podEvents(sim, pod);
    expect(events).toContain('Normal Pulling: Pulling image "nginx:1.25"');
    expect(
      events.some((e) =>
        /^Normal Pulled: Successfully pulled image "nginx:1\.25" in 2s \(2s including waiting\)\. Image size: \d+ bytes\.$/.test(
          e,
        ),
      ),
    ).toBe(true);
    expect(events).toContain('Normal Created: Container created');
    expect(events).toContain('Normal Started: Container started');
    const pulling = eventsFor(sim.store, pod.metadata.name).find((e) => e.reason === 'Pulling')!;
    expect(pulling.involvedObject).toMatchObject({
      kind: 'Pod',
      name: pod.metadata.name,
      namespace: 'default',
      uid: pod.metadata.uid,
      apiVersion: 'v1',
      fieldPath: 'spec.containers{app}',
    });
    expect(pulling).toMatchObject({
      source: { component: 'kubelet', host: pod.spec.nodeName },
      count: 1,
      type: 'Normal',
    });
    expect(pulling.metadata.name).toMatch(new RegExp(`^${pod.metadata.name}\\.[0-9a-f]+$`));
    const scheduled = eventsFor(sim.store, pod.metadata.name).find((e) => e.reason === 'Scheduled')!;
    expect(scheduled).toMatchObject({
      reportingComponent: 'default-scheduler',
      source: {},
      firstTimestamp: null,
      action: 'Binding',
    });
  });

  it('reports ErrImagePull then ImagePullBackOff for a missing tag, retrying with a growing back-off', async () => {
    const sim = simForThisTest({ registry: { 'nginx:9.99': 'missing' } });
    sim.store.create(deployment('web', { replicas: 1, image: 'nginx:9.99' }));
    // The simulator's own timestamps of each pull attempt and each failed pull, indexed by the
    // aggregated Event's count (each repeat bumps count and rewrites lastTimestamp).
    const pulledAt = new Map<number, number>();
    const failedAt = new Map<number, number>();
    sim.store.subscribe(({ object }) => {
      if (object.kind !== 'Event') return;
      if (object.reason === 'Pulling') pulledAt.set(Number(object.count), Date.parse(String(object.lastTimestamp)));
      if (object.reason === 'Failed' && String(object.message).startsWith('Failed to pull image'))
        failedAt.set(Number(object.count), Date.parse(String(object.lastTimestamp)));
    });
    // ErrImagePull lasts one resync (5 simulated seconds = 50 ms here): catch it as it is written.
    const errPull = await firstSeen(sim.store, 'ErrImagePull', () => {
      const pod = onlyPod(sim!, 'web');
      return waitingReason(pod) === 'ErrImagePull' ? containerStatus(pod) : undefined;
    });
    expect(errPull.state.waiting.message).toBe(
      'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:9.99": failed to resolve reference "docker.io/library/nginx:9.99": docker.io/library/nginx:9.99: not found',
    );
    const backOff = await firstSeen(sim.store, 'ImagePullBackOff', () => {
      const pod = onlyPod(sim!, 'web');
      return waitingReason(pod) === 'ImagePullBackOff' ? containerStatus(pod) : undefined;
    });
    expect(backOff.state.waiting.message).toBe(
      `Back-off pulling image "nginx:9.99": ErrImagePull: ${errPull.state.waiting.message}`,
    );
    expect(backOff).toMatchObject({ ready: false, started: false, restartCount: 0, image: 'nginx:9.99', imageID: '' });
    await waitFor('four pulls', () => pulledAt.has(4), 15_000);
    // The kubelet may pull again only once the back-off since the previous failure has passed:
    // 10 s, then 20 s, then 40 s. These are lower bounds on the simulator's own timestamps, which
    // load can only stretch; a back-off that does not grow pulls again ~10 s after every failure.
    // (Second-precision timestamps: floor(a) - floor(b) >= floor(a - b), so the bounds are exact.)
    const waits = [1, 2, 3].map((attempt) => pulledAt.get(attempt + 1)! - failedAt.get(attempt)!);
    expect(waits[0]).toBeGreaterThanOrEqual(10_000);
    expect(waits[1]).toBeGreaterThanOrEqual(20_000);
    expect(waits[2]).toBeGreaterThanOrEqual(40_000);
    // Each failure comes after its own pull (the pull itself takes 2 s).
    for (const attempt of [1, 2, 3]) expect(failedAt.get(attempt)!).toBeGreaterThan(pulledAt.get(attempt)!);
    const events = podEvents(sim, onlyPod(sim, 'web')!);
    expect(events).toContain(`Warning Failed: Failed to pull image "nginx:9.99": ${errPull.state.waiting.message}`);
    expect(events).toContain('Warning Failed: Error: ErrImagePull');
    expect(events).toContain('Normal BackOff: Back-off pulling image "nginx:9.99"');
    expect(events).toContain('Warning Failed: Error: ImagePullBackOff');
  });

  it('words auth failures and missing repositories like Docker Hub and other registries do', async () => {
    const sim = simForThisTest({ registry: { 'acme/private:1': 'no-repository', 'ghcr.io/acme/*': 'auth-required' } });
    sim.store.create(deployment('hub', { replicas: 1, image: 'acme/private:1' }));
    sim.store.create(deployment('gh', { replicas: 1, image: 'ghcr.io/acme/app:2' }));
    const hub = await firstSeen(sim.store, 'hub ErrImagePull', () =>
      waitingReason(onlyPod(sim!, 'hub')) === 'ErrImagePull' ? containerStatus(onlyPod(sim!, 'hub')) : undefined,
    );
    expect(hub.state.waiting.message).toBe(
      'failed to pull and unpack image "docker.io/acme/private:1": failed to resolve reference "docker.io/acme/private:1": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    );
    const gh = await firstSeen(sim.store, 'ghcr ErrImagePull', () =>
      waitingReason(onlyPod(sim!, 'gh')) === 'ErrImagePull' ? containerStatus(onlyPod(sim!, 'gh')) : undefined,
    );
    expect(gh.state.waiting.message).toContain(
      'failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aacme%2Fapp%3Apull&service=ghcr.io: 401 Unauthorized',
    );
  });

  it('recovers from a registry rate limit once the limited pulls are used up', async () => {
    const sim = simForThisTest({ registry: { 'nginx:1.25': { rateLimitedPulls: 1 } } });
    sim.store.create(deployment('web', { replicas: 1 }));
    const seen = new Set<string>();
    sim.store.subscribe(({ object }) => {
      if (object.kind === 'Pod') {
        const reason = waitingReason(object);
        if (reason) seen.add(reason);
      }
    });
    await waitFor('ready', () => condition(onlyPod(sim!, 'web'), 'Ready')?.status === 'True');
    expect(seen).toContain('ErrImagePull');
    const failed = podEvents(sim, onlyPod(sim, 'web')!).find((e) =>
      e.startsWith('Warning Failed: Failed to pull image'),
    );
    expect(failed).toContain(
      '429 Too Many Requests - Server message: toomanyrequests: You have reached your unauthenticated pull rate limit.',
    );
  });

  it('reports InvalidImageName for a reference that does not parse', async () => {
    const sim = simForThisTest();
    sim.store.create(deployment('web', { replicas: 1, image: 'Nginx:1.25' }));
    const status = await waitFor('InvalidImageName', () =>
      waitingReason(onlyPod(sim!, 'web')) === 'InvalidImageName' ? containerStatus(onlyPod(sim!, 'web')) : undefined,
    );
    expect(status.state.waiting.message).toBe(
      'Failed to apply default image tag "Nginx:1.25": couldn\'t parse image name "Nginx:1.25": invalid reference format: repository name must be lowercase',
    );
    expect(podEvents(sim, onlyPod(sim, 'web')!)).toContain('Warning Failed: Error: InvalidImageName');
  });

  it('crash-loops a container that exits 1: restartCount, lastState.terminated, CrashLoopBackOff', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: {
          'sim.kguard.dev/exit-code': '1',
          'sim.kguard.dev/run-seconds': '1',
          'sim.kguard.dev/stdout': 'panic: boom',
        },
      }),
    );
    // Every CrashLoopBackOff status the kubelet writes, as written.
    const backOffs: { restartCount: number; message: string }[] = [];
    sim.store.subscribe(({ object }) => {
      const s = object.kind === 'Pod' ? containerStatus(object) : undefined;
      if (s?.state.waiting?.reason === 'CrashLoopBackOff')
        backOffs.push({ restartCount: s.restartCount, message: s.state.waiting.message });
    });
    const status = await firstSeen(sim.store, 'CrashLoopBackOff', () => {
      const s = containerStatus(onlyPod(sim!, 'web'));
      return s?.state.waiting?.reason === 'CrashLoopBackOff' && s.restartCount >= 1 ? s : undefined;
    });
    const pod = onlyPod(sim, 'web')!;
    const ref = `${pod.metadata.name}_default(${pod.metadata.uid})`;
    // The first restart is immediate, then the back-off starts at 10 s and doubles with every
    // restart: while waiting after restart n the kubelet reports 10 s * 2^(n-1). Normally the first
    // CrashLoopBackOff is restartCount 1 / 10s; on a loaded machine the kubelet can come back after
    // the back-off already ran out, restart at once and report the next step (restartCount 2 / 20s),
    // so the back-off is checked against the restartCount the same status reports.
    const backOffAfter = ['', '10s', '20s', '40s', '1m20s', '2m40s'];
    const expected = (restartCount: number) =>
      `back-off ${backOffAfter[restartCount] ?? '5m0s'} restarting failed container=app pod=${ref}`;
    expect(status.state.waiting.message).toBe(expected(status.restartCount));
    expect(status.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(status.lastState.terminated.containerID).toMatch(/^containerd:\/\//);
    expect(status.lastState.terminated.startedAt).toBeDefined();
    expect(status.lastState.terminated.finishedAt).toBeDefined();
    expect(pod.status.phase).toBe('Running');
    expect(pod.metadata.annotations!['sim.kguard.dev/logs.app']).toBe('panic: boom');
    expect(podEvents(sim, pod)).toContain(`Warning BackOff: Back-off restarting failed container app in pod ${ref}`);
    expect(podEvents(sim, pod)).toContain(
      'Normal Pulled: Container image "nginx:1.25" already present on machine and can be accessed by the pod',
    );
    // The back-off doubles: wait for a later restart's CrashLoopBackOff and check every one seen.
    await firstSeen(sim.store, 'back-off doubles', () => {
      const s = containerStatus(onlyPod(sim!, 'web'));
      return s?.state.waiting?.reason === 'CrashLoopBackOff' && s.restartCount > status.restartCount;
    });
    expect(new Set(backOffs.map((seen) => seen.restartCount)).size).toBeGreaterThanOrEqual(2);
    for (const seen of backOffs) expect(seen.message).toBe(expected(seen.restartCount));
  });

  it('reports OOMKilled with exit code 137', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/oom-kill.app': 'true', 'sim.kguard.dev/run-seconds.app': '1' },
      }),
    );
    const status = await waitFor('OOMKilled', () => containerStatus(onlyPod(sim!, 'web'))?.lastState.terminated);
    expect(status).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
  });

  it('reports CreateContainerConfigError for a missing ConfigMap and heals once it exists', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', { replicas: 1, container: { envFrom: [{ configMapRef: { name: 'web-config' } }] } }),
    );
    const status = await waitFor('CreateContainerConfigError', () => {
      const s = containerStatus(onlyPod(sim!, 'web'));
      return s?.state.waiting?.reason === 'CreateContainerConfigError' ? s : undefined;
    });
    expect(status.state.waiting.message).toBe('configmap "web-config" not found');
    expect(podEvents(sim, onlyPod(sim, 'web')!)).toContain('Warning Failed: Error: configmap "web-config" not found');
    sim.store.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config', namespace: 'default' },
      data: { A: '1' },
    });
    await waitFor('healed', () => condition(getDeployment(sim!.store, 'web'), 'Available')?.status === 'True');
  });

  it('reports a missing Secret key as CreateContainerConfigError', async () => {
    const sim = simForThisTest();
    sim.store.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'default' },
      data: { user: 'eA==' },
    });
    sim.store.create(
      deployment('web', {
        replicas: 1,
        container: { env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] },
      }),
    );
    const status = await waitFor(
      'config error',
      () =>
        containerStatus(onlyPod(sim!, 'web'))?.state.waiting?.reason === 'CreateContainerConfigError' &&
        containerStatus(onlyPod(sim!, 'web')),
    );
    expect(status.state.waiting.message).toBe("couldn't find key password in Secret default/db");
  });

  it('keeps a pod in ContainerCreating with FailedMount for a missing ConfigMap volume', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', { replicas: 1, podSpec: { volumes: [{ name: 'config', configMap: { name: 'web-files' } }] } }),
    );
    const pod = await waitFor('FailedMount', () => {
      const found = onlyPod(sim!, 'web');
      return found && eventsFor(sim!.store, found.metadata.name).some((e) => e.reason === 'FailedMount')
        ? found
        : undefined;
    });
    expect(podEvents(sim, pod)).toContain(
      'Warning FailedMount: MountVolume.SetUp failed for volume "config" : configmap "web-files" not found',
    );
    expect(waitingReason(onlyPod(sim, 'web'))).toBe('ContainerCreating');
    // The volumes are mounted before the sandbox is made (kubelet.go SyncPod): no sandbox yet, as
    // status/generate.go GeneratePodReadyToStartContainersCondition says it (v1.37.2).
    expect(condition(onlyPod(sim, 'web'), 'PodReadyToStartContainers')).toMatchObject({
      status: 'False',
      reason: 'PodSandboxNotReady',
      message: 'no pod sandbox exists',
    });
    sim.store.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-files', namespace: 'default' },
      data: {},
    });
    await waitFor('mounted and ready', () => condition(onlyPod(sim!, 'web'), 'Ready')?.status === 'True');
    const ready = condition(onlyPod(sim, 'web'), 'PodReadyToStartContainers');
    expect(ready).toMatchObject({ status: 'True' });
    expect(ready).not.toHaveProperty('reason');
    expect(ready).not.toHaveProperty('message');
  });

  it('keeps a pod unready while its readiness probe fails, with Unhealthy events', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/readiness': 'fail' },
        container: { readinessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 5 } },
      }),
    );
    const unhealthy = await waitFor('Unhealthy x3', () => {
      const pod = onlyPod(sim!, 'web');
      const event = pod && eventsFor(sim!.store, pod.metadata.name).find((e) => e.reason === 'Unhealthy');
      return event && Number(event.count) >= 3 ? event : undefined;
    });
    expect(unhealthy).toMatchObject({
      type: 'Warning',
      message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
    });
    const pod = onlyPod(sim, 'web')!;
    expect(pod.status.phase).toBe('Running');
    expect(containerStatus(pod)).toMatchObject({ ready: false, started: true, state: { running: {} } });
    expect(condition(pod, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
  });

  it('runs init containers first and reports Init failures with ContainersNotInitialized', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/exit-code.migrate': '3' },
        podSpec: { initContainers: [{ name: 'migrate', image: 'busybox:1.36' }] },
      }),
    );
    const pod = await firstSeen(sim.store, 'init crash loop', () => {
      const found = onlyPod(sim!, 'web');
      return waitingReason(found, 'migrate', 'initContainerStatuses') === 'CrashLoopBackOff' ? found : undefined;
    });
    const init = pod.status.initContainerStatuses[0];
    expect(init.lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(pod.status.phase).toBe('Pending');
    expect(condition(pod, 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [migrate]',
    });
    expect(waitingReason(pod)).toBe('PodInitializing');
    expect(eventsFor(sim.store, pod.metadata.name).find((e) => e.reason === 'Started')?.involvedObject).toMatchObject({
      fieldPath: 'spec.initContainers{migrate}',
    });
  });

  it('completes init containers before starting the app', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', { replicas: 1, podSpec: { initContainers: [{ name: 'migrate', image: 'busybox:1.36' }] } }),
    );
    const pod = await waitFor('ready', () => {
      const found = onlyPod(sim!, 'web');
      return condition(found, 'Ready')?.status === 'True' ? found : undefined;
    });
    expect(pod.status.initContainerStatuses[0]).toMatchObject({
      ready: true,
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    });
  });

  it('reports RunContainerError then CrashLoopBackOff when the process cannot start', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/start-error': 'true' },
        container: { command: ['/app/serve'] },
      }),
    );
    const status = await firstSeen(sim.store, 'RunContainerError', () => {
      const s = containerStatus(onlyPod(sim!, 'web'));
      return s?.state.waiting?.reason === 'RunContainerError' ? s : undefined;
    });
    expect(status.state.waiting.message).toContain('exec: "/app/serve": executable file not found in $PATH');
    expect(status.lastState.terminated).toMatchObject({ exitCode: 128, reason: 'StartError' });
    await firstSeen(
      sim.store,
      'CrashLoopBackOff',
      () => containerStatus(onlyPod(sim!, 'web'))?.state.waiting?.reason === 'CrashLoopBackOff',
    );
  });

  it('kills and restarts a container whose liveness probe fails', async () => {
    const sim = simForThisTest();
    sim.store.create(
      deployment('web', {
        replicas: 1,
        podAnnotations: { 'sim.kguard.dev/liveness': 'fail' },
        container: { livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 2, failureThreshold: 2 } },
      }),
    );
    const status = await waitFor('restarted', () => {
      const s = containerStatus(onlyPod(sim!, 'web'));
      return s && s.restartCount >= 1 ? s : undefined;
    });
    expect(status.lastState.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
    const events = podEvents(sim, onlyPod(sim, 'web')!);
    expect(events).toContain('Warning Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500');
    expect(events).toContain('Normal Killing: Container app failed liveness probe, will be restarted');
  });

  it('runs a bare pod with restartPolicy Never to Succeeded or Failed', async () => {
    const sim = simForThisTest();
    const pod = (name: string, exitCode: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        annotations: { 'sim.kguard.dev/exit-code': exitCode, 'sim.kguard.dev/run-seconds': '1' },
      },
      spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36' }] },
    });
    sim.store.create(pod('ok', '0'));
    sim.store.create(pod('bad', '1'));
    await waitFor('ok Succeeded', () => sim!.store.get('Pod', 'default', 'ok')?.status?.phase === 'Succeeded');
    const bad = await waitFor('bad Failed', () => {
      const found = sim!.store.get('Pod', 'default', 'bad');
      return found?.status?.phase === 'Failed' ? found : undefined;
    });
    expect(containerStatus(bad)).toMatchObject({
      restartCount: 0,
      state: { terminated: { exitCode: 1, reason: 'Error' } },
    });
    // An ended pod's sandbox is stopped (kubelet.go SyncTerminatingPod → killPod) and its conditions
    // carry the phase's reason (status/generate.go, v1.37.2; fixtures/evicted-exit-0.pod.json).
    const conditions = (name: string) =>
      (
        (sim.store.get('Pod', 'default', name)?.status?.conditions ?? []) as {
          type: string;
          status: string;
          reason?: string;
          message?: string;
        }[]
      )
        .filter((c) => c.type !== 'PodScheduled')
        .map((c) => `${c.type}=${c.status} ${c.reason ?? ''} ${c.message ?? ''}`.trim());
    expect(conditions('ok')).toEqual([
      'PodReadyToStartContainers=False PodSandboxNotReady pod sandbox is not ready',
      'Initialized=True PodCompleted',
      'Ready=False PodCompleted',
      'ContainersReady=False PodCompleted',
    ]);
    expect(conditions('bad')).toEqual([
      'PodReadyToStartContainers=False PodSandboxNotReady pod sandbox is not ready',
      'Initialized=True',
      'Ready=False PodFailed',
      'ContainersReady=False PodFailed',
    ]);
  });
});
