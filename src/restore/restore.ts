// Carries out a restore plan, round by round (plan.ts restoreRounds): the objects of a round are
// restored at once, and kubectl's process pool (kubectl/process/pool.ts) bounds how many processes that
// takes. Each round starts with one list per namespace of its objects' live copies; each object
// the apply changed is then written back to its pre-apply copy with a write conditional on the
// copy just read, objects it created are deleted by uid. Someone else's change always wins:
// checked right before each write, and the write itself is conditional, so a change in between
// is caught too (a 409: that object alone is read again and looked at). A transient API answer
// (500, 503, 429, a dropped connection) is retried by the kubectl adapter itself
// (kubectl/transient.ts), for every write alike; past those retries, an object's reads and writes
// are asked again until --rollback-timeout, the object read again before each (persist.ts).
import { readObjects } from '../kubectl/read-objects.js';
import type { ApiResource } from '../kubectl/types.js';
import { objectKey, typeArg } from '../objects/model.js';
import type { RestoreResult } from '../model/result.js';
import type { ObjectReader, ObjectRestore, RestoreDeps } from './context.js';
import { deleteCreated, recreate, replaceWithCopy } from './delete-create.js';
import { failed, keptByPlan } from './outcomes.js';
import { Persistence, RETRY } from './persist.js';
import { restoreRounds } from './plan.js';
import { putBack } from './put-back.js';
import { reportResult } from './result-events.js';
import type { RestoreStep } from './steps.js';

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
  for (const round of restoreRounds(steps, options.stages)) {
    const reads = await firstReads(round, deps);
    // Each result is reported as it comes: the objects of a round finish in any order.
    const settled = await Promise.allSettled(
      round.map(async (step) => {
        const result = await restoreOne(step, { options, deps, apiResources, read: reads(step) }).catch(
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

/**
 * The live copies of a round's objects, one list per namespace. An object whose namespace could
 * not be listed is read on its own instead, as is every read after the first (a 409).
 */
async function firstReads(
  round: readonly RestoreStep[],
  deps: RestoreDeps,
): Promise<(step: RestoreStep) => ObjectReader> {
  const listed = await readObjects(
    deps.kubectl,
    round.filter((step) => step.action !== 'keep').map((step) => step.ref),
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

/** One object's restore, by what its step does. */
function restoreOne(step: RestoreStep, given: ObjectRestore): Promise<RestoreResult> {
  switch (step.action) {
    case 'keep':
      return keptByPlan(step, given.deps);
    case 'replace':
      return replaceWithCopy(step, given);
    case 'recreate':
      return recreate(step, given);
    case 'delete':
      return deleteCreated(step, given);
    case 'put-back':
      return putBack(step, given);
  }
}
