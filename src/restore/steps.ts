// The steps a restore plan is made of (plan.ts decides them, restore.ts carries them out,
// manual.ts says how a person would), and the copies they write. Pure.
import { rowFor } from '../kinds/table.js';
import type { KeepReason } from '../model/result.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';

export type RestoreStep =
  | { ref: ObjectRef; action: 'put-back'; before: KubeObject; applied: KubeObject }
  /**
   * Delete the object as the apply left it (by uid and resourceVersion), then create `copy`: the
   * API server refuses to write the pre-apply copy over it (kinds/refusals.ts), or the apply itself
   * replaced it. Without `copy` nothing is created again (a Job that had finished): `why` says so.
   */
  | { ref: ObjectRef; action: 'replace'; before: KubeObject; applied: KubeObject; copy?: KubeObject; why: string }
  | { ref: ObjectRef; action: 'delete'; applied: KubeObject }
  /** Create `copy` (the pre-apply copy as the kind's row prepares it for a create). */
  | { ref: ObjectRef; action: 'recreate'; before: KubeObject; copy: KubeObject }
  | { ref: ObjectRef; action: 'keep'; reason: KeepReason; before?: KubeObject; applied?: KubeObject; detail?: string };

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

/** What creating the pre-apply copy again takes: the kind's copy, or never (a Job that had finished). */
export function createFor(ref: ObjectRef, before: KubeObject): { copy?: KubeObject; why?: string } {
  const rule = rowFor(ref).recreate?.(before) ?? { how: 'create', copy: manualCopy(before, true) };
  return rule.how === 'create' ? { copy: rule.copy } : { why: rule.why };
}
