// Turns a verdict and the failing pod's events into what a person reads: the cause, the evidence
// (pod and event lines) and the next step. Pure.
import type { KubeEvent } from '../kube.js';
import type { WorkloadRef } from '../manifests/parse.js';
import type { Finding } from './pod.js';
import type { Cause, Verdict } from '../track/verdict.js';

export interface Diagnosis {
  /** One clause: "new pods cannot pull their image "x:1": ImagePullBackOff". */
  summary: string;
  /** Evidence, one line each: pod and container states, then the kubelet's or scheduler's events. */
  evidence: string[];
  nextStep: string;
  /** The pod whose events are shown, for the report. */
  pod?: string;
}

const MAX_EVENTS = 3;

export function diagnose(verdict: Verdict, events: readonly KubeEvent[], workload: WorkloadRef): Diagnosis | undefined {
  const { namespace } = workload;
  switch (verdict.state) {
    case 'failed':
      return causeDiagnosis(verdict.cause, verdict.findings, events, workload);
    case 'timed-out': {
      const worst = worstFinding(verdict.findings);
      return {
        summary: `new pods did not become ready in time (at the deadline: ${verdict.waitingFor})`,
        evidence: [...findingLines(verdict.findings), ...eventLines(events)],
        nextStep: worst ? fillStep(worst.rule.nextStep, worst, namespace) : 'raise --timeout if the rollout is just slow, or check the pods: kubectl get pods -n ' + namespace,
        pod: worst?.pod,
      };
    }
    default:
      return undefined;
  }
}

function causeDiagnosis(cause: Cause, findings: readonly Finding[], events: readonly KubeEvent[], workload: WorkloadRef): Diagnosis {
  const { namespace } = workload;
  if (cause.source === 'pod') {
    const { finding } = cause;
    const image = finding.rule.category === 'image-pull' && finding.image ? ` "${finding.image}"` : '';
    return {
      summary: `new pods cannot ${finding.rule.cannot}${image}: ${finding.reason}`,
      evidence: [...findingLines([finding, ...findings.filter((other) => other !== finding)]), ...eventLines(events)],
      nextStep: fillStep(finding.rule.nextStep, finding, namespace),
      pod: finding.pod,
    };
  }
  const worst = worstFinding(findings);
  return {
    summary: `the rollout cannot ${cause.rule.cannot}: ${cause.reason}${cause.message ? ` (${cause.message})` : ''}`,
    evidence: [...findingLines(findings), ...eventLines(events)],
    nextStep: worst
      ? fillStep(worst.rule.nextStep, worst, namespace)
      : cause.rule.nextStep.replace(/NAMESPACE/g, namespace).replace(/NAME/g, workload.name),
    pod: worst?.pod,
  };
}

/** One line per distinct (container, reason), at most three: enough to act on, short enough to read. */
function findingLines(findings: readonly Finding[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const finding of findings) {
    const key = `${finding.container ?? ''}/${finding.reason}`;
    if (seen.has(key) || lines.length >= 3) continue;
    seen.add(key);
    const where = finding.container
      ? `pod ${finding.pod} ${finding.initContainer ? 'init container' : 'container'} ${finding.container}`
      : `pod ${finding.pod}`;
    const restarts = finding.restartCount > 0 ? `, restarted ${finding.restartCount} times` : '';
    const last = finding.lastTermination
      ? `, last exit code ${finding.lastTermination.exitCode ?? '?'} (${finding.lastTermination.reason ?? 'unknown'})`
      : '';
    lines.push(`${where}: ${finding.reason}${finding.message ? `: ${finding.message}` : ''}${restarts}${last}`);
  }
  return lines;
}

/** The most recent Warning events, one per reason. */
function eventLines(events: readonly KubeEvent[]): string[] {
  // The kubelet's "Error: ImagePullBackOff" events only repeat the reason already shown.
  const warnings = events
    .filter((event) => event.type === 'Warning' && !/^Error: \w+$/.test(event.message ?? ''))
    .sort((a, b) => timeOf(b).localeCompare(timeOf(a)));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const event of warnings) {
    const key = `${event.reason}/${event.message}`;
    if (seen.has(key) || lines.length >= MAX_EVENTS) continue;
    seen.add(key);
    const count = (event.count ?? 1) > 1 ? ` (x${event.count})` : '';
    lines.push(`event ${event.reason}: ${event.message ?? ''}${count}`);
  }
  return lines;
}

function timeOf(event: KubeEvent): string {
  return event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp ?? '';
}

// Fatal findings first, then the rest in table order.
function worstFinding(findings: readonly Finding[]): Finding | undefined {
  return [...findings].sort((a, b) => rank(a) - rank(b))[0];
}

function rank(finding: Finding): number {
  return finding.policy.when === 'now' ? 0 : finding.policy.when === 'after' ? 1 : 2;
}

function fillStep(step: string, finding: Finding, namespace: string): string {
  return step
    .replace(/NAMESPACE/g, namespace)
    .replace(/POD/g, finding.pod)
    .replace(/CONTAINER/g, finding.container ?? '');
}
