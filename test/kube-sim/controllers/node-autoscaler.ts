// A node autoscaler (scenario `nodeAutoscaler`): pods the scheduler marks Unschedulable because no
// node matches their node selector / affinity get the autoscaler's event, and after `joinAfterMs`
// a node that matches joins the cluster (a Node object, a kubelet, room in the scheduler, which
// retries its unschedulable pods on the NodeAdd event and binds them).
// - cluster-autoscaler (core/scaleup/orchestrator, processors/status/eventing_scale_up_processor.go):
//   Normal `TriggeredScaleUp` `pod triggered scale-up: [{<group> <current>-><new> (max: <max>)}]`
//   (ScaleUpInfo.String in processors/nodegroupset), source cluster-autoscaler;
// - Karpenter (pkg/events/suite... provisioning events.go NominatePodEvent): Normal `Nominated`
//   `Pod should schedule on: nodeclaim/<nodepool>-<suffix>`, source karpenter.
// Only the knob's nodes can join, each once, in order, and only for pods whose selector they match.

import type { SimClock } from '../clock.js';
import type { NodeAutoscalerKnobs } from '../scenario-crowd.js';
import type { NodeSpec, Scenario } from '../scenario.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import type { EventRecorder } from './events.js';
import { registerNodes } from './nodes.js';
import type { PodCondition } from './pods.js';
import { matchesNodeSelectorAndAffinity } from './scheduler.js';
import { WorkQueue, namespacedKey, splitKey } from './workqueue.js';

const SELECTOR_MISMATCH = "didn't match Pod's node affinity/selector";

interface ScaleUp {
  node: NodeSpec;
  /** cluster-autoscaler's ScaleUpInfo, or Karpenter's NodeClaim name. */
  description: string;
}

export class NodeAutoscaler {
  private readonly queue: WorkQueue | undefined;
  private readonly inFlight: ScaleUp[] = [];
  private readonly used = new Set<string>();
  /** Pods already told about their scale-up (uid → node name). */
  private readonly told = new Map<string, string>();
  private groupSize = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: SimClock,
    private readonly recorder: EventRecorder,
    private readonly scenario: Scenario,
    private readonly knobs: NodeAutoscalerKnobs | undefined,
  ) {
    if (knobs)
      this.queue = new WorkQueue(clock, scenario.timing.controllerStepMs, (key) => this.sync(key), knobs.flavour);
  }

  start(): void {
    if (!this.queue) return;
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue?.stop();
  }

  private onEvent({ type, object }: StoreEvent): void {
    if (object.kind !== 'Pod' || type === 'DELETED' || !unschedulableForSelector(object)) return;
    this.queue!.add(namespacedKey(object.metadata.namespace, object.metadata.name));
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const pod = this.store.get('Pod', namespace, name);
    if (!pod || pod.spec?.nodeName || !unschedulableForSelector(pod) || this.told.has(pod.metadata.uid ?? '')) return;
    const knobs = this.knobs!;
    let scaleUp = this.inFlight.find((candidate) => matchesNodeSelectorAndAffinity(pod, candidate.node));
    if (!scaleUp) {
      const candidate = knobs.nodes.find(
        (node) =>
          !this.used.has(node.name) && matchesNodeSelectorAndAffinity(pod, { name: node.name, labels: labelsOf(node) }),
      );
      if (!candidate) return;
      scaleUp = this.startScaleUp(candidate);
    }
    this.told.set(pod.metadata.uid ?? '', scaleUp.node.name);
    if (knobs.flavour === 'karpenter') {
      this.recorder.record(
        pod,
        { component: 'karpenter' },
        'Normal',
        'Nominated',
        `Pod should schedule on: nodeclaim/${scaleUp.description}`,
      );
    } else {
      this.recorder.record(
        pod,
        { component: 'cluster-autoscaler' },
        'Normal',
        'TriggeredScaleUp',
        `pod triggered scale-up: [${scaleUp.description}]`,
      );
    }
  }

  private startScaleUp(candidate: NodeAutoscalerKnobs['nodes'][number]): ScaleUp {
    const knobs = this.knobs!;
    this.used.add(candidate.name);
    const node: NodeSpec = {
      name: candidate.name,
      cpu: candidate.cpu ?? '4',
      memory: candidate.memory ?? '8Gi',
      pods: 110,
      labels: labelsOf(candidate),
      taints: [],
    };
    const description =
      knobs.flavour === 'karpenter'
        ? `${knobs.nodeGroup}-${generatedSuffix(candidate.name)}`
        : `{${knobs.nodeGroup} ${this.groupSize}->${this.groupSize + 1} (max: ${knobs.maxSize})}`;
    this.groupSize++;
    const scaleUp = { node, description };
    this.inFlight.push(scaleUp);
    this.clock.after(knobs.joinAfterMs, () => this.join(scaleUp));
    return scaleUp;
  }

  /** The instance has booted and its kubelet registered the Node, Ready. */
  private join(scaleUp: ScaleUp): void {
    this.inFlight.splice(this.inFlight.indexOf(scaleUp), 1);
    this.scenario.nodes.push(scaleUp.node);
    registerNodes(this.store, this.scenario.nodes, this.clock.nowIso(), this.scenario.kubeletVersion);
  }
}

/** A NodeClaim's generateName suffix (5 of apimachinery's random-string alphabet), derived from the node's name so it is stable. */
function generatedSuffix(seed: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let hash = 2166136261;
  let suffix = '';
  for (let i = 0; i < 5; i++) {
    for (const char of `${seed}:${i}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
    suffix += alphabet[hash % alphabet.length];
  }
  return suffix;
}

function labelsOf(node: { name: string; labels: Record<string, string> }): Record<string, string> {
  return {
    'kubernetes.io/hostname': node.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    ...node.labels,
  };
}

function unschedulableForSelector(pod: KubeObject): boolean {
  const scheduled = (pod.status?.conditions as PodCondition[] | undefined)?.find(
    (condition) => condition.type === 'PodScheduled',
  );
  return (
    scheduled?.status === 'False' &&
    scheduled.reason === 'Unschedulable' &&
    String(scheduled.message ?? '').includes(SELECTOR_MISMATCH)
  );
}
