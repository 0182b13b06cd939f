// Manifests for pods on the suite's real node (a kubelet and containerd, test/control-plane/node.ts):
// every pod runs the test program (test/control-plane/images/testapp), its behaviour chosen by its
// args, from the cluster's own registry; each tolerates the real node's taint and selects it, so
// the kwok files' pods never land there and these never land on kwok.
//
//   const yaml = deployment('web', { args: SERVE, readiness: true });
import { afterAll, beforeAll, inject } from 'vitest';
import { realSandbox, type RealSandbox } from './harness.js';
import { stringify } from 'yaml';
import { REAL_NODE_TAINT } from './scenario.js';

/** Serve HTTP on 8080 (the probes' port). */
export const SERVE = ['-serve', ':8080'];

export interface ContainerOptions {
  /** testapp's args (see its main.go). */
  args?: string[];
  /** The image: testapp:TAG of the open registry unless a full reference is given. */
  image?: string;
  /** An HTTP readiness probe on /ready every second. */
  readiness?: boolean;
  /** An HTTP liveness probe on /healthz every second, failing after `failureThreshold` misses. */
  liveness?: boolean;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  env?: Record<string, unknown>[];
  volumeMounts?: Record<string, unknown>[];
}

export interface PodOptions extends ContainerOptions {
  initContainers?: ContainerOptions[];
  volumes?: Record<string, unknown>[];
  imagePullSecrets?: string[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  labels?: Record<string, string>;
}

export function registry(): string {
  return inject('realCluster').registry;
}

export function testImage(tag = '1'): string {
  return `${registry()}/kguard/testapp:${tag}`;
}

function container(name: string, options: ContainerOptions): Record<string, unknown> {
  const probe = (path: string) => ({
    httpGet: { path, port: 8080 },
    periodSeconds: 1,
    timeoutSeconds: 1,
    failureThreshold: 2,
  });
  return {
    name,
    image: options.image ?? testImage(),
    ...(options.args ? { args: options.args } : {}),
    ...(options.readiness ? { readinessProbe: probe('/ready') } : {}),
    ...(options.liveness ? { livenessProbe: probe('/healthz') } : {}),
    ...(options.resources ? { resources: options.resources } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.volumeMounts ? { volumeMounts: options.volumeMounts } : {}),
  };
}

/** A pod spec on the real node. */
export function podSpec(options: PodOptions): Record<string, unknown> {
  return {
    nodeSelector: { [REAL_NODE_TAINT.key]: REAL_NODE_TAINT.value },
    tolerations: [
      { key: REAL_NODE_TAINT.key, operator: 'Equal', value: REAL_NODE_TAINT.value, effect: REAL_NODE_TAINT.effect },
    ],
    // The test program stops at SIGTERM at once; a short grace keeps deletions quick all the same.
    terminationGracePeriodSeconds: 2,
    ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
    ...(options.imagePullSecrets ? { imagePullSecrets: options.imagePullSecrets.map((name) => ({ name })) } : {}),
    ...(options.initContainers
      ? { initContainers: options.initContainers.map((init, index) => container(`init-${index + 1}`, init)) }
      : {}),
    containers: [container('app', options)],
    ...(options.volumes ? { volumes: options.volumes } : {}),
  };
}

function template(name: string, options: PodOptions): Record<string, unknown> {
  return { metadata: { labels: { app: name, ...options.labels } }, spec: podSpec(options) };
}

export function deployment(name: string, options: PodOptions & { replicas?: number } = {}): string {
  return stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: template(name, options),
    },
  });
}

export function statefulSet(name: string, options: PodOptions & { replicas?: number } = {}): string {
  return stringify({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      replicas: options.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: template(name, options),
    },
  });
}

export function daemonSet(name: string, options: PodOptions = {}): string {
  return stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: template(name, options) },
  });
}

export function job(name: string, options: PodOptions & { backoffLimit?: number } = {}): string {
  return stringify({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      backoffLimit: options.backoffLimit ?? 0,
      template: template(name, { restartPolicy: 'Never', ...options }),
    },
  });
}

/**
 * A test file's sandbox on the real node (its own namespace), made before its tests and stopped
 * after them (`use` gets it), and `kguard apply` of a manifest there, with a 90 s --timeout.
 */
export function realPodsSandbox(
  name: string,
  use: (sandbox: RealSandbox) => void,
): (file: string, yaml: string, flags?: string[]) => ReturnType<RealSandbox['kguard']> {
  let sandbox: RealSandbox | undefined;
  beforeAll(async () => {
    sandbox = await realSandbox(name);
    use(sandbox);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });
  return async (file, yaml, flags = []) => {
    const path = await sandbox!.write(`${file}-${Math.random().toString(36).slice(2, 8)}.yaml`, yaml);
    return sandbox!.kguard([
      'apply',
      '-f',
      path,
      '-n',
      sandbox!.namespace,
      '--timeout',
      '90s',
      '--poll-interval',
      '1s',
      ...flags,
    ]);
  };
}
