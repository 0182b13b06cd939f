// How each event reads. An exhaustive Record over the event kinds: a new kind does not compile
// until it can be printed.
import { ANALYSIS_FORMATTERS } from './format-analysis.js';
import { isChangeKind } from '../../objects/compare.js';
import { findingLines } from '../../classify/diagnosis.js';
import type { Diagnosis } from '../../model/findings.js';
import { describeApplied } from '../../kubectl/output/apply-output.js';
import { shellQuote } from '../../kubectl/output/parse.js';
import type { Outcome } from '../../model/result.js';
import type { ChangedObject, RunEvent, RunEventKind, Watching } from '../../model/events.js';
import { summarizePaths } from '../../objects/compare.js';
import { describeObject, runsPods, type ObjectRef } from '../../objects/model.js';
import { PHASE_FORMATTERS } from './format-phases.js';
import { RECOVERY_FORMATTERS } from './format-recovery.js';
import { VERIFY_FORMATTERS } from './format-verify.js';
import { containerLogLines, firstEight, plural, seconds, type Line } from './line.js';

export { seconds, type Line, type Tone } from './line.js';

type Formatters = { [K in RunEventKind]: (event: Extract<RunEvent, { kind: K }>) => Line };

const OUTCOME_TEXT: Record<Outcome, string> = {
  interrupted: 'cancelled: what the apply changed was restored to its state before the apply (not waited for health)',
  succeeded: 'every changed object was applied and every changed workload rolled out',
  unchanged: 'the apply changed nothing',
  previewed: 'dry run: nothing was changed',
  'rolled-back': 'the apply failed and the cluster was restored to its state before the apply',
  failed: 'the apply failed and what it changed was left in place (--rollback none)',
  'timed-out': 'a changed workload was not healthy within --timeout; it was left as applied',
  'needs-attention': 'the apply was neither verified healthy nor fully undone: finish by hand with the commands above',
};

function finalText(event: Extract<RunEvent, { kind: 'finished' }>): string {
  if (event.changedNothing && (event.outcome === 'failed' || event.outcome === 'timed-out'))
    return `the apply changed nothing, but a rollout left unfinished before it ${event.outcome === 'failed' ? 'failed' : 'was not healthy within --timeout'}; nothing of this run is there to restore: fix the manifest and apply it, or undo that rollout by hand (kubectl rollout undo)`;
  if (event.outcome === 'timed-out' && event.restored) return TIMED_OUT_RESTORED;
  if (event.outcome === 'interrupted' && !event.restored)
    return 'cancelled after the apply; nothing was restored (see above)';
  if (event.outcome === 'previewed' && event.exitCode !== 0)
    return 'dry run: nothing was changed; the apply would change what the diff above shows';
  return OUTCOME_TEXT[event.outcome];
}

/** Why a watch stopped before its verdict, and what kguard does next. */
function stoppedBecause(event: Extract<RunEvent, { kind: 'interrupted' }>): string {
  if (event.cause === 'another-failed') return ' because another workload of this apply failed';
  const next = event.restoring
    ? 'restoring what this apply changed'
    : 'what this apply changed stays as applied (--rollback none)';
  return `: ${event.reason ?? 'the run was cancelled'}; ${next}`;
}

const TIMED_OUT_RESTORED =
  'a changed workload was not healthy within --timeout, and the cluster was restored to its state before the apply';

export const FORMATTERS: Formatters = {
  ...VERIFY_FORMATTERS,
  ...ANALYSIS_FORMATTERS,
  understood: (event) => ({
    tone: 'info',
    text: `${event.applyPhase ? `phase ${event.applyPhase}: ` : ''}read ${event.objects.length} object${plural(event.objects.length)} (as kubectl reads them): ${listObjects(event.objects)}`,
  }),
  ...PHASE_FORMATTERS,
  ...RECOVERY_FORMATTERS,
  'dry-run-waived': (event) => ({
    tone: 'info',
    text: `namespace/${event.namespace} is created by this apply, so the dry run could not check what goes in it: ${listObjects(event.objects)}`,
  }),
  applied: (event) => ({
    tone: 'ok',
    text: `applied ${event.objects.length} object${plural(event.objects.length)}${event.dryRun ? ' (server dry run)' : ''} (${firstEight(event.objects, describeApplied)})`,
  }),
  'nothing-to-change': (event) => ({
    tone: 'ok',
    text: `nothing to change: the API server's dry run leaves ${event.objects.length === 1 ? 'the object' : `all ${event.objects.length} objects`} as ${event.objects.length === 1 ? 'it is' : 'they are'}; nothing was applied`,
  }),
  'apply-failed': (event) => ({
    tone: 'fail',
    text: `kubectl apply failed part-way: ${event.message}`,
    details:
      event.applied.length > 0
        ? [
            `kubectl had already applied: ${event.applied.map(describeApplied).join(', ')}; kguard restores what changed`,
          ]
        : [],
  }),
  changes: (event) => {
    const changed = event.objects.filter((object) => isChangeKind(object.change));
    return {
      tone: 'info',
      text:
        changed.length === 0
          ? 'the apply changed nothing: there is nothing to watch'
          : `the apply changed ${changed.length} of ${event.objects.length} object${plural(event.objects.length)}`,
      details: changed.map(describeChange),
    };
  },
  preview: (event) => ({
    tone: 'info',
    text:
      event.strategy === 'client'
        ? 'dry run (client): nothing was changed. kubectl\'s client dry run calls every existing object "configured", changed or not; --dry-run=server names the fields. The apply would:'
        : `dry run (${event.strategy}): nothing was changed. The apply would:`,
    details: event.objects.map(describeChange),
  }),
  diff: (event) => ({
    tone: 'info',
    text: `${describeObject(event.object)}: kubectl diff (live object → after the apply):`,
    details: event.lines,
  }),
  tracking: (event) => ({
    tone: 'info',
    text: `${describeObject(event.workload)}: watching the new rollout (${event.detail}${event.fromRevision !== undefined ? `; live revision before the apply: ${event.fromRevision}` : ''})`,
  }),
  progress: (event) => ({
    tone: 'info',
    text:
      `${WATCHING_PREFIX[event.phase]}${describeObject(event.workload)}: ` +
      `${event.progress.summary ?? `${event.progress.ready}/${event.progress.desired} ${event.phase === 'rollback' ? '' : 'new '}pods ready`}` +
      `${event.progress.revision !== undefined ? ` (revision ${event.progress.revision})` : ''}: ${event.waitingFor}`,
  }),
  'pod-problem': (event) => ({
    tone: 'warn',
    text: `${WATCHING_PREFIX[event.phase]}${describeObject(event.workload)}: ${findingLines([event.finding])[0] ?? event.finding.reason}`,
  }),
  note: (event) => ({
    tone: 'info',
    text: `${WATCHING_PREFIX[event.phase]}${describeObject(event.workload)}: ${event.text}`,
  }),
  'watch-fallback': (event) => ({
    tone: 'warn',
    text: `cannot watch namespace ${event.namespace || '(cluster-scoped objects)'} (${event.reason}); polling it every ${seconds(event.pollIntervalMs)} instead`,
  }),
  healthy: (event) => ({
    tone: 'ok',
    text: event.detail
      ? `${describeObject(event.workload)}: ${event.detail} (after ${seconds(event.elapsedMs)})`
      : `${describeObject(event.workload)}: rolled out, ${event.progress.summary ?? `${event.progress.ready}/${event.progress.desired} new pods ready`}${event.progress.revision !== undefined ? ` (revision ${event.progress.revision})` : ''} in ${seconds(event.elapsedMs)}`,
  }),
  failed: (event) => ({
    tone: 'fail',
    text: `${describeObject(event.workload)}: ${event.diagnosis.summary} (after ${seconds(event.elapsedMs)})`,
    details: diagnosisDetails(event.diagnosis),
  }),
  'timed-out': (event) => ({
    tone: 'fail',
    text: `${describeObject(event.workload)}: timed out after ${seconds(event.elapsedMs)}: ${event.diagnosis.summary}`,
    details: diagnosisDetails(event.diagnosis),
  }),
  interrupted: (event) => ({
    tone: 'info',
    text:
      `${describeObject(event.workload)}: stopped watching at ${event.progress.summary ?? `${event.progress.ready}/${event.progress.desired} new pods ready`} ` +
      `(${event.waitingFor})${stoppedBecause(event)}`,
  }),
  conflict: (event) => ({
    tone: 'alarm',
    text: `${describeObject(event.workload)}: ${event.detail}; kguard will not undo someone else's change${event.commands.length > 0 ? '. Inspect it:' : ''}`,
    details: event.commands,
  }),
  gone: (event) => ({
    tone: 'alarm',
    text: `${describeObject(event.workload)}: ${event.detail}; there is nothing kguard may undo${event.commands.length > 0 ? '. Inspect it:' : ''}`,
    details: event.commands,
  }),
  'image-exists': (event) => ({
    tone: 'ok',
    text: `${describeObject(event.object)}, container ${event.container}: image "${event.image}" exists (${event.detail})`,
  }),
  'image-missing': (event) => ({
    tone: 'alarm',
    text: `${describeObject(event.object)}, container ${event.container}: image "${event.image}" does not exist (${event.detail}); nothing is applied`,
  }),
  'image-not-checked': (event) => ({
    tone: 'warn',
    text: `${describeObject(event.object)}, container ${event.container}: image "${event.image}" not checked: ${event.detail}; going on (the nodes may pull what this machine cannot see)`,
  }),
  'restore-limit': (event) => ({
    tone: event.how === 'delete-and-create' ? 'info' : 'warn',
    text: `${describeObject(event.object)}: ${RESTORE_LIMIT_TEXT[event.how]}: ${event.detail}`,
  }),
  'kubectl-warnings': (event) => ({
    tone: 'warn',
    text: `the API server warns about this apply (kubectl apply would print it too):`,
    details: event.lines,
  }),
  target: (event) => ({
    tone: 'info',
    text: `target: context ${event.context} (cluster ${event.cluster}${event.user ? `, user ${event.user}` : ''}, namespace ${event.namespace}); every kubectl call of this run goes there`,
  }),
  'internal-error': (event) => ({
    tone: 'alarm',
    text: `kguard failed after the apply (${event.message}): every object the apply changed counts as failed and is restored. Please report this kguard bug`,
  }),
  'not-watched': (event) => ({
    tone: 'info',
    text: `${describeObject(event.workload)}: applied, not watched: ${event.detail}`,
  }),
  restoring: (event) => ({
    tone: 'undo',
    text: `restoring ${event.objects.length} object${plural(event.objects.length)} to their copies from before the apply: ${listObjects(event.objects)}`,
  }),
  restored: (event) => ({
    tone: 'undo',
    text: `${describeObject(event.object)}: ${RESTORED_TEXT[event.action]}${event.differences.length > 0 ? ` (differs from the copy in ${event.differences.join(', ')})` : ''}`,
    details: event.notes,
  }),
  'restore-kept': (event) => ({
    tone: event.reason === 'no-rollback' || event.reason === 'not-failed' ? 'warn' : 'alarm',
    text: `${describeObject(event.object)}: ${KEPT_TEXT[event.reason]}${event.detail ? ` (${event.detail})` : ''}`,
    details: event.commands,
  }),
  'restore-failed': (event) => ({
    tone: 'alarm',
    text:
      `ROLLBACK FAILED: ${describeObject(event.object)} is not back as it was before the apply: ${event.reason}.` +
      `${event.copyFile ? ` Its pre-apply copy is in ${event.copyFile} (readable only by you).` : ''} Finish by hand:`,
    details: event.commands,
  }),
  'rolled-back': (event) => ({
    tone: 'undo',
    text: `${describeObject(event.workload)}: restored and healthy again, ${event.progress.summary ?? `${event.progress.ready}/${event.progress.desired} pods ready`} in ${seconds(event.elapsedMs)}`,
  }),
  'restored-failing-before': (event) => ({
    tone: 'undo',
    text: `${describeObject(event.workload)}: restored to its pre-apply copy; it was already failing before the apply (${event.before}) and still is (${event.now}). The apply did not cause it: fix it separately. Look at it:`,
    details: [event.command],
  }),
  'rollback-unhealthy': (event) => ({
    tone: 'alarm',
    text: `ROLLBACK FAILED: ${describeObject(event.workload)} was restored, but ${runsPods(event.workload) ? 'its pods' : 'it'} did not become healthy: ${event.reason}. Look at it:`,
    details: event.commands,
  }),
  journal: (event) => ({
    tone: 'info',
    text: `run ${event.runId}: pre-apply copies journalled in ${journalSecrets(event)} until the run ends`,
  }),
  'undo-preview': (event) => ({
    tone: event.action === 'keep' ? 'alarm' : 'info',
    text: `${describeObject(event.object)}: ${event.detail}`,
    details: event.lines,
  }),
  'undo-finished': (event) => ({
    tone: event.needsPerson > 0 ? 'alarm' : 'ok',
    text: event.dryRun
      ? `kguard undo ${event.runId} --dry-run: ${event.restored} object(s) would be put back, ${event.untouched} already as before the run${event.needsPerson > 0 ? `, ${event.needsPerson} would be left to a person` : ''}; nothing was changed (exit ${event.exitCode})`
      : event.needsPerson > 0
        ? `kguard undo ${event.runId}: ${event.needsPerson} object(s) need a person (commands above); ${event.restored} put back (exit ${event.exitCode})`
        : `kguard undo ${event.runId}: ${event.restored} object(s) put back as they were before the run and healthy, ${event.untouched} already so (exit ${event.exitCode})`,
  }),
  'history-kept': (event) => ({
    tone: 'info',
    text: `run ${event.runId} kept in kguard's history (secret/${event.runId}-history in namespace ${event.namespaces.join(', ')}; the last ${event.keep} runs of each are kept): kguard undo ${event.runId} puts back the state before it`,
  }),
  'journal-kept': (event) => ({
    tone: 'alarm',
    text: `run ${event.runId} is not finished: its journal stays in ${journalNamespaces(event)}. When you have looked, restore what is left with:`,
    details: [event.command],
  }),
  'journal-warning': (event) =>
    event.commands
      ? { tone: 'warn', text: `${event.message}:`, details: event.commands }
      : {
          tone: 'warn',
          text: `${event.message}; the run goes on (a kill now would leave kguard rollback less to go on)`,
        },
  'fleet-cluster': (event) =>
    event.step === 'apply'
      ? {
          tone: 'info',
          text: `context ${event.context} (wave ${event.wave}): applying (fleet run ${event.fleetRunId})`,
        }
      : {
          tone: 'undo',
          text: `context ${event.context} (wave ${event.wave}): restoring its healthy run, because another cluster of the fleet failed`,
        },
  'rollback-wait': (event) => ({
    tone: 'info',
    text: `run ${event.runId} died during its apply: waiting ${Math.ceil(event.waitMs / 1000)}s (its request timeout) for a request it left in flight to end, then restoring`,
  }),
  'rollback-claimed': (event) => ({
    tone: 'info',
    text: `run ${event.runId}: another kguard, ${event.by}, is restoring it from its journal (a retry of its apply finishes a dead run first): waiting for it, then restoring what it leaves`,
  }),
  'stop-requested': (event) => ({
    tone: 'undo',
    text: `run ${event.runId}: ${event.by} asked it to stop (kguard rollback, ${event.at}): stopping; restoring what this apply changed (exit 130, as on SIGTERM)`,
  }),
  'stopping-run': (event) => ({
    tone: event.step === 'unanswered' ? 'warn' : 'info',
    text: `run ${event.runId}: ${event.detail}`,
  }),
  'rollback-finished': (event) => ({
    tone: event.needsPerson > 0 ? 'alarm' : 'ok',
    text:
      event.needsPerson > 0
        ? `kguard rollback ${event.runId}: ${event.needsPerson} object(s) need a person (commands above); ${event.restored} restored; the journal stays (exit ${event.exitCode})`
        : `kguard rollback ${event.runId}: ${event.restored} object(s) restored, ${event.untouched} already as before the run; journal removed (exit ${event.exitCode})`,
  }),
  'lock-wait': (event) => ({
    tone: 'warn',
    text: `${describeObject(event.object)}: another kguard run holds it (${event.holder}); waiting for it to finish (--lock-timeout)`,
  }),
  kubectl: (event) => ({
    tone: 'info',
    text: `kubectl ${event.args.map(shellQuote).join(' ')} (${event.timedOut ? 'killed at its deadline' : `exit ${event.exitCode}`}${event.stream ? ', watch' : ''}${event.proxied ? ', through kubectl proxy' : ''}${event.early ? ', started before the run; waited' : ','} ${seconds(event.durationMs)})`,
  }),
  finished: (event) => ({
    // A --diff preview with differences exits 1 as kubectl diff does, but nothing failed.
    tone:
      event.exitCode === 0 || event.outcome === 'previewed'
        ? 'ok'
        : event.outcome === 'needs-attention'
          ? 'alarm'
          : 'fail',
    // The exit code is said once: a preview's 1 says why it is not 0 (#45: it was said twice).
    text: `kguard: ${finalText(event)} (exit ${event.exitCode}${event.outcome === 'previewed' && event.exitCode !== 0 ? ', as kubectl diff when there are differences' : ''})`,
  }),
};

const RESTORE_LIMIT_TEXT: Record<Extract<RunEvent, { kind: 'restore-limit' }>['how'], string> = {
  'cannot-restore': 'NOT restorable if this apply fails: a restore cannot put it back',
  'finished-job': 'NOT restorable if this apply fails: a restore will not create it again',
  'delete-and-create': 'if this apply fails, a restore puts it back by deleting it and creating its pre-apply copy',
};

/** Progress of the restore and of a verify Job is told apart from the rollout's. */
const WATCHING_PREFIX: Record<Watching, string> = { rollout: '', rollback: 'rollback of ', verify: 'verify: ' };

const RESTORED_TEXT: Record<Extract<RunEvent, { kind: 'restored' }>['action'], string> = {
  restored: 'put back as it was before the apply',
  deleted: 'deleted (this apply created it)',
  recreated: 'created again (this apply deleted it)',
  replaced: 'put back by deleting it and creating its pre-apply copy again (a new uid)',
};

const KEPT_TEXT: Record<Extract<RunEvent, { kind: 'restore-kept' }>['reason'], string> = {
  'no-rollback': 'left as applied because of --rollback none. To restore it by hand:',
  'not-failed': 'left as applied (--rollback failed restores only what failed)',
  'keep-created': 'NOT deleted (--keep-created): this apply created it. To remove it:',
  'protected-kind':
    'NOT deleted: this apply created it, and kguard never deletes a Namespace, CRD or PersistentVolumeClaim. To remove it:',
  'controller-owned': 'NOT deleted: a controller owns it. Inspect it:',
  conflict: 'NOT restored: someone else changed it after the apply, and their change wins. Inspect and decide:',
  gone: 'NOT restored: it was deleted or replaced by someone else after the apply. Inspect:',
  'cannot-restore': 'NOT restored: no write the API server takes puts it back',
  'finished-job': 'NOT created again: a Job that had finished is never run a second time by a restore',
  inconclusive:
    'left as applied: the analysis could not judge the release (--no-journal keeps no run for kguard rollback). If it should not stay, restore it by hand:',
};

const CHANGE_TEXT: Record<ChangedObject['change'], string> = {
  created: 'created',
  configured: 'changed',
  unchanged: 'unchanged',
  recreated: 'deleted and created again',
  deleted: 'deleted',
  absent: 'absent',
};

/** Evidence, then the last lines the failing containers printed (the pods may be gone by now), then the next step. */
function diagnosisDetails(diagnosis: Diagnosis): string[] {
  return [...diagnosis.evidence, ...containerLogLines(diagnosis.logs ?? []), `next: ${diagnosis.nextStep}`];
}

/** kubectl's bookkeeping of a client-side apply: it changes with every other field, so it says nothing. */
const LAST_APPLIED = 'metadata.annotations.kubectl.kubernetes.io/last-applied-configuration';

function describeChange(object: ChangedObject): string {
  const meaningful = object.changedFields.filter((path) => path !== LAST_APPLIED);
  const shown = meaningful.length > 0 ? meaningful : object.changedFields;
  const fields = shown.length > 0 ? `: ${summarizePaths(shown)}` : '';
  return `${describeObject(object.ref)}: ${CHANGE_TEXT[object.change]}${fields}`;
}

/** "secret/RUN-journal (namespace shop)", or, for a journal in several Secrets, "14 Secrets RUN-journal… in namespaces shop (13), kube-system (1)". */
function journalSecrets(event: { runId: string; namespace: string; pieces?: Record<string, number> }): string {
  const pieces = Object.entries(event.pieces ?? { [event.namespace]: 1 });
  const total = pieces.reduce((sum, [, count]) => sum + count, 0);
  if (total <= 1) return `secret/${event.runId}-journal (namespace ${event.namespace})`;
  return `${total} Secrets ${event.runId}-journal… in ${journalNamespaces(event)}`;
}

function journalNamespaces(event: { namespace: string; pieces?: Record<string, number> }): string {
  const pieces = Object.entries(event.pieces ?? { [event.namespace]: 1 });
  if (pieces.length <= 1 && (pieces[0]?.[1] ?? 1) <= 1) return `namespace ${event.namespace}`;
  return `namespace${pieces.length > 1 ? 's' : ''} ${pieces.map(([namespace, count]) => `${namespace} (${count})`).join(', ')}`;
}

function listObjects(objects: readonly ObjectRef[]): string {
  return firstEight(objects, describeObject);
}

export function formatEvent(event: RunEvent): Line {
  return (FORMATTERS[event.kind] as (event: RunEvent) => Line)(event);
}
