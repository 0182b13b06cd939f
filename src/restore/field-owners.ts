// The second half of writing a pre-apply copy back: its values are there, now its field owners
// (managedFields) and the conditional form of the first write. Used by restore.ts for every
// put-back, re-creation and replacement alike.
import type { KubeObject } from '../objects/model.js';
import { canonicalJson, changedPaths, contentOf, withControllerAnnotations } from '../objects/compare.js';
import { changeSinceApply } from '../objects/owners.js';
import type { Clock } from '../clock.js';
import type { Kubectl } from '../kubectl/types.js';
import type { RestoreStep } from './steps.js';
import { Persistence, RETRY } from './persist.js';

/** Where the owners' write ended: written, refused (`failure`), or the object moved under it. */
export type OwnersOutcome =
  | { object: KubeObject }
  | { failure: string }
  | { moved: { state: 'conflict' | 'gone'; detail: string; live: KubeObject | null } };

/**
 * How often the owners' write is tried at once when it loses a race; after that it is tried with a
 * short pause until --rollback-timeout. A conflict here is a controller's
 * status write (a content change ends the loop as someone else's change): a DaemonSet or
 * StatefulSet that starts rolling back writes its status several times a second.
 */
const OWNER_ATTEMPTS = 10;

/**
 * On a write the server starts from the managedFields sent and then gives the writing manager
 * every field whose value changed (apimachinery fieldmanager.go), so the pre-apply owners need a
 * second write of the values now stored (a controller may have touched its own bookkeeping in
 * between) with the copy's managedFields.
 */
export async function restoreOwners(
  step: Extract<RestoreStep, { before: KubeObject }>,
  written: KubeObject,
  path: string,
  options: { deadlineMs: number },
  deps: { kubectl: Pick<Kubectl, 'replace'>; clock: Clock },
  read: () => Promise<KubeObject | undefined>,
): Promise<OwnersOutcome> {
  let restored = written;
  const giveUpAt = deps.clock.now() + options.deadlineMs;
  const away = new Persistence(giveUpAt, deps);
  for (let attempt = 0; needsOwners(step.before, restored); attempt += 1) {
    if (attempt >= OWNER_ATTEMPTS && deps.clock.now() >= giveUpAt) {
      return {
        failure: `its values were restored but its field owners were not: it kept changing for ${Math.round(options.deadlineMs / 1000)}s (--rollback-timeout)`,
      };
    }
    // A controller writing status several times a second wins races: give it a moment.
    if (attempt >= OWNER_ATTEMPTS) await deps.clock.sleep(100 * Math.min(attempt - OWNER_ATTEMPTS + 1, 5));
    const owners = {
      ...restored,
      metadata: { ...restored.metadata, managedFields: step.before.metadata.managedFields },
    };
    const second = await deps.kubectl.replace(owners, path, options.deadlineMs);
    if (second.ok && second.object) return { object: second.object };
    // The API server away: read again (an owners' write that landed needs none) and try again.
    if (!second.ok && !second.conflict && (await away.retryAfter(second.stderr))) {
      const again = await away.attempt(read);
      if (again !== RETRY && !(again instanceof Error) && again && !changeSinceApply(restored, again)) restored = again;
      continue;
    }
    if (second.ok || !second.conflict) {
      const outage = second.ok ? undefined : away.outage(second.message, 'write its field owners', second.stderr);
      return {
        failure: `its values were restored but its field owners were not: ${outage ?? (second.ok ? 'no object returned' : second.message)}`,
      };
    }
    const moved = await read();
    const change = changeSinceApply(restored, moved);
    if (change || !moved)
      return {
        moved: {
          state: change?.state ?? 'gone',
          detail: `${change?.detail ?? 'it was deleted'} while kguard restored it`,
          live: moved ?? null,
        },
      };
    restored = moved;
  }
  return { object: restored };
}

/**
 * The pre-apply copy, made conditional on the version just read. Annotations a controller keeps
 * (the Deployment's revision) are taken from the live object: they describe the controller's
 * state now, and the controller would only write them again.
 */
export function conditional(before: KubeObject, live: KubeObject): KubeObject {
  return {
    ...before,
    metadata: {
      ...before.metadata,
      annotations: withControllerAnnotations(before, live),
      resourceVersion: live.metadata.resourceVersion,
    },
  };
}

/** Owners, timestamps included: the next apply's conflicts depend on who owns what, and when. */
function needsOwners(before: KubeObject, restored: KubeObject): boolean {
  return (
    before.metadata.managedFields !== undefined &&
    canonicalJson(before.metadata.managedFields) !== canonicalJson(restored.metadata.managedFields)
  );
}

function ownership(object: KubeObject): string {
  return canonicalJson(
    (object.metadata.managedFields ?? []).map((entry) => ({ ...(entry as object), time: undefined })),
  );
}

/** Fields of the restored object that differ from the pre-apply copy (content and owners). */
export function differencesFromCopy(before: KubeObject, restored: KubeObject): string[] {
  const paths = changedPaths(contentOf(before), contentOf(restored));
  if (ownership(before) !== ownership(restored)) paths.push('metadata.managedFields');
  return paths;
}
