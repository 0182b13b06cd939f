// What to put back after a failed apply, decided from the pre-apply copies alone. Pure.
// The pre-apply copy of each object is the truth a restore returns to: an object the apply changed
// is written back whole (every field, annotations and managedFields included); an object it
// created is deleted by uid; an object it deleted (--prune) is created again from its copy.
import { runsPods } from '../kinds/table.js';
import { isChangeKind } from '../objects/compare.js';
import type { ObjectChange } from '../model/result.js';
import { describeObject, isControllerOwned, kubectlName, namespaceArgs, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { KeepReason, RollbackMode } from '../model/result.js';
import type { VerdictState } from '../model/verdict.js';

export interface PlannedObject {
  ref: ObjectRef;
  change: ObjectChange;
  verdict?: VerdictState;
}

export type RestoreStep =
  | { ref: ObjectRef; action: 'put-back'; before: KubeObject; applied: KubeObject }
  | { ref: ObjectRef; action: 'delete'; applied: KubeObject }
  | { ref: ObjectRef; action: 'recreate'; before: KubeObject }
  | { ref: ObjectRef; action: 'keep'; reason: KeepReason; before?: KubeObject; applied?: KubeObject };

/**
 * Never deleted, even when this run created them: deleting a Namespace deletes everything in
 * it, a CRD every custom resource of its kind, a PersistentVolumeClaim possibly its data.
 */
const NEVER_DELETED = new Set(['/Namespace', 'apiextensions.k8s.io/CustomResourceDefinition', '/PersistentVolumeClaim']);

export function needsRestore(verdict: VerdictState | undefined): boolean {
  return verdict === 'failed' || verdict === 'timed-out';
}

/**
 * The apply is one unit: when any tracked object failed or timed out, mode "all" restores every
 * object the apply changed, "failed" only the failing ones, "none" nothing. Objects someone else
 * changed since the apply are never written: they are kept and reported.
 * Order, in phases (restorePhases): objects put back and created again first (definitions,
 * then configuration, then the workloads that read it, in apply order), deletions last, newest
 * first.
 */
export function planRestore(
  objects: readonly PlannedObject[],
  mode: RollbackMode,
  options: { keepCreated: boolean; /** The run was cancelled: the apply is undone whatever its verdicts. */ cancelled?: boolean },
): RestoreStep[] {
  if (options.cancelled && mode === 'failed') mode = 'all';
  if (!options.cancelled && !objects.some((object) => needsRestore(object.verdict))) {
    // Nothing to undo, but someone else's change still needs a person: say what and how.
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
    if (mode === 'none') {
      writes.push({ ref, action: 'keep', reason: 'no-rollback', ...copies(change) });
      continue;
    }
    if (mode === 'failed' && !needsRestore(object.verdict)) {
      writes.push({ ref, action: 'keep', reason: 'not-failed', ...copies(change) });
      continue;
    }
    switch (change.change) {
      case 'configured':
        writes.push({ ref, action: 'put-back', before: change.before, applied: change.after });
        break;
      case 'deleted':
        writes.push({ ref, action: 'recreate', before: change.before });
        break;
      case 'recreated':
        deletes.push(deleteOrKeep(ref, change.after, options));
        writes.push({ ref, action: 'recreate', before: change.before });
        break;
      case 'created':
        deletes.push(deleteOrKeep(ref, change.after, options));
        break;
    }
  }
  return inPhaseOrder([...writes, ...deletes.reverse()]);
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
 * The phases of a restore, in order. The objects of one phase do not depend on each other and
 * are restored at once; a phase starts when the one before it has finished:
 * - definitions: CRDs and Namespaces, which other objects need to exist at all;
 * - configuration: anything without pods (ConfigMaps, Secrets, Services, RBAC, custom
 *   resources...), so restored pods read restored configuration;
 * - workloads: kinds that run pods (kinds/table.ts runsPods);
 * - then the deletions of what the apply created: workloads before the configuration they read.
 * A step that keeps an object writes nothing; it sits where its object's write or delete would.
 */
export const RESTORE_PHASES = ['definitions', 'configuration', 'workloads', 'delete workloads', 'delete the rest'] as const;

export type RestorePhase = (typeof RESTORE_PHASES)[number];

const DEFINITIONS = new Set(['/Namespace', 'apiextensions.k8s.io/CustomResourceDefinition']);

/** Keep reasons of an object the apply created: it is kept where its delete would be. */
const CREATED_AND_KEPT = new Set<KeepReason>(['protected-kind', 'controller-owned', 'keep-created']);

export function phaseOf(step: RestoreStep): RestorePhase {
  const removing = step.action === 'delete' || (step.action === 'keep' && CREATED_AND_KEPT.has(step.reason));
  if (removing) return runsPods(step.ref) ? 'delete workloads' : 'delete the rest';
  if (DEFINITIONS.has(groupKind(step.ref))) return 'definitions';
  return runsPods(step.ref) ? 'workloads' : 'configuration';
}

/**
 * The steps grouped by phase, phases in order, each in plan order; empty phases left out. In an
 * apply made in phases (CRDs, pre, main, post: run/phases.ts), `stages` gives each object's
 * phase position: the last phase applied is restored first, each one in the order above.
 */
export function restorePhases(steps: readonly RestoreStep[], stages: ReadonlyMap<string, number> = new Map()): RestoreStep[][] {
  const stageOf = (step: RestoreStep) => stages.get(objectKey(step.ref)) ?? 0;
  const inReverse = [...new Set(steps.map(stageOf))].sort((left, right) => right - left);
  return inReverse.flatMap((stage) =>
    RESTORE_PHASES.map((phase) => steps.filter((step) => stageOf(step) === stage && phaseOf(step) === phase)).filter((group) => group.length > 0),
  );
}

function inPhaseOrder(steps: readonly RestoreStep[]): RestoreStep[] {
  return restorePhases(steps).flat();
}

/** A copy a person can `kubectl replace -f` or `kubectl create -f`: no resourceVersion precondition. */
export function manualCopy(object: KubeObject, forCreate: boolean): KubeObject {
  const { resourceVersion: _rv, ...metadata } = object.metadata;
  if (forCreate) {
    delete (metadata as Record<string, unknown>).uid;
    delete (metadata as Record<string, unknown>).creationTimestamp;
    delete (metadata as Record<string, unknown>).managedFields;
  }
  const { status: _status, ...rest } = object;
  return { ...rest, metadata } as KubeObject;
}

/**
 * The commands that finish a step by hand. `copyFile` is the private file holding the pre-apply
 * copy (written only when a person needs it).
 */
export function manualCommands(step: RestoreStep, kubectl: (args: string[]) => string, copyFile?: string): string[] {
  const name = kubectlName(step.ref);
  const ns = namespaceArgs(step.ref);
  switch (step.action) {
    case 'put-back':
      return copyFile ? [kubectl(['replace', '-f', copyFile])] : [kubectl(['get', name, ...ns, '-o', 'yaml'])];
    case 'recreate':
      return copyFile ? [kubectl(['create', '-f', copyFile])] : [];
    case 'delete':
      return [kubectl(['delete', name, ...ns])];
    case 'keep':
      if (step.reason === 'gone') {
        // Deleted by someone else: `replace` would fail NotFound; `create` brings the copy back.
        return copyFile && step.before ? [`${kubectl(['create', '-f', copyFile])}    # only if you decide the pre-apply copy should come back`] : [];
      }
      if (step.reason === 'conflict') {
        return [
          kubectl(['get', name, ...ns, '-o', 'yaml']),
          ...(copyFile && step.before ? [`${kubectl(['replace', '-f', copyFile])}    # only if you decide the pre-apply copy should win`] : []),
        ];
      }
      if (!step.before) return [kubectl(['delete', name, ...ns])];
      return copyFile ? [kubectl(['replace', '-f', copyFile])] : [];
  }
}
