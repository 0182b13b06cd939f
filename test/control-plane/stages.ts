// kwok Stages that play the kubelet on the real control plane, generated from a kube-sim
// scenario: which images fail to pull (and with which containerd error) comes from the scenario's
// registry; which pods crash or get evicted from kube-sim's `sim.kguard.dev/*` pod annotations,
// so one manifest behaves alike on both clusters. Status shapes follow the kubelet
// (pkg/kubelet/kubelet_pods.go generateAPIPodStatus, kuberuntime_container.go, images/image_manager.go).
// Each pod matches at most one stage at a time: the selectors are exclusive by construction.

import { stringify } from 'yaml';
import { parseImageRef, SimulatedRegistry, type ImageRef } from '../kube-sim/controllers/kubelet/images.js';
import type { Scenario } from '../kube-sim/scenario.js';
import { evictedStatus, EXIT_CODE, podStatus } from './status-templates.js';

interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface Stage {
  apiVersion: 'kwok.x-k8s.io/v1alpha1';
  kind: 'Stage';
  metadata: { name: string };
  spec: {
    resourceRef: { apiGroup: 'v1'; kind: 'Pod' | 'Node' };
    selector: { matchExpressions: Requirement[] };
    delay?: { durationMilliseconds: number };
    next: {
      statusTemplate?: string;
      delete?: boolean;
      event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
    };
  };
}

type StageEvent = NonNullable<Stage['spec']['next']['event']>;

/** Timing of the stages, in wall milliseconds (kwok has no simulated clock). */
export interface StageTiming {
  startMs: number;
  pullMs: number;
  imageBackOffMs: number;
  crashAfterMs: number;
  crashBackOffMs: number;
  jobRunMs: number;
  evictAfterMs: number;
  deleteMs: number;
}

export const STAGE_TIMING: StageTiming = {
  startMs: 500,
  pullMs: 800,
  imageBackOffMs: 3_000,
  crashAfterMs: 1_500,
  crashBackOffMs: 3_000,
  jobRunMs: 1_000,
  evictAfterMs: 2_000,
  deleteMs: 300,
};

const EPHEMERAL_USAGE = 'sim.kguard.dev/ephemeral-storage-usage';
const READINESS = 'sim.kguard.dev/readiness';

const notDeleted: Requirement = { key: '.metadata.deletionTimestamp', operator: 'DoesNotExist' };
const phase = (...values: string[]): Requirement => ({ key: '.status.phase', operator: 'In', values });
const annotation = (name: string, operator: 'Exists' | 'DoesNotExist'): Requirement => ({
  key: `.metadata.annotations[${JSON.stringify(name)}]`,
  operator,
});
const anyImage = (regex: string, matches: boolean): Requirement => ({
  key: `[.spec.containers.[].image | test(${JSON.stringify(regex)})] | any`,
  operator: 'In',
  values: [String(matches)],
});
const waitingReason = (...values: string[]): Requirement => ({
  key: '.status.containerStatuses.[].state.waiting.reason',
  operator: 'In',
  values,
});
/** kube-sim's knob: a container exits with this code; "0" (a Job's normal end) is no crash. */
const crashes = (yes: boolean): Requirement => ({
  key: `(.metadata.annotations[${JSON.stringify(EXIT_CODE)}] // "0") != "0"`,
  operator: 'In',
  values: [String(yes)],
});
const started: Requirement = { key: '.status.startTime', operator: 'Exists' };
const ownedByJob = (owned: boolean): Requirement => ({
  key: '.metadata.ownerReferences.[].kind',
  operator: owned ? 'In' : 'NotIn',
  values: ['Job'],
});
const restartPolicy = (...values: string[]): Requirement => ({ key: '.spec.restartPolicy', operator: 'In', values });

/** A registry entry the kwok kubelet fails to pull: a regex over the image as written, and its error. */
interface FailingImage {
  name: string;
  regex: string;
  /** Go template expression giving the containerd error for the image in `$c.image`. */
  errorExpression: string;
}

export function podStages(scenario: Scenario, timing: StageTiming = STAGE_TIMING): Stage[] {
  const failing = failingImages(scenario);
  const anyFailing = failing.length === 0 ? '^$' : failing.map((image) => `(${image.regex})`).join('|');
  const pullsFine = anyImage(anyFailing, false);
  const stages: Stage[] = [];
  const stage = (
    name: string,
    kind: 'Pod' | 'Node',
    matchExpressions: Requirement[],
    delayMs: number,
    next: Stage['spec']['next'],
  ): void => {
    stages.push({
      apiVersion: 'kwok.x-k8s.io/v1alpha1',
      kind: 'Stage',
      metadata: { name },
      spec: {
        resourceRef: { apiGroup: 'v1', kind },
        selector: { matchExpressions },
        ...(delayMs > 0 ? { delay: { durationMilliseconds: delayMs } } : {}),
        next,
      },
    });
  };

  // The kubelet's first status for a bound pod: Pending, sandbox not ready, containers creating.
  stage(
    'pod-create',
    'Pod',
    [notDeleted, { key: '.status.startTime', operator: 'DoesNotExist' }, { key: '.spec.nodeName', operator: 'Exists' }],
    0,
    {
      statusTemplate: podStatus({
        phase: 'Pending',
        sandbox: false,
        ready: false,
        containers: 'waiting "ContainerCreating" ""',
      }),
    },
  );
  const neverReady: Requirement = {
    key: `.metadata.annotations[${JSON.stringify(READINESS)}]`,
    operator: 'In',
    values: ['fail'],
  };
  const mayBeReady: Requirement = { ...neverReady, operator: 'NotIn' };
  stage(
    'pod-start',
    'Pod',
    [notDeleted, phase('Pending'), started, pullsFine, crashes(false), mayBeReady],
    timing.startMs,
    {
      event: { type: 'Normal', reason: 'Started', message: 'Container started' },
      statusTemplate: podStatus({ phase: 'Running', sandbox: true, ready: true, containers: 'running' }),
    },
  );
  // kube-sim's `sim.kguard.dev/readiness: fail`: the readiness probe never passes; Running, not Ready.
  stage(
    'pod-start-unready',
    'Pod',
    [notDeleted, phase('Pending'), started, pullsFine, crashes(false), neverReady],
    timing.startMs,
    {
      event: { type: 'Normal', reason: 'Started', message: 'Container started' },
      statusTemplate: podStatus({ phase: 'Running', sandbox: true, ready: false, containers: 'running' }),
    },
  );

  for (const image of failing) {
    const failsHere = anyImage(image.regex, true);
    // One step of the pull loop: from the container waiting `from`, after `ms`, to waiting `to`.
    const pull = (name: string, from: string, ms: number, event: StageEvent, to: string) =>
      stage(name, 'Pod', [notDeleted, phase('Pending'), started, failsHere, waitingReason(from)], ms, {
        event,
        statusTemplate: podStatus({
          phase: 'Pending',
          sandbox: true,
          ready: false,
          containers: `pull ${to}`,
          regex: image.regex,
          pullError: image.errorExpression,
        }),
      });
    // kubelet images/image_manager.go: ErrImagePull carries the runtime's error as its message.
    const pullFailed: StageEvent = { type: 'Warning', reason: 'Failed', message: 'Error: ErrImagePull' };
    pull(`pull-${image.name}`, 'ContainerCreating', timing.pullMs, pullFailed, 'ErrImagePull');
    // From 1.32 (kubernetes#127918) the back-off message adds the last pull error.
    const backOff: StageEvent = { type: 'Normal', reason: 'BackOff', message: 'Back-off pulling image' };
    pull(`pull-backoff-${image.name}`, 'ErrImagePull', timing.pullMs, backOff, 'ImagePullBackOff');
    pull(`pull-retry-${image.name}`, 'ImagePullBackOff', timing.imageBackOffMs, pullFailed, 'ErrImagePull');
  }

  // A container given a non-zero `sim.kguard.dev/exit-code` starts, runs crashAfterMs and exits; the kubelet
  // restarts it at once the first time, then with back-off (kuberuntime_manager.go doBackOff).
  const crashing = [notDeleted, started, pullsFine, crashes(true)];
  stage('crash-start', 'Pod', [...crashing, phase('Pending')], timing.startMs, {
    statusTemplate: podStatus({ phase: 'Running', sandbox: true, ready: false, containers: 'running' }),
  });
  const restarts = restartPolicy('Always', 'OnFailure');
  stage(
    'crash-exit',
    'Pod',
    [
      ...crashing,
      phase('Running'),
      restarts,
      { key: '.status.containerStatuses.[].state.running', operator: 'Exists' },
    ],
    timing.crashAfterMs,
    {
      event: { type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container' },
      statusTemplate: podStatus({ phase: 'Running', sandbox: true, ready: false, containers: 'crashed' }),
    },
  );
  stage(
    'crash-restart',
    'Pod',
    [...crashing, phase('Running'), restarts, waitingReason('CrashLoopBackOff')],
    timing.crashBackOffMs,
    {
      statusTemplate: podStatus({ phase: 'Running', sandbox: true, ready: false, containers: 'restarted' }),
    },
  );
  stage('crash-fail', 'Pod', [...crashing, phase('Running'), restartPolicy('Never')], timing.crashAfterMs, {
    statusTemplate: podStatus({ phase: 'Failed', sandbox: false, ready: false, containers: 'exited' }),
  });

  // A Job's container without an exit code finishes with 0.
  stage(
    'job-complete',
    'Pod',
    [notDeleted, phase('Running'), ownedByJob(true), crashes(false), annotation(EPHEMERAL_USAGE, 'DoesNotExist')],
    timing.jobRunMs,
    {
      statusTemplate: podStatus({ phase: 'Succeeded', sandbox: false, ready: false, containers: 'completed' }),
    },
  );

  // The kubelet's eviction manager (pkg/kubelet/eviction/helpers.go): phase Failed, reason Evicted.
  stage(
    'evict',
    'Pod',
    [notDeleted, phase('Running'), ownedByJob(false), annotation(EPHEMERAL_USAGE, 'Exists')],
    timing.evictAfterMs,
    {
      event: {
        type: 'Warning',
        reason: 'Evicted',
        message: 'Pod ephemeral local storage usage exceeds the total limit of containers',
      },
      statusTemplate: evictedStatus(),
    },
  );

  stage(
    'pod-delete',
    'Pod',
    [
      { key: '.metadata.deletionTimestamp', operator: 'Exists' },
      { key: '.metadata.finalizers', operator: 'DoesNotExist' },
    ],
    timing.deleteMs,
    { delete: true },
  );
  return stages;
}

/** The Node stages: Ready with the kubelet's conditions once, then a heartbeat (leases do the rest). */
export function nodeStages(): Stage[] {
  const conditions = `{{ $now := Now }}
conditions:
{{ range NodeConditions }}
- lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
  message: {{ .message | Quote }}
  reason: {{ .reason | Quote }}
  status: {{ .status | Quote }}
  type: {{ .type | Quote }}
{{ end }}
`;
  const capacity = `{{ $a := or .metadata.annotations dict }}
{{ range list "allocatable" "capacity" }}
{{ . }}:
  cpu: {{ or (index $a "kguard.dev/cpu") "4" | Quote }}
  memory: {{ or (index $a "kguard.dev/memory") "8Gi" | Quote }}
  pods: {{ or (index $a "kguard.dev/pods") "110" | Quote }}
  ephemeral-storage: "100Gi"
{{ end }}
addresses:
- address: {{ NodeIP | Quote }}
  type: InternalIP
- address: {{ .metadata.name | Quote }}
  type: Hostname
daemonEndpoints:
  kubeletEndpoint:
    Port: {{ NodePort }}
nodeInfo:
  architecture: amd64
  bootID: ""
  containerRuntimeVersion: "containerd://2.1.4"
  kernelVersion: "6.8.0-kwok"
  kubeProxyVersion: ""
  kubeletVersion: "v1.37.2"
  machineID: ""
  operatingSystem: linux
  osImage: "kwok"
  systemUUID: ""
phase: Running
`;
  const stage = (name: string, expressions: Requirement[], delayMs: number, statusTemplate: string): Stage => ({
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name },
    spec: {
      resourceRef: { apiGroup: 'v1', kind: 'Node' },
      selector: { matchExpressions: expressions },
      ...(delayMs > 0 ? { delay: { durationMilliseconds: delayMs } } : {}),
      next: { statusTemplate },
    },
  });
  const ready = '.status.conditions.[] | select( .type == "Ready" ) | .status';
  return [
    stage('node-initialize', [{ key: ready, operator: 'NotIn', values: ['True'] }], 0, conditions + capacity),
    stage('node-heartbeat', [{ key: ready, operator: 'In', values: ['True'] }], 60_000, conditions),
  ];
}

/** The kwok config file: every Stage, one YAML document each. */
export function kwokConfig(scenario: Scenario, timing: StageTiming = STAGE_TIMING): string {
  return [...nodeStages(), ...podStages(scenario, timing)]
    .map((stage) => stringify(stage, { lineWidth: 0 }))
    .join('---\n');
}

/**
 * Registry entries that make pulls fail, each with a regex over images as written and its
 * containerd error (the text kube-sim's registry gives; its `{{tag}}` filled per container).
 * Entries that fail only the first N pulls (rate limits, token server, blob lag) are left out:
 * kwok's stages have no per-image pull counter.
 */
function failingImages(scenario: Scenario): FailingImage[] {
  const registry = new SimulatedRegistry({ ...scenario, registry: scenario.registry });
  const failing: FailingImage[] = [];
  for (const [key, entry] of Object.entries(scenario.registry)) {
    const state = typeof entry === 'string' ? entry : entry.state;
    if (state === undefined || state === 'present') continue;
    if (key.includes('*'))
      throw new Error(
        `scenario.registry[${JSON.stringify(key)}]: the real cluster's kwok stages need an image or a repository, not a pattern`,
      );
    const ref = parseImageRef(key);
    if ('error' in ref) throw new Error(`scenario.registry[${JSON.stringify(key)}]: ${ref.error}`);
    const tagged = /[:@][^/]*$/.test(key);
    const placeholder = 'KGUARDTAG';
    const probe = parseImageRef(tagged ? key : `${key}:${placeholder}`) as ImageRef;
    const outcome = registry.pull(probe);
    if (outcome.ok) continue;
    const tag = '(ternary (regexReplaceAll "^.*:" $c.image "") "latest" (regexMatch ":[^/:]+$" $c.image))';
    failing.push({
      name: key.replace(/[^a-z0-9]+/gi, '-').toLowerCase(),
      regex: tagged ? `^${escapeRegex(key)}$` : `^${escapeRegex(key)}(:[^/:]+)?$`,
      errorExpression: `(print ${outcome.error.split(placeholder).map(goString).join(` ${tag} `)})`,
    });
  }
  return failing;
}

function goString(text: string): string {
  return JSON.stringify(text);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
