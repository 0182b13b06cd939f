// Before the apply (and in a preview): what a restore of this apply could not do, or would do
// another way, by each kind's restore rules (kinds/refusals.ts) on the pre-apply copies and the
// objects as the server dry run says they will be. Said once, before anything changes. Pure.
import { rowFor } from '../../../kinds/table.js';
import type { RunEvent } from '../../../model/events.js';
import { changeOf } from '../../../objects/compare.js';
import { objectKey, refOf, type KubeObject } from '../../../objects/model.js';
import { createFor } from '../../../restore/steps.js';
import type { Understood } from '../understand.js';

export type RestoreLimit = Extract<RunEvent, { kind: 'restore-limit' }>;

export function restoreLimits(understood: Pick<Understood, 'refs' | 'pruned' | 'server' | 'current'>): RestoreLimit[] {
  if (!understood.server.ok) return [];
  const wouldBe = new Map<string, KubeObject>(
    understood.server.objects.map((object) => [objectKey(refOf(object)), object]),
  );
  const limits: RestoreLimit[] = [];
  for (const ref of understood.refs) {
    const before = understood.current.get(objectKey(ref));
    const after = wouldBe.get(objectKey(ref));
    if (!before || !after || changeOf(before, after).change !== 'configured') continue;
    const rule = rowFor(ref).putBack?.(before, after);
    if (rule?.how === 'impossible')
      limits.push({ kind: 'restore-limit', object: ref, how: 'cannot-restore', detail: rule.why });
    if (rule?.how === 'delete-and-create')
      limits.push({ kind: 'restore-limit', object: ref, how: 'delete-and-create', detail: rule.why });
  }
  // The dry run prints each object --prune would delete as it is now: its pre-apply copy.
  const pruned = new Map<string, KubeObject>(
    understood.server.pruned.map((object) => [objectKey(refOf(object)), object]),
  );
  for (const ref of understood.pruned) {
    const before = understood.current.get(objectKey(ref)) ?? pruned.get(objectKey(ref));
    const created = before ? createFor(ref, before) : undefined;
    if (created?.why) limits.push({ kind: 'restore-limit', object: ref, how: 'finished-job', detail: created.why });
  }
  return limits;
}
