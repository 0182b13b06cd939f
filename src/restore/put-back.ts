// The put-back of an object the apply changed: a conditional PUT of its pre-apply copy over the
// live object, this apply's changes reverted and others' writes to other fields kept; then its
// field owners (field-owners.ts) and its kind's extra step (a StatefulSet's stuck pods).
import { rowFor } from '../kinds/table.js';
import type { RestoreResult } from '../model/result.js';
import { sameContent } from '../objects/compare.js';
import type { KubeObject } from '../objects/model.js';
import { changeSinceApply, fieldsOfApply, keepingOthers } from '../objects/owners.js';
import { apiPath, type ObjectRestore, type RestoreDeps } from './context.js';
import { replaceWithCopy } from './delete-create.js';
import { conditional, differencesFromCopy, restoreOwners } from './field-owners.js';
import { failed, keepBecause, ownersOf } from './outcomes.js';
import { Persistence, RETRY } from './persist.js';
import { manualCopy, type RestoreStep } from './steps.js';

/** How often a put-back looks again after its conditional write answered 409, on its own reads. */
const PUT_BACK_LOOKS = 3;

export async function putBack(
  step: Extract<RestoreStep, { action: 'put-back' }>,
  given: ObjectRestore,
): Promise<RestoreResult> {
  const { options, deps, apiResources, read } = given;
  // A conditional PUT of the pre-apply copy; a 409 means it moved between the look and
  // the write (a controller's status write, under load several a second), so look again. The
  // round's list is the first look; then reads of this object alone: PUT_BACK_LOOKS at once,
  // then with a growing pause until --rollback-timeout, as for the field owners below.
  const path = await apiPath(step.ref, apiResources);
  const ours = fieldsOfApply(step.before, step.applied);
  let lastLive: KubeObject | undefined;
  let written: KubeObject | undefined;
  const giveUpAt = deps.clock.now() + options.deadlineMs;
  const away = new Persistence(giveUpAt, deps);
  for (let look = 0; look <= PUT_BACK_LOOKS || deps.clock.now() < giveUpAt; look += 1) {
    if (look > PUT_BACK_LOOKS && !away.waited) await deps.clock.sleep(100 * Math.min(look - PUT_BACK_LOOKS, 5));
    away.waited = false;
    const reading = await away.attempt(read);
    if (reading === RETRY) {
      look -= 1;
      continue;
    }
    if (reading instanceof Error) return failed(step, away.outage(reading.message, 'read it') ?? reading.message, deps);
    const live = reading;
    // A write answered 504 may have landed all the same (the API server stored it, then timed out
    // answering: endpoints/handlers/finisher): the retry's 409 is then kguard's own write, not
    // someone else's change.
    if (live && written && sameContent(live, written)) {
      const owned = await ownersOf(step, restoreOwners(step, live, path, options, deps, read), deps);
      if ('status' in owned) return owned;
      const notes = await afterPutBack(step, lastLive ?? live, owned.object, options, deps);
      return {
        status: 'restored',
        restored: owned.object,
        differences: differencesFromCopy(step.before, owned.object),
        notes,
      };
    }
    const change = changeSinceApply(step.applied, live, ours);
    if (change || !live)
      return keepBecause(step, change?.state ?? 'gone', change?.detail ?? 'it was deleted', deps, live ?? null);
    // What the API server refuses to take back over the object as it is now (its kind's row).
    const rule = rowFor(step.ref).putBack?.(step.before, live);
    if (rule?.how === 'impossible') return keepBecause(step, 'cannot-restore', rule.why, deps, live);
    if (rule?.how === 'delete-and-create') {
      return replaceWithCopy(
        { ...step, action: 'replace', copy: manualCopy(step.before, true), why: rule.why },
        { ...given, read: async () => live },
      );
    }
    // This apply's changes are reverted; others' writes to other fields since (an HPA's replicas) stay.
    lastLive = live;
    written = keepingOthers(step.before, step.applied, live, ours);
    const first = await deps.kubectl.replace(conditional(written, live), path, options.deadlineMs);
    if (!first.ok && first.conflict) continue;
    // The API server away or busy: look again (a write that landed shows as written) until --rollback-timeout.
    if (!first.ok && (await away.retryAfter(first.stderr))) {
      look -= 1;
      continue;
    }
    if (!first.ok || !first.object)
      return failed(
        step,
        (!first.ok && away.outage(first.message, 'write its pre-apply copy', first.stderr)) ||
          `the API server refused the pre-apply copy: ${first.ok ? 'no object returned' : first.message}`,
        deps,
      );
    const owned = await ownersOf(step, restoreOwners(step, first.object, path, options, deps, read), deps);
    if ('status' in owned) return owned;
    const notes = await afterPutBack(step, live, owned.object, options, deps);
    return {
      status: 'restored',
      restored: owned.object,
      differences: differencesFromCopy(step.before, owned.object),
      notes,
    };
  }
  return keepBecause(
    step,
    'conflict',
    `it kept changing while kguard tried to restore it, for ${Math.round(options.deadlineMs / 1000)}s (--rollback-timeout)`,
    deps,
  );
}

/**
 * The kind's extra step after its copy is back (a StatefulSet's stuck pods of the failed
 * revision). It cannot take the write back: a failure is said, and the restored object's own
 * tracking tells whether it became healthy.
 */
async function afterPutBack(
  step: Extract<RestoreStep, { action: 'put-back' }>,
  failed: KubeObject,
  restored: KubeObject,
  options: { deadlineMs: number },
  deps: RestoreDeps,
): Promise<string[] | undefined> {
  const hook = rowFor(step.ref).afterRestore;
  if (!hook) return undefined;
  return hook(
    { failed, before: step.before, restored },
    { kubectl: deps.kubectl, clock: deps.clock, deadlineMs: options.deadlineMs },
  ).catch((error: unknown) => [
    `its extra restore step failed: ${error instanceof Error ? error.message : String(error)}`,
  ]);
}
