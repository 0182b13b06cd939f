// Reads one pod, and what is known about it from earlier polls and its events (clues.ts), and lists
// what is wrong with it, by the table in table.ts. Pure: no clock, no I/O.
import type { ContainerStatus, Pod } from '../kube.js';
import { conditionOf } from '../kube.js';
import { imagesOf, NO_CLUES, podUid, type Clues } from './clues.js';
import { isBareBackOff, judgePullError } from './pull-errors.js';
import type { PullCause } from '../model/findings.js';
import { fitReasons, judgeSchedulingMessage } from './scheduling.js';
import { POD_REASONS, PULL_CAUSE_RULES, STARTING_REASONS, unknownWaitingRule, WAITING_REASONS } from './table.js';
import type { ReasonRule } from '../model/findings.js';
import { OWN_LIMIT_EVICTION } from './terminated.js';
import { oneLine } from './text.js';
import type { Finding } from '../model/findings.js';

/** Why a container ended, as the runtime records it in lastState.terminated.reason. */
const TERMINATION_STEPS: Readonly<Record<string, string>> = {
  // containerd (cgroup OOM event): the kernel OOM killer ended the process (exit code 137).
  OOMKilled: 'raise the memory limit of CONTAINER or lower its usage (it was OOMKilled)',
};

export function classifyPod(pod: Pod, clues: Clues = NO_CLUES): Finding[] {
  // kubelet eviction manager: status.reason Evicted, phase Failed. The pod will not come back.
  if (pod.status?.reason === 'Evicted') return [evictionFinding(pod)];
  const findings: Finding[] = [];
  const specs = new Map<string, { image?: string }>();
  for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])])
    specs.set(container.name, container);
  const statuses: Array<[ContainerStatus, boolean]> = [
    ...(pod.status?.initContainerStatuses ?? []).map((status): [ContainerStatus, boolean] => [status, true]),
    ...(pod.status?.containerStatuses ?? []).map((status): [ContainerStatus, boolean] => [status, false]),
  ];
  for (const [status, initContainer] of statuses) {
    const waiting = status.state?.waiting;
    if (!waiting?.reason || STARTING_REASONS.has(waiting.reason)) continue;
    const lastTerminated = status.lastState?.terminated;
    let reason = waiting.reason;
    let message = oneLine(waiting.message ?? '');
    let rule = WAITING_REASONS[reason] ?? unknownWaitingRule(reason);
    // A back-off after a failed start (the process could not start, its postStart hook failed) is
    // that failure again: the kubelet shows the cause until the next sync, then CrashLoopBackOff.
    const startFailure = clues.startFailures.get(`${podUid(pod)}/${status.name}`);
    if (reason === 'CrashLoopBackOff' && startFailure && WAITING_REASONS[startFailure.reason]) {
      reason = startFailure.reason;
      message = startFailure.message;
      rule = WAITING_REASONS[startFailure.reason] ?? rule;
    } else if (reason === 'CrashLoopBackOff' && lastTerminated?.reason === 'StartError') {
      rule = WAITING_REASONS.RunContainerError ?? rule;
    }
    let policy = rule.policy;
    let pullCause: PullCause | undefined;
    let pullError: string | undefined;
    if (rule.judgedByPullError) {
      // ≤1.31 back-off messages name no cause: use the last error seen in a poll or an event.
      pullError =
        isBareBackOff(message) || message === '' ? clues.pullErrors.get(imagesOf(pod).get(status.name) ?? '') : message;
      pullCause = judgePullError(pullError);
      policy = PULL_CAUSE_RULES[pullCause].policy;
      rule = { ...rule, nextStep: PULL_CAUSE_RULES[pullCause].nextStep };
    }
    const terminationStep = lastTerminated?.reason ? TERMINATION_STEPS[lastTerminated.reason] : undefined;
    if (terminationStep) rule = { ...rule, nextStep: terminationStep };
    findings.push({
      pod: pod.metadata.name,
      namespace: pod.metadata.namespace ?? '',
      container: status.name,
      initContainer,
      image: specs.get(status.name)?.image ?? status.image,
      reason,
      message,
      restartCount: status.restartCount ?? 0,
      lastTermination: lastTerminated
        ? { exitCode: lastTerminated.exitCode, reason: lastTerminated.reason }
        : undefined,
      ran: hasRun(status),
      running: status.state?.running !== undefined,
      family: rule.family,
      pullCause,
      pullError,
      rule,
      policy,
    });
  }
  // A container finding already explains why the pod is not ready.
  if (findings.length > 0) return findings;
  const podFinding = schedulingFinding(pod, clues) ?? volumeFinding(pod, clues) ?? readinessFinding(pod);
  return podFinding ? [podFinding] : [];
}

/** The key under which a finding's first sighting is remembered: pod, container and family. */
export function findingKey(finding: Pick<Finding, 'pod' | 'container' | 'family'>): string {
  return `${finding.pod}/${finding.container ?? ''}/${finding.family}`;
}

/** The pod and container a findingKey names ('' for none); a condition's reason, remembered beside them, reads as a pod name. */
export function findingKeyParts(key: string): { pod: string; container: string } {
  const [pod = '', container = ''] = key.split('/');
  return { pod, container };
}

function podFinding(pod: Pod, rule: ReasonRule, reason: string, message: string, container?: string): Finding {
  return {
    pod: pod.metadata.name,
    namespace: pod.metadata.namespace ?? '',
    container,
    initContainer: false,
    reason,
    message: oneLine(message),
    restartCount: 0,
    ran: false,
    running: false,
    family: rule.family,
    rule,
    policy: rule.policy,
  };
}

function evictionFinding(pod: Pod): Finding {
  const message = pod.status?.message ?? '';
  const rule = OWN_LIMIT_EVICTION.test(message) ? POD_REASONS.Evicted : POD_REASONS.EvictedByNodePressure;
  return podFinding(pod, rule, 'Evicted', message);
}

function schedulingFinding(pod: Pod, clues: Clues): Finding | undefined {
  const scheduled = conditionOf(pod, 'PodScheduled');
  // scheduler: PodScheduled False, reason Unschedulable, message the FitError.
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return undefined;
  const message = scheduled.message ?? '';
  if (judgeSchedulingMessage(message) === 'capacity')
    return podFinding(pod, POD_REASONS.Unschedulable, 'Unschedulable', message);
  // A node autoscaler is bringing a node for it: the constraint is a wait, as a lack of room is.
  if (clues.scaleUps.has(podUid(pod)))
    return podFinding(pod, POD_REASONS.UnschedulableScalingUp, 'Unschedulable', message);
  const taints = fitReasons(message).filter((reason) => reason.includes('untolerated taint'));
  const rule: ReasonRule =
    taints.length > 0 && taints.length === fitReasons(message).length
      ? {
          ...POD_REASONS.UnschedulableConstraint,
          nextStep: `every node has a taint the pod does not tolerate (${taints[0]?.replace(/^node\(s\) had untolerated taint /, '')}): add a toleration to the pod template, or run it on other nodes`,
        }
      : POD_REASONS.UnschedulableConstraint;
  return podFinding(pod, rule, 'Unschedulable', message);
}

/** A scheduled pod still creating its containers, with volume events: the volume is why. */
function volumeFinding(pod: Pod, clues: Clues): Finding | undefined {
  const volumes = clues.volumes.get(podUid(pod)) ?? [];
  if (pod.status?.phase !== 'Pending' || volumes.length === 0) return undefined;
  const starting = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].every(
    (status) => status.state?.waiting?.reason !== undefined && STARTING_REASONS.has(status.state.waiting.reason),
  );
  if (!starting) return undefined;
  // The attach failure is the cause; the mount timeout that follows it only repeats it.
  const clue = volumes.find((volume) => volume.reason === 'FailedAttachVolume') ?? volumes[0];
  if (!clue) return undefined;
  return podFinding(pod, POD_REASONS[clue.reason], clue.reason, clue.message);
}

function readinessFinding(pod: Pod): Finding | undefined {
  const ready = conditionOf(pod, 'Ready');
  if (ready?.status !== 'False' || pod.status?.phase !== 'Running') return undefined;
  if (ready.reason === 'ContainersNotReady') {
    // `containers with unready status: [app sidecar]` (kubelet status/generate.go).
    const unready = /\[([^\]]*)\]/.exec(ready.message ?? '')?.[1]?.split(' ')[0];
    const finding = podFinding(
      pod,
      POD_REASONS.ContainersNotReady,
      'ContainersNotReady',
      ready.message ?? '',
      unready || undefined,
    );
    // It runs but fails its probe: what it printed may say why.
    const status = pod.status?.containerStatuses?.find((candidate) => candidate.name === unready);
    return status?.state?.running
      ? { ...finding, ran: true, running: true, restartCount: status.restartCount ?? 0 }
      : finding;
  }
  if (ready.reason === 'ReadinessGatesNotReady')
    return podFinding(pod, POD_REASONS.ReadinessGatesNotReady, 'ReadinessGatesNotReady', ready.message ?? '');
  return undefined;
}

/** Ran at least once: running now, or an end after a real start (StartError's startedAt is the epoch). */
function hasRun(status: ContainerStatus): boolean {
  if (status.state?.running) return true;
  return [status.state?.terminated, status.lastState?.terminated].some(
    (terminated) =>
      terminated !== undefined && terminated.reason !== 'StartError' && !terminated.startedAt?.startsWith('1970-01-01'),
  );
}
