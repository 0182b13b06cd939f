// What to put back after a failed apply, decided from the pre-apply copies alone. Pure.
// The pre-apply copy of each object is the truth a restore returns to: an object the apply changed
// is written back whole (every field, annotations and managedFields included); an object it
// created is deleted by uid; an object it deleted (--prune) is created again from its copy. What
// the API server refuses to take back is its kind's to say (kinds/refusals.ts): an immutable
// ConfigMap goes back by delete and create, a claim's grown storage request and a finished Job
// that was deleted cannot come back (kept, and said).
import { isChangeKind } from '../objects/compare.js';
import type { ObjectChange } from '../model/result.js';
import { rowFor } from '../kinds/table.js';
import { isControllerOwned, objectKey, runsPods, type KubeObject, type ObjectRef } from '../objects/model.js';
import { createFor, manualCopy, type RestoreStep } from './steps.js';
import type { KeepReason, RollbackMode } from '../model/result.js';
import type { VerdictState } from '../model/verdict.js';

export interface PlannedObject {
  ref: ObjectRef;
  change: ObjectChange;
  verdict?: VerdictState;
}

export type { RestoreStep };

/**
 * Never deleted, even when this run created them: deleting a Namespace deletes everything in
 * it, a CRD every custom resource of its kind, a PersistentVolumeClaim possibly its data.
 */
const NEVER_DELETED = new Set([
  '/Namespace',
  'apiextensions.k8s.io/CustomResourceDefinition',
  '/PersistentVolumeClaim',
]);

/** Kept because no restore can put them back: `kguard rollback` would only keep them again. */
export function beyondRollback(reason: KeepReason): boolean {
  return reason === 'cannot-restore' || reason === 'finished-job';
}

export function needsRestore(verdict: VerdictState | undefined): boolean {
  return verdict === 'failed' || verdict === 'timed-out';
}

/**
 * The apply is one unit: when any tracked object failed or timed out, mode "all" restores every
 * object the apply changed, "failed" only the failing ones, "none" nothing. Objects someone else
 * changed since the apply are never written: they are kept and reported.
 * Order, in rounds (restoreRounds): objects put back and created again first (definitions,
 * then configuration, then the workloads that read it, in apply order), deletions last, newest
 * first.
 */
export function planRestore(
  objects: readonly PlannedObject[],
  mode: RollbackMode,
  options: {
    keepCreated: boolean;
    /** The run was cancelled: the apply is restored whatever its verdicts. */
    cancelled?: boolean;
    /** A check or the bake failed (--verify, --verify-job, --bake): the apply failed as a unit, whatever its verdicts. */
    failedAsUnit?: boolean;
    /** A whole run is restored, and there are no verdicts to read (planWholeRestore). */
    wholeRun?: boolean;
    /**
     * --analysis could not judge the release and no journal keeps the run: nothing is written, and
     * every change is kept with the commands that undo it, as under --rollback none.
     */
    inconclusive?: boolean;
  },
): RestoreStep[] {
  const asUnit =
    options.cancelled === true ||
    options.failedAsUnit === true ||
    options.wholeRun === true ||
    options.inconclusive === true;
  // No workload failed by itself: --rollback failed has nothing narrower than the whole apply to restore.
  if (asUnit && mode === 'failed') mode = 'all';
  if (!asUnit && !objects.some((object) => needsRestore(object.verdict))) {
    // Nothing to restore, but someone else's change still needs a person: say what and how.
    return objects.flatMap((object): RestoreStep[] =>
      object.verdict === 'conflict' || object.verdict === 'gone'
        ? [{ ref: object.ref, action: 'keep', reason: object.verdict, ...copies(object.change) }]
        : [],
    );
  }
  const writes: RestoreStep[] = [];
  const deletes: RestoreStep[] = [];
  for (const object of objects) {
    const { ref, change } = object;
    if (!isChangeKind(change.change)) continue;
    if (object.verdict === 'conflict' || object.verdict === 'gone') {
      writes.push({ ref, action: 'keep', reason: object.verdict, ...copies(change) });
      continue;
    }
    if (mode === 'none' || options.inconclusive) {
      writes.push({
        ref,
        action: 'keep',
        reason: options.inconclusive ? 'inconclusive' : 'no-rollback',
        ...copies(change),
      });
      continue;
    }
    if (mode === 'failed' && !needsRestore(object.verdict)) {
      writes.push({ ref, action: 'keep', reason: 'not-failed', ...copies(change) });
      continue;
    }
    switch (change.change) {
      case 'configured':
        writes.push(putBackStep(ref, change.before, change.after));
        break;
      case 'deleted':
        writes.push(recreateStep(ref, change.before));
        break;
      case 'recreated': {
        // The apply deleted it and created a new one (apply --force): that one goes, by its uid, and the copy comes back in its place.
        const removal = deleteOrKeep(ref, change.after, options);
        if (removal.action === 'keep') {
          writes.push(removal);
          break;
        }
        const created = createFor(ref, change.before);
        writes.push({
          ref,
          action: 'replace',
          before: change.before,
          applied: change.after,
          copy: created.copy,
          why: created.why ?? 'the apply replaced it with a new object',
        });
        break;
      }
      case 'created':
        deletes.push(deleteOrKeep(ref, change.after, options));
        break;
    }
  }
  return inRoundOrder([...writes, ...deletes.reverse()]);
}

/**
 * Everything a run changed goes back, whatever its objects' verdicts (it has none): `kguard
 * rollback` and `kguard undo` restore a whole run from its journal or history record, and the
 * apply asks before it starts what such a restore would need (run/apply/permissions.ts).
 */
export function planWholeRestore(
  objects: ReadonlyArray<Pick<PlannedObject, 'ref' | 'change'>>,
  options: { keepCreated: boolean },
): RestoreStep[] {
  return planRestore(objects, 'all', { keepCreated: options.keepCreated, wholeRun: true });
}

/** A plain write, unless the kind's row says the API server refuses it (kinds/refusals.ts). */
function putBackStep(ref: ObjectRef, before: KubeObject, applied: KubeObject): RestoreStep {
  const rule = rowFor(ref).putBack?.(before, applied);
  if (rule?.how === 'impossible')
    return { ref, action: 'keep', reason: 'cannot-restore', before, applied, detail: rule.why };
  if (rule?.how === 'delete-and-create') {
    // kguard never deletes what a controller made, not even to create its copy in its place.
    if (isControllerOwned(applied))
      return {
        ref,
        action: 'keep',
        reason: 'cannot-restore',
        before,
        applied,
        detail: `${rule.why}; a controller owns it, and kguard does not delete it`,
      };
    return { ref, action: 'replace', before, applied, copy: manualCopy(before, true), why: rule.why };
  }
  return { ref, action: 'put-back', before, applied };
}

function recreateStep(ref: ObjectRef, before: KubeObject): RestoreStep {
  const created = createFor(ref, before);
  if (!created.copy) return { ref, action: 'keep', reason: 'finished-job', before, detail: created.why };
  return { ref, action: 'recreate', before, copy: created.copy };
}

function deleteOrKeep(ref: ObjectRef, applied: KubeObject, options: { keepCreated: boolean }): RestoreStep {
  if (NEVER_DELETED.has(`${groupKind(ref)}`)) return { ref, action: 'keep', reason: 'protected-kind', applied };
  if (isControllerOwned(applied)) return { ref, action: 'keep', reason: 'controller-owned', applied };
  if (options.keepCreated) return { ref, action: 'keep', reason: 'keep-created', applied };
  return { ref, action: 'delete', applied };
}

function groupKind(ref: ObjectRef): string {
  const slash = ref.apiVersion.indexOf('/');
  return `${slash === -1 ? '' : ref.apiVersion.slice(0, slash)}/${ref.kind}`;
}

function copies(change: ObjectChange): { before?: KubeObject; applied?: KubeObject } {
  return {
    before: 'before' in change ? change.before : undefined,
    applied: 'after' in change ? change.after : undefined,
  };
}

/**
 * The rounds of a restore, in order. The objects of one round do not depend on each other and
 * are restored at once; a round starts when the one before it has finished:
 * - definitions: CRDs and Namespaces, which other objects need to exist at all;
 * - configuration: anything without pods (ConfigMaps, Secrets, Services, RBAC, custom
 *   resources...), so restored pods read restored configuration;
 * - workloads: kinds that run pods (objects/model.ts runsPods);
 * - then the deletions of what the apply created: workloads before the configuration they read.
 * A step that keeps an object writes nothing; it sits where its object's write or delete would.
 */
export const RESTORE_ROUNDS = [
  'definitions',
  'configuration',
  'workloads',
  'delete workloads',
  'delete the rest',
] as const;

export type RestoreRound = (typeof RESTORE_ROUNDS)[number];

const DEFINITIONS = new Set(['/Namespace', 'apiextensions.k8s.io/CustomResourceDefinition']);

/** Keep reasons of an object the apply created: it is kept where its delete would be. */
const CREATED_AND_KEPT = new Set<KeepReason>(['protected-kind', 'controller-owned', 'keep-created']);

export function roundOf(step: RestoreStep): RestoreRound {
  const removing = step.action === 'delete' || (step.action === 'keep' && CREATED_AND_KEPT.has(step.reason));
  if (removing) return runsPods(step.ref) ? 'delete workloads' : 'delete the rest';
  if (DEFINITIONS.has(groupKind(step.ref))) return 'definitions';
  return runsPods(step.ref) ? 'workloads' : 'configuration';
}

/**
 * The steps grouped by round, rounds in order, each in plan order; empty rounds left out. In an
 * apply made in phases (CRDs, pre, main, post: docs/phases.md), `stages` gives each object's
 * phase position: the last phase applied is restored first, each one in the rounds above.
 */
export function restoreRounds(
  steps: readonly RestoreStep[],
  stages: ReadonlyMap<string, number> = new Map(),
): RestoreStep[][] {
  const stageOf = (step: RestoreStep) => stages.get(objectKey(step.ref)) ?? 0;
  const inReverse = [...new Set(steps.map(stageOf))].sort((left, right) => right - left);
  return inReverse.flatMap((stage) =>
    RESTORE_ROUNDS.map((round) => steps.filter((step) => stageOf(step) === stage && roundOf(step) === round)).filter(
      (group) => group.length > 0,
    ),
  );
}

function inRoundOrder(steps: readonly RestoreStep[]): RestoreStep[] {
  return restoreRounds(steps).flat();
}
