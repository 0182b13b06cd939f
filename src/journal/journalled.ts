// A journalled run as the cluster holds it now: each of its objects read (one list per namespace;
// the rest read alone), and what restoring the run would put back (journal.ts changesToRestore).
// `kguard rollback` (from the journal) and `kguard undo` (from a history record read as a journal)
// both start here.
import { readObjects } from '../kubectl/read-objects.js';
import type { Kubectl } from '../kubectl/types.js';
import type { ObjectChange } from '../model/result.js';
import { objectKey, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import { changesToRestore, type Journal } from './journal.js';

/** Each journalled object as the cluster holds it now (one list per namespace; the rest read alone). */
export async function readJournalled(
  journal: Journal,
  deps: { kubectl: Pick<Kubectl, 'listObjects' | 'getObject'> },
): Promise<Map<string, KubeObject | undefined>> {
  const read = await readObjects(
    deps.kubectl,
    journal.objects.map((entry) => entry.ref),
  );
  const live = new Map<string, KubeObject | undefined>(
    journal.objects.map((entry) => [objectKey(entry.ref), read.live.get(objectKey(entry.ref))]),
  );
  await Promise.all(
    read.unread.map(async ({ ref }) =>
      live.set(objectKey(ref), await deps.kubectl.getObject(typeArg(ref), ref.namespace, ref.name)),
    ),
  );
  return live;
}

/** What restoring the run puts back now, with the objects as read. */
export async function changesNow(
  journal: Journal,
  deps: { kubectl: Pick<Kubectl, 'listObjects' | 'getObject'> },
): Promise<{ live: Map<string, KubeObject | undefined>; changes: Array<{ ref: ObjectRef; change: ObjectChange }> }> {
  const live = await readJournalled(journal, deps);
  return { live, changes: changesToRestore(journal, live) };
}
