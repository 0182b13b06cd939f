// Runs the real kubectl against a simulated cluster, for tests. Never throws on a non-zero exit:
// tests assert on exit codes and stderr text.

import { execa, type ResultPromise } from 'execa';
import type { Cluster } from '../cluster.js';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export async function kubectl(
  cluster: Pick<Cluster, 'env'>,
  args: string[],
  input?: string,
  timeoutMs = 20_000,
): Promise<KubectlResult> {
  const result = await execa('kubectl', args, {
    env: { ...process.env, ...cluster.env },
    reject: false,
    input,
    timeout: timeoutMs,
  });
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1 };
}

/** `kubectl patch <resource> <name> --type=<type> -p <patch>`, with any `more` flags (e.g. --subresource=status). */
export function kubectlPatch(
  cluster: Pick<Cluster, 'env'>,
  resource: string,
  name: string,
  type: 'strategic' | 'merge' | 'json',
  patch: string,
  ...more: string[]
): Promise<KubectlResult> {
  return kubectl(cluster, ['patch', resource, name, `--type=${type}`, '-p', patch, ...more]);
}

/** A long-running kubectl (e.g. `get -w`); the caller kills it. */
export function spawnKubectl(
  cluster: Pick<Cluster, 'env'>,
  args: string[],
): ResultPromise<{ reject: false; env: NodeJS.ProcessEnv }> {
  return execa('kubectl', args, { env: { ...process.env, ...cluster.env }, reject: false });
}

/** Resolves once `predicate` holds for the text written so far to the child's stdout. */
export function waitForOutput(
  child: { stdout: NodeJS.ReadableStream | null },
  predicate: (text: string) => boolean,
  timeoutMs = 5000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for output; got:\n${text}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (predicate(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}

/** What a pod template may add to the one pod `podTemplateYaml` writes. */
export interface PodTemplateOptions {
  /** The pod's annotations (the simulator's sim.kguard.dev knobs). */
  annotations?: Record<string, string>;
  /** Lines of the pod's spec before its containers, indented for it. */
  podSpec?: string;
  /** The container's name: the workload's own unless told. */
  container?: string;
  /** Lines of the container's own after its image, indented for it. */
  containerLines?: string;
}

/**
 * The selector and pod template the workload manifests here share: pods labelled `app: <name>` with
 * one container running `image`.
 */
export function podTemplateYaml(name: string, image: string, options: PodTemplateOptions = {}): string {
  const annotations = options.annotations
    ? `      annotations:\n${Object.entries(options.annotations)
        .map(([key, value]) => `        ${key}: ${JSON.stringify(value)}\n`)
        .join('')}`
    : '';
  return `  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
${annotations}    spec:
${options.podSpec ?? ''}      containers:
      - name: ${options.container ?? name}
        image: ${image}
${options.containerLines ?? ''}`;
}

/**
 * A Deployment manifest as kubectl users write it: 2 replicas (`null`: none, as when an HPA owns
 * the size), port 80 and one environment variable unless `containerLines` says otherwise; `spec`
 * holds lines of the Deployment's spec before its replicas.
 */
export function deploymentYaml(
  name: string,
  image: string,
  extra: { replicas?: number | null; namespace?: string; spec?: string } & PodTemplateOptions = {},
): string {
  const replicas = extra.replicas === null ? '' : `  replicas: ${extra.replicas ?? 2}\n`;
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
${extra.namespace ? `  namespace: ${extra.namespace}\n` : ''}  labels:
    app: ${name}
spec:
${extra.spec ?? ''}${replicas}${podTemplateYaml(name, image, {
  ...extra,
  containerLines:
    extra.containerLines ??
    `        ports:
        - containerPort: 80
        env:
        - name: MODE
          value: production
`,
})}`;
}

/** A Deployment `trainer` whose pods ask for a node of pool gpu (nodeSelector), which only a node autoscaler adds. */
export function gpuDeploymentYaml(replicas: number): string {
  return deploymentYaml('trainer', 'nginx:1.25', {
    replicas,
    podSpec: '      nodeSelector:\n        pool: gpu\n',
    containerLines: '',
  });
}

/**
 * An HPA (autoscaling/v2, CPU at 70 %) on Deployment `name`; `desiredReplicas` is kube-sim's
 * stand-in for the metrics: the count its controller computes (controllers/hpa.ts).
 */
export function hpaYaml(name: string, min: number, max: number, options: { desiredReplicas?: number } = {}): string {
  const desired =
    options.desiredReplicas === undefined
      ? ''
      : `  annotations:\n    sim.kguard.dev/desired-replicas: "${options.desiredReplicas}"\n`;
  return `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ${name}
${desired}spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: ${name}
  minReplicas: ${min}
  maxReplicas: ${max}
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
`;
}

/**
 * A StatefulSet's or DaemonSet's updateStrategy: OnDelete if asked, RollingUpdate with the one
 * `rollingUpdate` line given, or nothing (the API's default, RollingUpdate).
 */
function updateStrategyYaml(strategy: 'RollingUpdate' | 'OnDelete' | undefined, rollingUpdate?: string): string {
  if (strategy === 'OnDelete') return '  updateStrategy:\n    type: OnDelete\n';
  return rollingUpdate === undefined
    ? ''
    : `  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n      ${rollingUpdate}\n`;
}

/** A StatefulSet manifest as kubectl users write it (RollingUpdate unless told otherwise). */
export function statefulSetYaml(
  name: string,
  image: string,
  options: {
    replicas?: number;
    partition?: number;
    strategy?: 'RollingUpdate' | 'OnDelete';
    policy?: 'OrderedReady' | 'Parallel';
  } = {},
): string {
  const strategy = updateStrategyYaml(
    options.strategy,
    options.partition === undefined ? undefined : `partition: ${options.partition}`,
  );
  return `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ${name}
spec:
  serviceName: ${name}
  replicas: ${options.replicas ?? 3}
${options.policy ? `  podManagementPolicy: ${options.policy}\n` : ''}${strategy}${podTemplateYaml(name, image)}`;
}

/**
 * A Job manifest. Its container exits with `exitCode` after `runSeconds` (the simulator's
 * `sim.kguard.dev/exit-code` and `run-seconds` knobs); restartPolicy Never unless told otherwise.
 */
export function jobYaml(
  name: string,
  image: string,
  options: {
    exitCode?: number;
    runSeconds?: number;
    backoffLimit?: number;
    completions?: number;
    parallelism?: number;
    restartPolicy?: 'Never' | 'OnFailure';
    activeDeadlineSeconds?: number;
  } = {},
): string {
  const spec = [
    options.completions !== undefined ? `  completions: ${options.completions}\n` : '',
    options.parallelism !== undefined ? `  parallelism: ${options.parallelism}\n` : '',
    options.backoffLimit !== undefined ? `  backoffLimit: ${options.backoffLimit}\n` : '',
    options.activeDeadlineSeconds !== undefined ? `  activeDeadlineSeconds: ${options.activeDeadlineSeconds}\n` : '',
  ].join('');
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}  template:
    metadata:
      annotations:
        sim.kguard.dev/exit-code: "${options.exitCode ?? 0}"
        sim.kguard.dev/run-seconds: "${options.runSeconds ?? 3}"
    spec:
      restartPolicy: ${options.restartPolicy ?? 'Never'}
      containers:
      - name: ${name}
        image: ${image}
        command: ["sh", "-c", "echo working"]
`;
}

/** A DaemonSet manifest (RollingUpdate, maxUnavailable 1 by default; OnDelete if asked). */
export function daemonSetYaml(
  name: string,
  image: string,
  options: {
    strategy?: 'RollingUpdate' | 'OnDelete';
    maxUnavailable?: number | string;
    nodeSelector?: Record<string, string>;
  } = {},
): string {
  const strategy = updateStrategyYaml(
    options.strategy,
    options.maxUnavailable === undefined
      ? undefined
      : `maxUnavailable: ${typeof options.maxUnavailable === 'string' ? JSON.stringify(options.maxUnavailable) : options.maxUnavailable}`,
  );
  const selector = options.nodeSelector
    ? `      nodeSelector:\n${Object.entries(options.nodeSelector)
        .map(([key, value]) => `        ${key}: ${JSON.stringify(value)}\n`)
        .join('')}`
    : '';
  return `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
${strategy}${podTemplateYaml(name, image, { podSpec: selector })}`;
}

/** A namespaced CustomResourceDefinition with a status subresource, one version, any fields. */
export function crdYaml(
  group: string,
  kind: string,
  plural: string,
  options: { version?: string; shortNames?: readonly string[] } = {},
): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names:
    kind: ${kind}
    listKind: ${kind}List
    plural: ${plural}
    singular: ${kind.toLowerCase()}
${options.shortNames ? `    shortNames: [${options.shortNames.join(', ')}]\n` : ''}  versions:
  - name: ${options.version ?? 'v1alpha1'}
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;
}

/** A CustomResourceDefinition for `widgets.example.com` (kind Widget, namespaced, with a status subresource). */
export const WIDGET_CRD_YAML = crdYaml('example.com', 'Widget', 'widgets', { version: 'v1', shortNames: ['wdg'] });

/** A Widget; `ready` sets what the simulated controller reports (sim.kguard.dev/ready). */
export function widgetYaml(
  name: string,
  size: number,
  ready: 'true' | 'false' | 'stalled' | 'silent' = 'true',
  annotations: Record<string, string> = {},
): string {
  const all = { 'sim.kguard.dev/ready': ready, ...annotations };
  return `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
  annotations:
${Object.entries(all)
  .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}\n`)
  .join('')}spec:
  size: ${size}
`;
}
