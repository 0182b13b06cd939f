// The default scheduler, reduced to what decides a rollout's fate: fit pods on nodes by taints
// and tolerations, nodeSelector, CPU and memory requests and pod count, bind them (spec.nodeName + PodScheduled), and
// otherwise mark them Unschedulable with the real FailedScheduling message, e.g.
// `0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No
// preemption victims found for incoming pod.` Unschedulable pods are retried when a pod goes away
// (resources freed) and every `unschedulableRetryMs`.

import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import type { NodeSpec, Scenario } from '../scenario.js';
import type { EventRecorder } from './events.js';
import { holdsNodeResources, isPodActive, podRequest, type PodCondition } from './pods.js';
import { cpuMillis, parseQuantity } from './quantity.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';

const REPORTING_INSTANCE = 'default-scheduler-control-plane';

interface NodeVerdict {
  reason: string;
  /** Whether evicting lower-priority pods could help (resources) or not (selector, taints). */
  resolvable: boolean;
}

export class Scheduler extends KindController {
  private readonly unschedulable = new Set<string>();

  constructor(
    store: Store,
    clock: SimClock,
    recorder: EventRecorder,
    private readonly scenario: Scenario,
  ) {
    super(store, clock, recorder, scenario.timing.controllerStepMs, 'default-scheduler', 'Pod');
  }

  protected override queueExisting(): void {
    this.queueEach('Pod', (object) => this.wantsScheduling(object));
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    // A node joined (an autoscaler's): the NodeAdd cluster event moves every unschedulable pod back to the active queue.
    if (object.kind === 'Node' && type === 'ADDED') {
      for (const waiting of this.unschedulable) this.queue.add(waiting);
      return;
    }
    if (object.kind !== 'Pod') return;
    const key = namespacedKey(object.metadata.namespace, object.metadata.name);
    if (type === 'DELETED') {
      this.unschedulable.delete(key);
      // Freed resources: move every unschedulable pod back to the active queue.
      for (const waiting of this.unschedulable) this.queue.add(waiting);
      return;
    }
    if (type === 'ADDED' && this.wantsScheduling(object)) this.queue.add(key);
  }

  private wantsScheduling(pod: KubeObject): boolean {
    return (
      !pod.spec?.nodeName &&
      (pod.spec?.schedulerName ?? 'default-scheduler') === 'default-scheduler' &&
      isPodActive(pod)
    );
  }

  protected override sync(key: string): void {
    this.schedule(key);
  }

  private schedule(key: string): void {
    const [namespace, name] = splitKey(key);
    const pod = this.store.get('Pod', namespace, name);
    if (!pod || !this.wantsScheduling(pod)) {
      this.unschedulable.delete(key);
      return;
    }
    const verdicts = new Map<string, NodeVerdict[]>();
    const fitting: { node: NodeSpec; score: number }[] = [];
    for (const node of this.scenario.nodes) {
      const problems = this.checkNode(pod, node);
      if (problems.length === 0) fitting.push({ node, score: this.freeFraction(pod, node) });
      else verdicts.set(node.name, problems);
    }
    if (fitting.length > 0) {
      // NodeResourcesFit LeastAllocated: the node with the most room left wins; ties by name.
      fitting.sort((a, b) => b.score - a.score || a.node.name.localeCompare(b.node.name));
      this.bind(pod, fitting[0]!.node.name);
      this.unschedulable.delete(key);
      return;
    }
    this.markUnschedulable(pod, verdicts);
    this.unschedulable.add(key);
    this.queue.add(key, this.scenario.timing.unschedulableRetryMs);
  }

  private checkNode(pod: KubeObject, node: NodeSpec): NodeVerdict[] {
    const problems: NodeVerdict[] = [];
    // Filter plugins run in the default profile's order and a node fails on the first that
    // rejects it: TaintToleration before NodeAffinity before NodeResourcesFit.
    const taint = untoleratedTaint(node, (pod.spec?.tolerations as Toleration[] | undefined) ?? []);
    if (taint)
      return [{ reason: `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`, resolvable: false }];
    if (!matchesNodeSelectorAndAffinity(pod, node)) {
      return [{ reason: "node(s) didn't match Pod's node affinity/selector", resolvable: false }];
    }
    const onNode = this.store.list(
      'Pod',
      undefined,
      undefined,
      (other) => other.spec?.nodeName === node.name && holdsNodeResources(other),
    );
    if (onNode.length + 1 > node.pods) problems.push({ reason: 'Too many pods', resolvable: true });
    const usedCpu = onNode.reduce((sum, other) => sum + podRequest(other.spec ?? {}, 'cpu'), 0);
    const usedMemory = onNode.reduce((sum, other) => sum + podRequest(other.spec ?? {}, 'memory'), 0);
    if (usedCpu + podRequest(pod.spec ?? {}, 'cpu') > cpuMillis(node.cpu))
      problems.push({ reason: 'Insufficient cpu', resolvable: true });
    if (usedMemory + podRequest(pod.spec ?? {}, 'memory') > parseQuantity(node.memory))
      problems.push({ reason: 'Insufficient memory', resolvable: true });
    return problems;
  }

  private freeFraction(pod: KubeObject, node: NodeSpec): number {
    const onNode = this.store.list(
      'Pod',
      undefined,
      undefined,
      (other) => other.spec?.nodeName === node.name && holdsNodeResources(other),
    );
    const cpu = onNode.reduce(
      (sum, other) => sum + podRequest(other.spec ?? {}, 'cpu'),
      podRequest(pod.spec ?? {}, 'cpu'),
    );
    const memory = onNode.reduce(
      (sum, other) => sum + podRequest(other.spec ?? {}, 'memory'),
      podRequest(pod.spec ?? {}, 'memory'),
    );
    const freeCpu = 1 - cpu / Math.max(1, cpuMillis(node.cpu));
    const freeMemory = 1 - memory / Math.max(1, parseQuantity(node.memory));
    // With no requests at all, spread by pod count instead.
    return (freeCpu + freeMemory) / 2 - onNode.length / (node.pods * 1000);
  }

  private bind(pod: KubeObject, nodeName: string): void {
    const bound = structuredClone(pod);
    bound.spec.nodeName = nodeName;
    delete bound.metadata.resourceVersion;
    const updated = this.store.update(bound);
    const conditions = ((updated.status?.conditions as PodCondition[] | undefined) ?? []).filter(
      (c) => c.type !== 'PodScheduled',
    );
    conditions.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: this.clock.nowIso(),
    });
    this.store.updateStatus({ ...updated, status: { ...(updated.status ?? {}), conditions } });
    this.recorder.recordSeries(
      pod,
      'default-scheduler',
      REPORTING_INSTANCE,
      'Binding',
      'Normal',
      'Scheduled',
      `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${nodeName}`,
    );
  }

  private markUnschedulable(pod: KubeObject, verdicts: Map<string, NodeVerdict[]>): void {
    const total = this.scenario.nodes.length;
    const message = `${fitErrorMessage(total, verdicts)} ${preemptionMessage(total, verdicts)}`;
    const current = (pod.status?.conditions as PodCondition[] | undefined)?.find((c) => c.type === 'PodScheduled');
    if (!(current?.status === 'False' && current.message === message)) {
      const conditions = ((pod.status?.conditions as PodCondition[] | undefined) ?? []).filter(
        (c) => c.type !== 'PodScheduled',
      );
      conditions.push({
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: this.clock.nowIso(),
        reason: 'Unschedulable',
        message,
      });
      this.store.updateStatus({
        ...pod,
        metadata: { ...pod.metadata, resourceVersion: undefined },
        status: { ...(pod.status ?? {}), phase: 'Pending', conditions },
      });
    }
    this.recorder.recordSeries(
      pod,
      'default-scheduler',
      REPORTING_INSTANCE,
      'Scheduling',
      'Warning',
      'FailedScheduling',
      message,
    );
  }
}

interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

/** tainttoleration Filter: the first NoSchedule/NoExecute taint no toleration matches (v1helper.ToleratesTaint). */
function untoleratedTaint(node: NodeSpec, tolerations: readonly Toleration[]): NodeSpec['taints'][number] | undefined {
  return node.taints.find(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerations.some((toleration) => {
        if (toleration.effect && toleration.effect !== taint.effect) return false;
        if ((toleration.operator ?? 'Equal') === 'Exists') return !toleration.key || toleration.key === taint.key;
        return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '');
      }),
  );
}

/** The NodeAffinity filter: spec.nodeSelector and required node affinity both hold for the node's labels. */
export function matchesNodeSelectorAndAffinity(pod: KubeObject, node: Pick<NodeSpec, 'name' | 'labels'>): boolean {
  const selector: Record<string, string> = pod.spec?.nodeSelector ?? {};
  return Object.entries(selector).every(([k, v]) => node.labels[k] === v) && matchesRequiredAffinity(pod, node);
}

interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/**
 * NodeAffinity requiredDuringSchedulingIgnoredDuringExecution: any term matches when all its
 * matchExpressions (node labels) and matchFields (only metadata.name, as the daemonset controller
 * writes) hold (component-helpers nodeaffinity). No affinity: every node.
 */
function matchesRequiredAffinity(pod: KubeObject, node: Pick<NodeSpec, 'name' | 'labels'>): boolean {
  const terms = (pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ??
    []) as {
    matchExpressions?: NodeSelectorRequirement[];
    matchFields?: NodeSelectorRequirement[];
  }[];
  if (terms.length === 0) return true;
  const holds = (requirement: NodeSelectorRequirement, value: string | undefined): boolean => {
    switch (requirement.operator) {
      case 'In':
        return value !== undefined && (requirement.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(requirement.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  };
  return terms.some(
    (term) =>
      (term.matchExpressions ?? []).every((requirement) => holds(requirement, node.labels[requirement.key])) &&
      (term.matchFields ?? []).every((requirement) =>
        holds(requirement, requirement.key === 'metadata.name' ? node.name : undefined),
      ) &&
      ((term.matchExpressions ?? []).length > 0 || (term.matchFields ?? []).length > 0),
  );
}

/** FitError.Error(): `0/N nodes are available: <count reason, ...sorted>.` */
function fitErrorMessage(total: number, verdicts: Map<string, NodeVerdict[]>): string {
  if (total === 0) return 'no nodes available to schedule pods';
  return `0/${total} nodes are available: ${histogram(verdicts, (verdict) => verdict.reason)}.`;
}

/** The default preemption plugin's postfilter message when no victim helps. */
function preemptionMessage(total: number, verdicts: Map<string, NodeVerdict[]>): string {
  const perNode = new Map<string, NodeVerdict[]>();
  for (const [node, problems] of verdicts) {
    const resolvable = problems.every((problem) => problem.resolvable);
    perNode.set(node, [
      {
        reason: resolvable
          ? 'No preemption victims found for incoming pod'
          : 'Preemption is not helpful for scheduling',
        resolvable,
      },
    ]);
  }
  return `preemption: 0/${total} nodes are available: ${histogram(perNode, (verdict) => verdict.reason)}.`;
}

function histogram(verdicts: Map<string, NodeVerdict[]>, reasonOf: (verdict: NodeVerdict) => string): string {
  const counts = new Map<string, number>();
  for (const problems of verdicts.values()) {
    for (const reason of new Set(problems.map(reasonOf))) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts.entries()]
    .map(([reason, count]) => `${count} ${reason}`)
    .sort()
    .join(', ');
}
