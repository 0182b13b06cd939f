// The writes of a restore that delete or create (restore.ts hands each its step): an object the
// apply created is deleted by uid; one it deleted is created again from its copy; one the API
// server will not take its copy over is deleted and created again (replaceWithCopy).
import { changeSinceApply, fieldsOfApply } from '../objects/owners.js';
import { isControllerOwned } from '../objects/model.js';
import type { RestoreResult } from '../model/result.js';
import { apiPath, type ObjectRestore } from './context.js';
import { differencesFromCopy, restoreOwners } from './field-owners.js';
import { failed, keepBecause, ownersOf } from './outcomes.js';
import { Persistence, RETRY } from './persist.js';
import type { RestoreStep } from './steps.js';

/** Creates the pre-apply copy of an object the apply deleted, unless someone created one since. */
export async function recreate(
  step: Extract<RestoreStep, { action: 'recreate' }>,
  given: ObjectRestore,
): Promise<RestoreResult> {
  const { options, deps, apiResources, read } = given;
  const live = await read();
  if (live) return keepBecause(step, 'conflict', 'someone else created it again after the apply', deps, live);
  const collection = (await apiPath(step.ref, apiResources)).replace(/\/[^/]+$/, '');
  const written = await deps.kubectl.create(step.copy, collection, options.deadlineMs);
  if (!written.ok) return failed(step, `the API server refused to create it again: ${written.message}`, deps);
  if (!written.object) return { status: 'recreated', differences: [] };
  // A new object: a new uid and creation time; its values and field owners are the copy's.
  const owned = await ownersOf(
    step,
    restoreOwners(step, written.object, `${collection}/${encodeURIComponent(step.ref.name)}`, options, deps, read),
    deps,
  );
  if ('status' in owned) return owned;
  return { status: 'recreated', restored: owned.object, differences: differencesFromCopy(step.before, owned.object) };
}

/** Deletes, by uid, an object the apply created, unless someone changed what the apply wrote. */
export async function deleteCreated(
  step: Extract<RestoreStep, { action: 'delete' }>,
  given: ObjectRestore,
): Promise<RestoreResult> {
  const { options, deps, apiResources, read } = given;
  // The API server away: read again (a delete that landed shows as gone) and delete again, until --rollback-timeout.
  const away = new Persistence(deps.clock.now() + options.deadlineMs, deps);
  for (;;) {
    const live = await away.attempt(read);
    if (live === RETRY) continue;
    if (live instanceof Error) return failed(step, away.outage(live.message, 'read it') ?? live.message, deps);
    if (!live) return { status: 'deleted', differences: [] };
    // Others' writes to fields its manifest left alone (a finalizer, a binding) do not stop the delete.
    const change = changeSinceApply(step.applied, live, fieldsOfApply(undefined, step.applied));
    if (change) return keepBecause(step, change.state, change.detail, deps, live);
    const deleted = await deps.kubectl.deleteExact(
      await apiPath(step.ref, apiResources),
      { uid: live.metadata.uid ?? '' },
      options.deadlineMs,
    );
    if (deleted.ok || deleted.notFound) return { status: 'deleted', differences: [] };
    if (deleted.conflict)
      return keepBecause(step, 'gone', 'it was replaced by someone else before kguard could delete it', deps);
    if (await away.retryAfter(deleted.stderr)) continue;
    const outage = away.outage(deleted.message, 'delete it', deleted.stderr);
    return failed(step, outage ?? `the API server refused to delete it: ${deleted.message}`, deps);
  }
}

/**
 * Delete the object as the apply left it, by uid and resourceVersion, then create the pre-apply
 * copy (a new uid): what the API server refuses as a write (an immutable ConfigMap's data) it
 * takes this way. A delete loses every other writer's change, so it is done only when nothing
 * changed the object since the apply, and nothing holds it (finalizers would keep it).
 */
export async function replaceWithCopy(
  step: Extract<RestoreStep, { action: 'replace' }>,
  given: ObjectRestore,
): Promise<RestoreResult> {
  const { options, deps, apiResources, read } = given;
  const live = await read();
  const change = changeSinceApply(step.applied, live);
  if (change || !live)
    return keepBecause(step, change?.state ?? 'gone', change?.detail ?? 'it was deleted', deps, live ?? null);
  if (isControllerOwned(live))
    return keepBecause(
      step,
      'cannot-restore',
      `${step.why}; a controller owns it, and kguard does not delete it`,
      deps,
      live,
    );
  const finalizers = (live.metadata.finalizers as string[] | undefined) ?? [];
  if (finalizers.length > 0) {
    return keepBecause(
      step,
      'cannot-restore',
      `${step.why}; it would have to be deleted and created again, but finalizers hold it (${finalizers.join(', ')})`,
      deps,
      live,
    );
  }
  const path = await apiPath(step.ref, apiResources);
  const deleted = await deps.kubectl.deleteExact(
    path,
    { uid: live.metadata.uid ?? '', resourceVersion: live.metadata.resourceVersion },
    options.deadlineMs,
  );
  if (!deleted.ok && deleted.conflict)
    return keepBecause(
      step,
      'conflict',
      'it changed while kguard was about to delete it to create its pre-apply copy',
      deps,
      live,
    );
  if (!deleted.ok && !deleted.notFound)
    return failed(step, `the API server refused to delete it: ${deleted.message}`, deps);
  if (!step.copy) {
    return {
      status: 'kept',
      reason: 'finished-job',
      detail: `the object this apply put in its place was deleted; ${step.why}`,
      commands: [],
    };
  }
  const collection = path.replace(/\/[^/]+$/, '');
  const written = await deps.kubectl.create(step.copy, collection, options.deadlineMs);
  if (!written.ok) {
    // The delete landed: what is left is the create.
    const recreate: RestoreStep = { ref: step.ref, action: 'recreate', before: step.before, copy: step.copy };
    return failed(
      recreate,
      `it was deleted so that its pre-apply copy could be created again (${step.why}), and the API server refused the create: ${written.message}`,
      deps,
    );
  }
  if (!written.object) return { status: 'replaced', differences: [], notes: [step.why] };
  const owned = await ownersOf(step, restoreOwners(step, written.object, path, options, deps, read), deps);
  if ('status' in owned) return owned;
  return {
    status: 'replaced',
    restored: owned.object,
    differences: differencesFromCopy(step.before, owned.object),
    notes: [step.why],
  };
}
