// How each event reads. An exhaustive Record over the event kinds: a new kind does not compile
// until it can be printed.
import { describeWorkload } from '../manifests/parse.js';
import { describeApplied } from '../kubectl/apply-output.js';
import type { Outcome } from '../run/result.js';
import type { RunEvent, RunEventKind } from './events.js';

export type Tone = 'ok' | 'fail' | 'warn' | 'info' | 'undo' | 'alarm';

export interface Line {
  tone: Tone;
  text: string;
  /** Indented lines under the main one: evidence, next steps, commands. */
  details?: string[];
}

type Formatters = { [K in RunEventKind]: (event: Extract<RunEvent, { kind: K }>) => Line };

const OUTCOME_TEXT: Record<Outcome, string> = {
  succeeded: 'every changed workload rolled out',
  'rolled-back': 'rollout failed and was rolled back',
  failed: 'rollout failed and was left in place (--no-rollback)',
  'timed-out': 'rollout timed out',
  'needs-attention': 'rollout failed and was NOT fully rolled back: finish by hand with the commands above',
};

export const FORMATTERS: Formatters = {
  'manifests-read': (event) => ({
    tone: 'info',
    text:
      `read ${event.objects} object${plural(event.objects)}; ` +
      (event.workloads.length > 0
        ? `deployments in play: ${event.workloads.map(describeWorkload).join(', ')}`
        : 'no Deployments in play, so there is no rollout to watch'),
    details: event.untracked.map((object) => `${object} is applied but not tracked (kguard tracks Deployments)`),
  }),
  applied: (event) => ({
    tone: 'ok',
    text: `applied ${event.objects.length} object${plural(event.objects.length)}${event.dryRun ? ' (server dry run)' : ''} (${event.objects.map(describeApplied).join(', ')})`,
  }),
  unchanged: (event) => ({
    tone: 'info',
    text: `${describeWorkload(event.workload)}: unchanged by this apply (${event.detail}); not watched, never rolled back`,
  }),
  tracking: (event) => ({
    tone: 'info',
    text: `${describeWorkload(event.workload)}: watching the new rollout (${event.detail}${event.fromRevision !== undefined ? `; live revision before the apply: ${event.fromRevision}` : ''})`,
  }),
  progress: (event) => ({
    tone: 'info',
    text:
      `${event.phase === 'rollback' ? 'rollback of ' : ''}${describeWorkload(event.workload)}: ` +
      `${event.progress.ready}/${event.progress.desired} ${event.phase === 'rollback' ? '' : 'new '}pods ready` +
      `${event.progress.revision !== undefined ? ` (revision ${event.progress.revision})` : ''}: ${event.waitingFor}`,
  }),
  'pod-problem': (event) => {
    const { finding } = event;
    const where = finding.container ? `pod ${finding.pod} container ${finding.container}` : `pod ${finding.pod}`;
    return {
      tone: 'warn',
      text: `${event.phase === 'rollback' ? 'rollback of ' : ''}${describeWorkload(event.workload)}: ${where}: ${finding.reason}${finding.message ? `: ${finding.message}` : ''}`,
    };
  },
  'poll-error': (event) => ({
    tone: 'warn',
    text: `could not read workloads in namespace ${event.namespace}: ${event.message} kguard keeps retrying until --timeout.`,
  }),
  healthy: (event) => ({
    tone: 'ok',
    text: `${describeWorkload(event.workload)}: rolled out, ${event.progress.ready}/${event.progress.desired} new pods ready${event.progress.revision !== undefined ? ` (revision ${event.progress.revision})` : ''} in ${seconds(event.elapsedMs)}`,
  }),
  failed: (event) => ({
    tone: 'fail',
    text: `${describeWorkload(event.workload)}: ${event.diagnosis.summary} (after ${seconds(event.elapsedMs)})`,
    details: [...event.diagnosis.evidence, `next: ${event.diagnosis.nextStep}`],
  }),
  'timed-out': (event) => ({
    tone: 'fail',
    text: `${describeWorkload(event.workload)}: timed out after ${seconds(event.elapsedMs)}: ${event.diagnosis.summary}`,
    details: [...event.diagnosis.evidence, `next: ${event.diagnosis.nextStep}`],
  }),
  interrupted: (event) => ({
    tone: 'info',
    text:
      `${describeWorkload(event.workload)}: stopped watching at ${event.progress.ready}/${event.progress.desired} new pods ready ` +
      `(${event.waitingFor}) because another Deployment of this apply failed`,
  }),
  conflict: (event) => ({
    tone: 'alarm',
    text: `${describeWorkload(event.workload)}: ${event.detail}; kguard will not undo someone else's change. Inspect it:`,
    details: event.commands,
  }),
  gone: (event) => ({
    tone: 'alarm',
    text: `${describeWorkload(event.workload)}: ${event.detail} while kguard watched; there is nothing kguard may undo. Inspect it:`,
    details: event.commands,
  }),
  'rollback-started': (event) => ({
    tone: 'undo',
    text: `rolling back ${describeWorkload(event.workload)} to revision ${event.toRevision}`,
  }),
  'rolled-back': (event) => ({
    tone: 'undo',
    text: `rolled back ${describeWorkload(event.workload)} to revision ${event.toRevision}: done, ${event.progress.ready}/${event.progress.desired} pods ready in ${seconds(event.elapsedMs)}`,
  }),
  'rollback-failed': (event) => ({
    tone: 'alarm',
    text: `ROLLBACK FAILED: ${describeWorkload(event.workload)} is not back at revision ${event.toRevision}: ${event.reason}. Finish by hand:`,
    details: event.commands,
  }),
  'rollback-skipped': (event) => ({
    tone: event.reason === 'no-rollback' ? 'warn' : 'alarm',
    text: `${describeWorkload(event.workload)}: ${SKIP_TEXT[event.reason]}`,
    details: event.commands,
  }),
  finished: (event) => ({
    tone: event.exitCode === 0 ? 'ok' : event.outcome === 'needs-attention' ? 'alarm' : 'fail',
    text: `kguard: ${OUTCOME_TEXT[event.outcome]} (exit ${event.exitCode})`,
  }),
};

const SKIP_TEXT: Record<Extract<RunEvent, { kind: 'rollback-skipped' }>['reason'], string> = {
  'no-rollback': 'not rolled back because of --no-rollback. To roll back by hand:',
  'created-by-apply':
    'NOT rolled back: this apply created it, so there is no earlier revision to return to. kguard does not delete it; to remove it:',
  'no-recorded-revision':
    'NOT rolled back: it had no deployment.kubernetes.io/revision before the apply, so there is no revision to return to. Inspect its history:',
  conflict: "NOT rolled back: someone else changed it while kguard watched, and kguard does not undo other people's changes. Inspect and decide:",
  gone: 'NOT rolled back: it was deleted or replaced while kguard watched. Inspect:',
};

export function formatEvent(event: RunEvent): Line {
  return (FORMATTERS[event.kind] as (event: RunEvent) => Line)(event);
}

export function seconds(ms: number): string {
  const total = ms / 1000;
  if (total < 60) return `${total.toFixed(1)}s`;
  return `${Math.floor(total / 60)}m${Math.round(total % 60)}s`;
}

function plural(count: number): string {
  return count === 1 ? '' : 's';
}
