// The apply's restore: the one restore entry (restore/entry.ts) with this apply's verdicts, then
// every workload written back tracked until it is healthy again.
import { objectKey } from '../../objects/model.js';
import type { VerdictState } from '../../model/verdict.js';
import { restoreObjects, trackWrittenBack } from '../../restore/entry.js';
import type { ApplyOptions } from '../../model/options.js';
import type { PendingObject } from './changes.js';
import type { Deps } from './deps.js';
import { trackOptionsFor } from './track-options.js';

/**
 * `failedAsUnit`: a check, the bake or the analysis failed. `inconclusive`: the analysis could not
 * judge, and no journal keeps the run: every change is kept with the commands that undo it.
 */
export async function restore(
  objects: PendingObject[],
  options: ApplyOptions,
  deps: Deps,
  { failedAsUnit = false, inconclusive = false }: { failedAsUnit?: boolean; inconclusive?: boolean } = {},
) {
  const { steps, results } = await restoreObjects(
    objects.map((object) => ({
      ref: object.ref,
      change: object.change,
      verdict: object.verdict?.state as VerdictState | undefined,
    })),
    {
      mode: options.rollback,
      keepCreated: options.keepCreated,
      cancelled: deps.signal?.aborted,
      failedAsUnit,
      inconclusive,
      deadlineMs: options.rollbackTimeoutMs,
      stages: new Map(
        objects.flatMap((object) =>
          object.stage === undefined ? [] : [[objectKey(object.ref), object.stage] as const],
        ),
      ),
    },
    deps,
  );
  if (steps.length === 0) return;
  for (const object of objects) object.restore = results.get(objectKey(object.ref));
  // Cancelled: the writes are what counts before the CI runner's SIGKILL; health is not waited for.
  if (deps.signal?.aborted) return;
  // Restored workloads are tracked until healthy again: the restore is done when they are.
  const ended = await trackWrittenBack(
    objects.map((object) => ({
      ref: object.ref,
      result: object.restore,
      before: 'before' in object.change ? object.change.before : undefined,
    })),
    { track: trackOptionsFor(options, 'rollback'), cancelled: deps.signal },
    deps,
  );
  for (const object of objects) {
    const end = ended.get(objectKey(object.ref));
    if (!end) continue;
    const { said: _said, ...afterRestore } = end;
    object.afterRestore = afterRestore;
  }
}

/**
 * --dry-run: what the apply would create, change or leave alone. Server strategy: from the
 * server's answer, field by field. Client strategy: kubectl's own verdict per object (its JSON
 * shows the live object, not the patched one), without fields.
 */
