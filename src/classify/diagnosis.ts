// Turns a verdict, the failing pod's events and the failing containers' last lines into what a
// person reads: the cause, the evidence (grouped: ten replicas failing alike are one line), the
// logs, and a next step that still works after the restore removed the pods. Pure.
import type { KubeEvent } from '../kube.js';
import { runsPods, type ObjectRef } from '../objects/model.js';
import type { Cause, RolloutVerdict as Verdict } from '../model/verdict.js';
import { containerOf, timeOf } from './clues.js';
import { pullErrorGist } from './pull-errors.js';
import { WAITING_REASONS } from './table.js';
import { oneLine } from './text.js';
import type { ContainerLog, Diagnosis, Finding } from '../model/findings.js';

const MAX_GROUPS = 3;
const MAX_EVENTS = 2;
/** Containers whose logs are read for one verdict: one per container name, a few names at most. */
const MAX_LOGGED_CONTAINERS = 3;

export function diagnose(
  verdict: Verdict,
  events: readonly KubeEvent[],
  workload: ObjectRef,
  logs: readonly ContainerLog[] = [],
): Diagnosis | undefined {
  switch (verdict.state) {
    case 'failed':
      return causeDiagnosis(verdict.cause, verdict.findings, events, workload, logs);
    case 'timed-out': {
      const worst = worstFinding(verdict.findings);
      return {
        summary: `${runsPods(workload) ? 'new pods' : 'it'} did not become ready in time (at the deadline: ${verdict.waitingFor})`,
        evidence: [
          ...findingLines(worst ? [worst, ...verdict.findings] : verdict.findings),
          ...eventLines(events, verdict.findings),
        ],
        nextStep: worst
          ? fillStep(stepFor(worst, logs), worst, workload)
          : `raise --timeout if the rollout is just slow; its events: kubectl get events -n ${workload.namespace}`,
        pod: worst?.pod,
        logs: [...logs],
      };
    }
    default:
      return undefined;
  }
}

/**
 * Which containers' logs tell why the rollout failed: containers of the new pods that ran (a
 * crash, a failing hook or probe), the cause's first. One pod per container name: replicas print
 * alike. --previous when the container runs again after a restart (the crashed run is the previous one).
 */
export function logTargets(verdict: Verdict): Array<{ pod: string; container: string; previous: boolean }> {
  if (verdict.state !== 'failed' && verdict.state !== 'timed-out') return [];
  const cause = verdict.state === 'failed' && verdict.cause.source === 'pod' ? verdict.cause.finding : undefined;
  const targets: Array<{ pod: string; container: string; previous: boolean }> = [];
  for (const finding of cause ? [cause, ...verdict.findings] : verdict.findings) {
    if (!finding.container || !finding.ran || targets.some((target) => target.container === finding.container))
      continue;
    if (targets.length >= MAX_LOGGED_CONTAINERS) break;
    targets.push({
      pod: finding.pod,
      container: finding.container,
      previous: finding.running && finding.restartCount > 0,
    });
  }
  return targets;
}

function causeDiagnosis(
  cause: Cause,
  findings: readonly Finding[],
  events: readonly KubeEvent[],
  workload: ObjectRef,
  logs: readonly ContainerLog[],
): Diagnosis {
  if (cause.source === 'pod') {
    const finding = withEventCause(cause.finding, events);
    return {
      summary: `new pods cannot ${fillStep(finding.rule.cannot, finding, workload)}: ${finding.reason}`,
      evidence: [...findingLines([finding, ...findings]), ...eventLines(events, findings)],
      nextStep: fillStep(stepFor(finding, logs), finding, workload),
      pod: finding.pod,
      logs: [...logs],
    };
  }
  if (cause.source === 'apply')
    return {
      summary: `kubectl apply failed part-way: ${oneLine(cause.message, 300)}`,
      evidence: [],
      nextStep: 'fix what kubectl apply said (quoted in the summary) and run kguard again',
      logs: [],
    };
  if (cause.source === 'internal')
    return {
      summary: `kguard failed while watching it: ${oneLine(cause.message, 300)}`,
      evidence: [],
      nextStep: 'report this kguard bug; the apply was restored',
      logs: [],
    };
  const worst = worstFinding(findings);
  return {
    summary: `the rollout cannot ${cause.rule.cannot}: ${cause.reason}${cause.message ? ` (${oneLine(cause.message, 300)})` : ''}`,
    evidence: [...findingLines(findings), ...eventLines(events, findings)],
    nextStep: worst
      ? fillStep(stepFor(worst, logs), worst, workload)
      : cause.rule.nextStep.replace(/NAMESPACE/g, workload.namespace).replace(/NAME/g, workload.name),
    pod: worst?.pod,
    logs: [...logs],
  };
}

/**
 * A crash loop whose container was killed because its postStart hook failed: the kubelet shows
 * PostStartHookError only until the next sync, but its FailedPostStartHook events stay.
 */
function withEventCause(finding: Finding, events: readonly KubeEvent[]): Finding {
  if (finding.reason === 'ContainersNotReady') return withProbeFailure(finding, events);
  const rule = WAITING_REASONS.PostStartHookError;
  if (finding.family !== 'crash' || !rule) return finding;
  const hookFailed = events.some(
    (event) =>
      event.reason === 'FailedPostStartHook' &&
      event.involvedObject?.name === finding.pod &&
      containerOf(event.involvedObject.fieldPath) === finding.container,
  );
  return hookFailed ? { ...finding, reason: 'PostStartHookError', family: 'start', rule } : finding;
}

/**
 * A pod that runs but never became Ready (--readiness-grace): the kubelet's last Unhealthy event
 * of its readiness probe says why (prober.go: `Readiness probe failed: HTTP probe failed with statuscode: 503`).
 */
function withProbeFailure(finding: Finding, events: readonly KubeEvent[]): Finding {
  const probe = events
    .filter(
      (event) =>
        event.reason === 'Unhealthy' &&
        event.involvedObject?.name === finding.pod &&
        (event.message ?? '').startsWith('Readiness probe failed'),
    )
    .filter(
      (event) =>
        finding.container === undefined ||
        containerOf(event.involvedObject?.fieldPath) === undefined ||
        containerOf(event.involvedObject?.fieldPath) === finding.container,
    )
    .sort((left, right) => timeOf(left).localeCompare(timeOf(right)))
    .at(-1);
  return probe?.message ? { ...finding, message: oneLine(probe.message) } : finding;
}

/**
 * One line per (container, reason, message): "3 pods, container web: ErrImagePull: …". The first
 * finding given leads. Pod names matter little once the restore removed the pods; JSON has them all.
 */
export function findingLines(findings: readonly Finding[]): string[] {
  const groups = new Map<string, { first: Finding; pods: Set<string>; restarts: number }>();
  for (const finding of findings) {
    const key = `${finding.container ?? ''}/${finding.reason}/${displayMessage(finding)}`;
    const group = groups.get(key) ?? { first: finding, pods: new Set<string>(), restarts: 0 };
    group.pods.add(finding.pod);
    group.restarts = Math.max(group.restarts, finding.restartCount);
    groups.set(key, group);
  }
  const lines = [...groups.values()].slice(0, MAX_GROUPS).map(({ first, pods, restarts }) => {
    const who = pods.size > 1 ? `${pods.size} pods` : `pod ${first.pod}`;
    const where = first.container ? `, ${first.initContainer ? 'init container' : 'container'} ${first.container}` : '';
    const message = displayMessage(first);
    const restarted = restarts > 0 ? `, restarted ${restarts} time${restarts === 1 ? '' : 's'}` : '';
    const last = first.lastTermination
      ? `, last exit code ${first.lastTermination.exitCode ?? '?'} (${first.lastTermination.reason ?? 'unknown'})`
      : '';
    return `${who}${where}: ${first.reason}${message ? `: ${message}` : ''}${restarted}${last}`;
  });
  if (groups.size > MAX_GROUPS) lines.push(`and ${groups.size - MAX_GROUPS} more problems (all in --output json)`);
  return lines;
}

/** The part of a finding's message worth reading. */
function displayMessage(finding: Finding): string {
  // The pull error without containerd's wrappers; the last one known if the back-off names none.
  if (finding.family === 'image-pull' && finding.rule.judgedByPullError)
    return pullErrorGist(finding.pullError ?? finding.message);
  // `back-off 40s restarting failed container=app pod=…`: the restarts and exit code say more.
  if (finding.reason === 'CrashLoopBackOff') return '';
  return finding.message;
}

/** Warning events that add to the findings: not the kubelet's "Error: <reason>" echoes, not a message already shown. */
function eventLines(events: readonly KubeEvent[], findings: readonly Finding[]): string[] {
  const shown = findings.flatMap((finding) => [finding.message, finding.pullError ?? '']).filter((text) => text !== '');
  const warnings = events
    .filter((event) => event.type === 'Warning' && !/^Error: \w+$/.test(event.message ?? ''))
    .filter((event) => !shown.some((text) => (event.message ?? '').includes(pullErrorGist(text))))
    // The kubelet's restart back-off event repeats what the crash loop line says.
    .filter(
      (event) => !(event.reason === 'BackOff' && /^Back-off restarting failed container/.test(event.message ?? '')),
    )
    .sort((a, b) => timeOf(b).localeCompare(timeOf(a)));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const event of warnings) {
    const message = oneLine(event.message ?? '', 300);
    const key = `${event.reason}/${message}`;
    if (seen.has(key) || lines.length >= MAX_EVENTS) continue;
    seen.add(key);
    const count = event.count ?? event.series?.count ?? 1;
    lines.push(`event ${event.reason}: ${message}${count > 1 ? ` (x${count})` : ''}`);
  }
  return lines;
}

// Fatal findings first, then the rest in table order.
function worstFinding(findings: readonly Finding[]): Finding | undefined {
  return [...findings].sort((a, b) => rank(a) - rank(b))[0];
}

function rank(finding: Finding): number {
  return finding.policy.when === 'now' ? 0 : finding.policy.when === 'after' ? 1 : 2;
}

/** The rule's next step, unless the logs it points at came back empty. */
function stepFor(finding: Finding, logs: readonly ContainerLog[]): string {
  const printed = logs.some((log) => log.container === finding.container && log.lines.length > 0);
  if (finding.family === 'crash' && !printed)
    return finding.rule.nextStep.replace(
      'its last lines, read before any restore, say why',
      'it printed nothing kguard could read',
    );
  return finding.rule.nextStep;
}

function fillStep(step: string, finding: Finding, workload: ObjectRef): string {
  return step
    .replace(/IMAGE/g, finding.image ? `"${finding.image}"` : 'the image')
    .replace(/CONTAINER/g, finding.container ?? 'the container')
    .replace(/REASON/g, finding.reason)
    .replace(/NAMESPACE/g, workload.namespace)
    .replace(/POD/g, finding.pod);
}
