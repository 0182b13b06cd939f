// Reads one pod and lists what is wrong with it, by the table in table.ts. Pure: no clock, no I/O.
import type { ContainerStatus, Pod } from '../kube.js';
import { conditionOf } from '../kube.js';
import { POD_CONDITION_REASONS, WAITING_REASONS, type FatalPolicy, type ReasonRule } from './table.js';

export interface Finding {
  pod: string;
  namespace: string;
  /** Absent for pod-level findings (unschedulable). */
  container?: string;
  initContainer: boolean;
  image?: string;
  reason: string;
  message: string;
  restartCount: number;
  /** The previous run's end, when the container has restarted: exit code and reason (Error, OOMKilled). */
  lastTermination?: { exitCode?: number; reason?: string };
  rule: ReasonRule;
  /** The rule's policy, or its transient policy when the message says the cause is passing. */
  policy: FatalPolicy;
}

/** Why a container ended, as the kubelet records it in lastState.terminated.reason. */
const TERMINATION_STEPS: Readonly<Record<string, string>> = {
  // kubelet/runtime: the kernel OOM killer ended the process (exit code 137).
  OOMKilled: 'raise the container memory limit or lower its usage (it was OOMKilled)',
};

export function classifyPod(pod: Pod): Finding[] {
  const findings: Finding[] = [];
  const specImages = new Map<string, string | undefined>();
  for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    specImages.set(container.name, container.image);
  }
  const statuses: Array<[ContainerStatus, boolean]> = [
    ...(pod.status?.initContainerStatuses ?? []).map((status): [ContainerStatus, boolean] => [status, true]),
    ...(pod.status?.containerStatuses ?? []).map((status): [ContainerStatus, boolean] => [status, false]),
  ];
  for (const [status, initContainer] of statuses) {
    const waiting = status.state?.waiting;
    const rule = waiting?.reason ? WAITING_REASONS[waiting.reason] : undefined;
    if (!waiting?.reason || !rule) continue;
    const message = waiting.message ?? '';
    const lastTerminated = status.lastState?.terminated;
    const transient = rule.transient && rule.transient.message.test(message) ? rule.transient : undefined;
    const terminationStep = lastTerminated?.reason ? TERMINATION_STEPS[lastTerminated.reason] : undefined;
    const nextStep = terminationStep ?? transient?.nextStep;
    findings.push({
      pod: pod.metadata.name,
      namespace: pod.metadata.namespace ?? '',
      container: status.name,
      initContainer,
      image: specImages.get(status.name) ?? status.image,
      reason: waiting.reason,
      message,
      restartCount: status.restartCount ?? 0,
      lastTermination: lastTerminated ? { exitCode: lastTerminated.exitCode, reason: lastTerminated.reason } : undefined,
      rule: nextStep ? { ...rule, nextStep } : rule,
      policy: transient?.policy ?? rule.policy,
    });
  }
  // A container finding already explains why the pod is not ready.
  if (findings.length === 0) findings.push(...podConditionFindings(pod));
  return findings;
}

function podConditionFindings(pod: Pod): Finding[] {
  const findings: Finding[] = [];
  const scheduled = conditionOf(pod, 'PodScheduled');
  const ready = conditionOf(pod, 'Ready');
  // Only one pod-level finding: an unscheduled pod is also not ready, and that says nothing new.
  const condition =
    scheduled?.status === 'False' ? scheduled : ready?.status === 'False' && pod.status?.phase === 'Running' ? ready : undefined;
  const rule = condition?.reason ? POD_CONDITION_REASONS[condition.reason] : undefined;
  if (!condition || !rule) return findings;
  findings.push({
    pod: pod.metadata.name,
    namespace: pod.metadata.namespace ?? '',
    initContainer: false,
    reason: condition.reason ?? '',
    message: condition.message ?? '',
    restartCount: 0,
    rule,
    policy: rule.policy,
  });
  return findings;
}

/** The key under which a finding is remembered between polls: same pod, container and reason. */
export function findingKey(finding: Pick<Finding, 'pod' | 'container' | 'reason'>): string {
  return `${finding.pod}/${finding.container ?? ''}/${finding.reason}`;
}
