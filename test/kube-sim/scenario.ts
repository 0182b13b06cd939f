// What the simulated cluster looks like and how its registry and timing behave. Everything has a
// default, so `startControllers(store, clock, defaultScenario())` gives a healthy 3-node cluster
// where every image pulls. Per-workload failures (crashes, failing probes, OOM kills) are not
// configured here but with `sim.kguard.dev/*` annotations on the pod template: see README.md,
// "Controllers & scenario".

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { resolveCrowd, type CrowdInput, type CrowdKnobs } from './scenario-crowd.js';

/**
 * How the simulated registry answers a pull of one image:
 * - `present`: the pull succeeds;
 * - `missing`: the repository exists but not this tag (containerd: `...: not found`, NotFound);
 * - `auth-required`: the registry refuses anonymous pulls (`pull access denied ...` on Docker Hub,
 *   `401 Unauthorized` from the token endpoint elsewhere);
 * - `no-repository`: the repository does not exist. Docker Hub answers exactly as for
 *   `auth-required` (`pull access denied, repository does not exist or may require
 *   authorization`); other registries answer `not found`;
 * - `unreachable`: the registry host does not resolve (`dial tcp: lookup ...: no such host`);
 * - an object: `rateLimitedPulls: N` makes the first N pull attempts of this image (cluster-wide)
 *   fail with Docker Hub's `429 Too Many Requests ... toomanyrequests`, then it behaves as
 *   `state`; `blobNotFoundPulls: N` makes the first N pulls find the tag but not a layer blob
 *   (a geo-replicated registry or mirror still catching up after a push: containerd's
 *   `failed to copy: httpReadSeeker: failed open: could not fetch content descriptor … from
 *   remote: not found`); `pullMs` and `sizeBytes` override the defaults for this image.
 */
export type ImageAvailability = 'present' | 'missing' | 'no-repository' | 'auth-required' | 'unreachable';

/**
 * How containerd's anonymous token request fails (remotes/docker/authorizer.go: `failed to
 * authorize: failed to fetch anonymous token: <cause>`): the token host does not resolve, its TLS
 * handshake times out, or it answers 503 / 429.
 */
export type TokenServerFailure = 'dns' | 'tls-timeout' | '503' | '429';

export interface ImageBehaviour {
  state?: ImageAvailability;
  /** The first `tokenFailures` pulls (default 1 when tokenServer is set) fail at the registry's token server. */
  tokenServer?: TokenServerFailure;
  tokenFailures?: number;
  rateLimitedPulls?: number;
  /** The first N pulls resolve the tag but miss a layer blob (replication lag), then it behaves as `state`. */
  blobNotFoundPulls?: number;
  pullMs?: number;
  sizeBytes?: number;
}

export type RegistryEntry = ImageAvailability | ImageBehaviour;

export interface NodeSpec {
  name: string;
  /** Allocatable CPU as a Kubernetes quantity ('4', '3500m'). */
  cpu: string;
  /** Allocatable memory as a Kubernetes quantity ('8Gi'). */
  memory: string;
  /** Maximum pods on the node (the kubelet's default is 110). */
  pods: number;
  labels: Record<string, string>;
  /** spec.taints of the node (NoSchedule / NoExecute keep pods without a toleration away). */
  taints: NodeTaint[];
}

export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface QuotaSpec {
  namespace: string;
  name: string;
  /** As in ResourceQuota.spec.hard: pods, requests.cpu, requests.memory, limits.cpu, limits.memory. */
  hard: Record<string, string>;
}

/** All durations are simulated milliseconds (wall time = simulated / timeScale). */
export interface Timing {
  /** Delay before a controller (deployment, replicaset, scheduler) acts on a change. */
  controllerStepMs: number;
  /** From binding to the pod sandbox being ready (PodReadyToStartContainers). */
  sandboxMs: number;
  /** Default time an image pull takes (per image override: registry `pullMs`). */
  pullMs: number;
  /** From "Created" to "Started" for a container. */
  containerStartMs: number;
  /** How long a deleted pod stays Terminating before it is gone (an app that exits promptly on
   *  SIGTERM; capped by terminationGracePeriodSeconds). */
  podTerminationMs: number;
  /** How long an init container runs before exiting 0, unless `sim.kguard.dev/run-seconds.<name>` says otherwise. */
  initContainerRunMs: number;
  /** How long a container given an exit code / OOM kill runs before dying, unless `run-seconds` says otherwise. */
  crashAfterMs: number;
  /** Default delay before a readiness probe first succeeds, on top of its initialDelaySeconds. */
  readinessDelayMs: number;
  /** When the kubelet re-syncs a pod after an error (ErrImagePull, CreateContainerConfigError...). The real kubelet uses 10 s ± jitter. */
  errorResyncMs: number;
  /** Image pull back-off: the kubelet's 10 s doubling up to 300 s. */
  imageBackOffInitialMs: number;
  imageBackOffMaxMs: number;
  /** Container restart back-off (CrashLoopBackOff): the kubelet's 10 s doubling up to 300 s. */
  crashBackOffInitialMs: number;
  crashBackOffMaxMs: number;
  /** Volume mount retry (FailedMount): 500 ms doubling up to 2m2s, as the kubelet's volume manager. */
  mountRetryInitialMs: number;
  mountRetryMaxMs: number;
  /** How often the scheduler retries unschedulable pods when nothing frees resources (real: 5 min). */
  unschedulableRetryMs: number;
  /** From a claim's creation to its dynamically provisioned volume (the external provisioner's work). */
  volumeProvisionMs: number;
}

export interface Scenario {
  nodes: NodeSpec[];
  /** Keyed by image reference as written ('nginx:1.25'), normalized ('docker.io/library/nginx:1.25'),
   *  repository without tag ('nginx', any tag) or a pattern with `*` ('ghcr.io/acme/*'). */
  registry: Record<string, RegistryEntry>;
  /** What images not listed in `registry` do. */
  defaultImage: ImageAvailability;
  /** Default image size reported in the Pulled event. */
  defaultImageSizeBytes: number;
  /** ResourceQuota objects created at start; the replicaset controller's pod creation honours them
   *  (and any ResourceQuota created later through the API). */
  quotas: QuotaSpec[];
  /**
   * The kubelets' version, for texts that changed between versions: before 1.32 the
   * ImagePullBackOff message is only `Back-off pulling image "x"` (image_manager.go before
   * kubernetes PR #127918); from 1.32 it adds `: ErrImagePull: <last pull error>`.
   */
  kubeletVersion: string;
  timing: Timing;
  /** Other writers and refusals of a crowded cluster (scenario-crowd.ts); all off by default. */
  crowd: CrowdKnobs;
}

export interface ScenarioInput {
  /** Either explicit nodes, or a count with one shape for all (names node-1, node-2, ...). */
  nodes?: { count?: number; cpu?: string; memory?: string; pods?: number } | Partial<NodeSpec>[];
  registry?: Record<string, RegistryEntry>;
  defaultImage?: ImageAvailability;
  defaultImageSizeBytes?: number;
  quotas?: QuotaSpec[];
  kubeletVersion?: string;
  timing?: Partial<Timing>;
  /** The crowded-cluster knobs may also sit at the top level of the input (finalizers:, autoscaling:, …). */
  crowd?: CrowdInput;
}

export type ScenarioFileInput = ScenarioInput & CrowdInput;

export const DEFAULT_TIMING: Timing = {
  controllerStepMs: 200,
  sandboxMs: 1_000,
  pullMs: 2_000,
  containerStartMs: 500,
  podTerminationMs: 1_000,
  initContainerRunMs: 1_000,
  crashAfterMs: 2_000,
  readinessDelayMs: 0,
  errorResyncMs: 5_000,
  imageBackOffInitialMs: 10_000,
  imageBackOffMaxMs: 300_000,
  crashBackOffInitialMs: 10_000,
  crashBackOffMaxMs: 300_000,
  mountRetryInitialMs: 500,
  mountRetryMaxMs: 122_000,
  unschedulableRetryMs: 300_000,
  volumeProvisionMs: 1_000,
};

const IMAGE_STATES: readonly ImageAvailability[] = [
  'present',
  'missing',
  'no-repository',
  'auth-required',
  'unreachable',
];

export function defaultScenario(): Scenario {
  return resolveScenario({});
}

/** Fills every default. Throws a plain Error naming the field when the input is malformed. */
export function resolveScenario(input: ScenarioInput | ScenarioFileInput | Partial<Scenario>): Scenario {
  const source = input as ScenarioFileInput;
  for (const [image, entry] of Object.entries(source.registry ?? {})) checkRegistryEntry(image, entry);
  const defaultImage = source.defaultImage ?? 'present';
  if (!IMAGE_STATES.includes(defaultImage))
    throw new Error(`scenario.defaultImage: unknown value ${JSON.stringify(defaultImage)}`);
  for (const [key, value] of Object.entries(source.timing ?? {})) {
    if (!(key in DEFAULT_TIMING)) throw new Error(`scenario.timing.${key}: unknown setting`);
    if (typeof value !== 'number' || !(value >= 0))
      throw new Error(`scenario.timing.${key}: expected a number of simulated ms`);
  }
  return {
    nodes: resolveNodes(source.nodes),
    registry: { ...(source.registry ?? {}) },
    defaultImage,
    defaultImageSizeBytes: source.defaultImageSizeBytes ?? 67_108_864,
    quotas: [...(source.quotas ?? [])],
    kubeletVersion: checkVersion(source.kubeletVersion ?? '1.32'),
    timing: { ...DEFAULT_TIMING, ...(source.timing ?? {}) },
    crowd: resolveCrowd({ ...pickCrowd(source), ...((source.crowd as CrowdInput | undefined) ?? {}) }),
  };
}

function pickCrowd(source: ScenarioFileInput): CrowdInput {
  const { finalizers, loadBalancers, autoscaling, caInjector, apiServices, aggregatedDiscovery, nodeAutoscaler } =
    source;
  return { finalizers, loadBalancers, autoscaling, caInjector, apiServices, aggregatedDiscovery, nodeAutoscaler };
}

/** Reads a scenario from a JSON or YAML file, or completes an object already in memory. */
export function loadScenario(fileOrObject: string | ScenarioFileInput | Partial<Scenario>): Scenario {
  if (typeof fileOrObject !== 'string') return resolveScenario(fileOrObject);
  const text = readFileSync(fileOrObject, 'utf8');
  const parsed: unknown = fileOrObject.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (parsed === null || parsed === undefined) return defaultScenario();
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${fileOrObject}: a scenario must be a mapping`);
  try {
    return resolveScenario(parsed as ScenarioInput);
  } catch (error) {
    throw new Error(`${fileOrObject}: ${(error as Error).message}`);
  }
}

function resolveNodes(nodes: ScenarioInput['nodes']): NodeSpec[] {
  if (Array.isArray(nodes)) {
    return nodes.map((node, index) => nodeSpec(node.name ?? `node-${index + 1}`, node));
  }
  const count = nodes?.count ?? 3;
  return Array.from({ length: count }, (_, index) => nodeSpec(`node-${index + 1}`, nodes ?? {}));
}

function nodeSpec(name: string, shape: Partial<NodeSpec> | { cpu?: string; memory?: string; pods?: number }): NodeSpec {
  const labels = 'labels' in shape && shape.labels ? shape.labels : {};
  const taints = 'taints' in shape && shape.taints ? shape.taints : [];
  return {
    name,
    cpu: String(shape.cpu ?? '4'),
    memory: String(shape.memory ?? '8Gi'),
    pods: shape.pods ?? 110,
    labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', ...labels },
    taints,
  };
}

function checkVersion(version: string): string {
  if (!/^1\.\d+$/.test(String(version)))
    throw new Error(`scenario.kubeletVersion: expected a minor version such as "1.31", not ${JSON.stringify(version)}`);
  return String(version);
}

/** Whether the scenario's kubelets are at least version 1.minor. */
export function kubeletAtLeast(scenario: Pick<Scenario, 'kubeletVersion'>, minor: number): boolean {
  return Number(scenario.kubeletVersion.split('.')[1]) >= minor;
}

function checkRegistryEntry(image: string, entry: RegistryEntry): void {
  if (typeof entry === 'string') {
    if (!IMAGE_STATES.includes(entry))
      throw new Error(`scenario.registry[${JSON.stringify(image)}]: unknown value ${JSON.stringify(entry)}`);
    return;
  }
  if (typeof entry !== 'object' || entry === null)
    throw new Error(`scenario.registry[${JSON.stringify(image)}]: expected a string or an object`);
  if (entry.tokenServer !== undefined && !['dns', 'tls-timeout', '503', '429'].includes(entry.tokenServer)) {
    throw new Error(
      `scenario.registry[${JSON.stringify(image)}].tokenServer: unknown value ${JSON.stringify(entry.tokenServer)}`,
    );
  }
  if (entry.state !== undefined && !IMAGE_STATES.includes(entry.state)) {
    throw new Error(`scenario.registry[${JSON.stringify(image)}].state: unknown value ${JSON.stringify(entry.state)}`);
  }
}
