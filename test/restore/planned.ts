// An object of an apply as planRestore takes it (the restore tests share it): its reference, what
// the apply did to it, and its verdict.
import { changeOf } from '../../src/objects/compare.js';
import { type KubeObject, refOf } from '../../src/objects/model.js';
import type { VerdictState } from '../../src/model/verdict.js';
import type { PlannedObject } from '../../src/restore/plan.js';

export const planned = (
  before: KubeObject | undefined,
  after: KubeObject | undefined,
  verdict?: VerdictState,
): PlannedObject => ({
  ref: refOf((after ?? before) as KubeObject),
  change: changeOf(before, after),
  verdict,
});
