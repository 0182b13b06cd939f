// Test helpers: a store + accelerated clock + controllers, Deployment objects shaped like what
// `kubectl apply` stores, and a polling waitFor (no fixed sleeps).

import { onTestFinished } from 'vitest';
import { createSimClock, type SimClock } from '../clock.js';
import { resolveScenario, type ScenarioFileInput } from '../scenario.js';
import { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { startControllers, type Controllers } from './index.js';

export interface Sim {
  store: Store;
  clock: SimClock;
  controllers: Controllers;
  stop(): void;
}

/** Default time scale for tests: 100× makes the kubelet's 10 s back-off take 100 ms. */
/** A simulated cluster for the running test, stopped when it ends. */
export function simForThisTest(scenario: ScenarioFileInput = {}, timeScale = 100): Sim {
  const sim = startSim(scenario, timeScale);
  onTestFinished(() => sim.stop());
  return sim;
}

export function startSim(scenario: ScenarioFileInput = {}, timeScale = 100): Sim {
  const clock = createSimClock(timeScale);
  const store = new Store(clock);
  const controllers = startControllers(store, clock, resolveScenario(scenario));
  return {
    store,
    clock,
    controllers,
    stop() {
      controllers.stop();
      clock.stopAll();
    },
  };
}

export interface DeploymentOptions {
  image?: string;
  replicas?: number;
  annotations?: Record<string, string>;
  podAnnotations?: Record<string, string>;
  container?: Record<string, unknown>;
  spec?: Record<string, unknown>;
  podSpec?: Record<string, unknown>;
}

/** A Deployment as `kubectl apply` stores it (no defaults filled in, like our API server). */
export function deployment(name: string, options: DeploymentOptions = {}): KubeObject {
  const labels = { app: name };
  const template: KubeObject['spec'] = {
    metadata: { labels, ...(options.podAnnotations ? { annotations: options.podAnnotations } : {}) },
    spec: {
      containers: [
        {
          name: 'app',
          image: options.image ?? 'nginx:1.25',
          ports: [{ containerPort: 80 }],
          ...(options.container ?? {}),
        },
      ],
      ...(options.podSpec ?? {}),
    },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels, annotations: options.annotations ?? {} },
    spec: { replicas: options.replicas ?? 2, selector: { matchLabels: labels }, template, ...(options.spec ?? {}) },
  };
}

/** Polls `probe` every `everyMs` until it returns a truthy value; fails with `what` and the last seen value after `timeoutMs` (wall). */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | null,
  timeoutMs = 10_000,
  everyMs = 5,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Like waitFor, but evaluates `probe` on the current state and then synchronously after every
 * committed store write, so it returns the first state that matches even if that state lasts only
 * a moment. Use it for transient states (ErrImagePull between back-offs, RunContainerError before
 * CrashLoopBackOff): a timer-based poll can miss those when the machine is loaded, because at time
 * scale 100 every 10 ms of delay is a simulated second.
 */
export function firstSeen<T>(
  store: Store,
  what: string,
  probe: () => T | undefined | false | null,
  timeoutMs = 10_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      done = true;
      unsubscribe();
      clearTimeout(timer);
      settle();
    };
    const check = () => {
      if (done) return;
      try {
        const value = probe();
        if (value) finish(() => resolve(value));
      } catch (error) {
        finish(() => reject(error));
      }
    };
    const unsubscribe = store.subscribe(check);
    const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    check();
  });
}

/** Waits (polling, wall time bounded by `timeoutMs`) until the simulated clock reads at least `simulatedMs`. */
export async function untilSimTime(clock: SimClock, simulatedMs: number, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    `simulated time ${new Date(simulatedMs).toISOString()}`,
    () => clock.now().getTime() >= simulatedMs,
    timeoutMs,
  );
}

export function condition(obj: KubeObject | undefined, type: string): Record<string, string> | undefined {
  return (obj?.status?.conditions as Record<string, string>[] | undefined)?.find((c) => c.type === type);
}

export function replicaSetsOf(store: Store, d: KubeObject): KubeObject[] {
  return store
    .list('ReplicaSet', d.metadata.namespace)
    .filter((rs) => rs.metadata.ownerReferences?.some((ref) => ref.uid === d.metadata.uid));
}

export function podsOf(store: Store, rs: KubeObject): KubeObject[] {
  return store
    .list('Pod', rs.metadata.namespace)
    .filter((pod) => pod.metadata.ownerReferences?.some((ref) => ref.uid === rs.metadata.uid));
}

export function eventsFor(store: Store, name: string): KubeObject[] {
  return store.list('Event').filter((event) => (event.involvedObject as { name: string }).name === name);
}

export function containerStatus(pod: KubeObject | undefined, name = 'app'): Record<string, any> | undefined {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return (pod?.status?.containerStatuses as Record<string, any>[] | undefined)?.find((s) => s.name === name); // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function getDeployment(store: Store, name: string): KubeObject | undefined {
  return store.get('Deployment', 'default', name);
}

/** Simulates `kubectl apply` of a changed template (the API bumps generation on spec changes). */
export function updateTemplate(store: Store, name: string, change: (d: KubeObject) => void): KubeObject {
  const d = getDeployment(store, name)!;
  change(d);
  delete d.metadata.resourceVersion;
  return store.update(d);
}
