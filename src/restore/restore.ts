// Carries out a restore plan, phase by phase (plan.ts restorePhases): the objects of a phase are
// restored at once, and kubectl's process pool (kubectl/process/pool.ts) bounds how many processes that
// takes. Each phase starts with one list per namespace of its objects' live copies; each object
// the apply changed is then written back to its pre-apply copy with a write conditional on the
// copy just read, objects it created are deleted by uid. Someone else's change always wins:
// checked right before each write, and the write itself is conditional, so a change in between
// is caught too (a 409: that object alone is read again and looked at). A transient API answer
// (500, 503, 429, a dropped connection) is retried by the kubectl adapter itself
// (kubectl/transient.ts), for every write alike; past those retries, an object's reads and writes
// are asked again until --rollback-timeout, the object read again before each (persist.ts).
import type { Clock } from '../clock.js';
import { readObjects } from '../kubectl/read-objects.js';
import type { ApiResource, Kubectl } from '../kubectl/types.js';
import { sameContent } from '../objects/compare.js';
import { conditional, differencesFromCopy, restoreOwners } from './field-owners.js';
import { changeSinceApply, fieldsOfApply, keepingOthers } from '../objects/owners.js';
import {
  groupOf,
  isControllerOwned,
  kindKey,
  objectKey,
  typeArg,
  versionOf,
  type KubeObject,
  type ObjectRef,
} from '../objects/model.js';
import type { Reporter } from '../model/events.js';
import { rowFor } from '../kinds/table.js';
import { manualRestore } from './manual.js';
import { restorePhases } from './plan.js';
import { manualCopy, type RestoreStep } from './steps.js';
import { Persistence, RETRY } from './persist.js';
import { failed, keepBecause, ownersOf } from './outcomes.js';
import type { RestoreResult } from '../model/result.js';
import { reportResult } from './result-events.js';

export interface RestoreDeps {
  kubectl: Pick<
    Kubectl,
    | 'listObjects'
    | 'getObject'
    | 'replace'
    | 'create'
    | 'deleteExact'
    | 'apiResources'
    | 'commandLine'
    | 'workloadState'
  >;
  clock: Clock;
  reporter: Reporter;
  /** Writes a pre-apply copy where only this user can read it; returns the path. */
  keepCopy(ref: ObjectRef, object: KubeObject): Promise<string>;
}

export async function executeRestore(
  steps: readonly RestoreStep[],
  options: {
    deadlineMs: number /** Phase positions of a phased apply: later phases are restored first (plan.ts). */;
    stages?: ReadonlyMap<string, number>;
  },
  deps: RestoreDeps,
): Promise<Map<string, RestoreResult>> {
  const results = new Map<string, RestoreResult>();
  let resources: Promise<Map<string, ApiResource>> | undefined;
  // Only the group versions this restore touches: an unavailable APIService elsewhere does not matter.
  const away = new Persistence(deps.clock.now() + options.deadlineMs, deps);
  const discover = async (): Promise<Map<string, ApiResource>> => {
    for (;;) {
      const found = await away.attempt(() => deps.kubectl.apiResources(steps.map((step) => step.ref.apiVersion)));
      if (found !== RETRY) {
        if (found instanceof Error) throw new Error(away.outage(found.message, 'read its kind') ?? found.message);
        return found;
      }
    }
  };
  const apiResources = () => (resources ??= discover());
  const writes = steps.filter((step) => step.action !== 'keep');
  if (writes.length > 0) deps.reporter.emit({ kind: 'restoring', objects: writes.map((step) => step.ref) });
  for (const phase of restorePhases(steps, options.stages)) {
    const reads = await firstReads(phase, deps);
    // Each result is reported as it comes: the objects of a phase finish in any order.
    const settled = await Promise.allSettled(
      phase.map(async (step) => {
        const result = await restoreOne(step, options, deps, apiResources, reads(step)).catch(
          async (error: unknown): Promise<RestoreResult> =>
            failed(step, error instanceof Error ? error.message : String(error), deps),
        );
        results.set(objectKey(step.ref), result);
        reportResult(step, result, deps.reporter);
      }),
    );
    // Only keeping a private copy can fail here: every other step has still finished.
    const broken = settled.find((outcome) => outcome.status === 'rejected');
    if (broken) throw broken.reason;
  }
  return results;
}

/** Reads one object: the first time from the phase's lists, after that on its own. */
type ObjectReader = () => Promise<KubeObject | undefined>;

/**
 * The live copies of a phase's objects, one list per namespace. An object whose namespace could
 * not be listed is read on its own instead, as is every read after the first (a 409).
 */
async function firstReads(
  phase: readonly RestoreStep[],
  deps: RestoreDeps,
): Promise<(step: RestoreStep) => ObjectReader> {
  const listed = await readObjects(
    deps.kubectl,
    phase.filter((step) => step.action !== 'keep').map((step) => step.ref),
    { byNameLimit: 0 },
  );
  const unread = new Set(listed.unread.map(({ ref }) => objectKey(ref)));
  return (step) => {
    const own = () => deps.kubectl.getObject(typeArg(step.ref), step.ref.namespace, step.ref.name);
    let first = !unread.has(objectKey(step.ref));
    return async () => {
      if (!first) return own();
      first = false;
      return listed.live.get(objectKey(step.ref));
    };
  };
}

/** How often a put-back looks again after its conditional write answered 409, on its own reads. */
const PUT_BACK_LOOKS = 3;

async function restoreOne(
  step: RestoreStep,
  options: { deadlineMs: number },
  deps: RestoreDeps,
  apiResources: () => Promise<Map<string, ApiResource>>,
  read: ObjectReader,
): Promise<RestoreResult> {
  const commandLine = (args: string[]) => deps.kubectl.commandLine(args);
  if (step.action === 'keep') {
    const manual = manualRestore(step);
    const copyFile = manual.copy ? await deps.keepCopy(step.ref, manual.copy) : undefined;
    return {
      status: 'kept',
      reason: step.reason,
      detail: step.detail,
      commands: manual.commands(commandLine, copyFile),
      copyFile,
    };
  }

  if (step.action === 'replace') return replaceWithCopy(step, options, deps, apiResources, read);

  if (step.action === 'recreate') {
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

  if (step.action === 'delete') {
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

  // put-back: a conditional PUT of the pre-apply copy; a 409 means it moved between the look and
  // the write (a controller's status write, under load several a second), so look again. The
  // phase's list is the first look; then reads of this object alone: PUT_BACK_LOOKS at once,
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
        options,
        deps,
        apiResources,
        async () => live,
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
 * Delete the object as the apply left it, by uid and resourceVersion, then create the pre-apply
 * copy (a new uid): what the API server refuses as a write (an immutable ConfigMap's data) it
 * takes this way. A delete loses every other writer's change, so it is done only when nothing
 * changed the object since the apply, and nothing holds it (finalizers would keep it).
 */
async function replaceWithCopy(
  step: Extract<RestoreStep, { action: 'replace' }>,
  options: { deadlineMs: number },
  deps: RestoreDeps,
  apiResources: () => Promise<Map<string, ApiResource>>,
  read: ObjectReader,
): Promise<RestoreResult> {
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

/**
 * The kind's extra step after its copy is back (a StatefulSet's stuck pods of the failed
 * revision). It cannot undo the write: a failure is said, and the restored object's own
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

/** The REST path of an object, from discovery: /api/v1/namespaces/NS/PLURAL/NAME or /apis/G/V/... */
async function apiPath(ref: ObjectRef, apiResources: () => Promise<Map<string, ApiResource>>): Promise<string> {
  const group = groupOf(ref.apiVersion);
  const resource = (await apiResources()).get(kindKey(ref));
  if (!resource) throw new Error(`the API server does not list the kind ${ref.kind} (${ref.apiVersion}) any more`);
  const base = group === '' ? `/api/${versionOf(ref.apiVersion)}` : `/apis/${group}/${versionOf(ref.apiVersion)}`;
  const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  return `${base}${scope}/${resource.name}/${encodeURIComponent(ref.name)}`;
}
