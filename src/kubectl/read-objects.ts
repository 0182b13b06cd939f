// Live copies of many objects at once: one `kubectl get A,B,C -n NS -o json --show-managed-fields`
// per namespace over the types the objects name, every namespace at once (the process pool
// bounds them), instead of one get per object.
import { objectKey, refOf, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { Kubectl } from './types.js';

export interface ObjectsRead {
  /** By objectKey: the live copy of each wanted object its namespace's list held. */
  live: Map<string, KubeObject>;
  /** Wanted objects whose namespace could not be listed, with why; whether they exist is unknown. */
  unread: Array<{ ref: ObjectRef; error: unknown }>;
}

/** A wanted object in a namespace that was listed and is not in `live` does not exist. */
export async function readObjects(
  kubectl: Pick<Kubectl, 'listObjects'>,
  refs: readonly ObjectRef[],
): Promise<ObjectsRead> {
  const byNamespace = new Map<string, { types: Set<string>; refs: ObjectRef[] }>();
  for (const ref of refs) {
    const entry = byNamespace.get(ref.namespace) ?? { types: new Set<string>(), refs: [] };
    entry.types.add(typeArg(ref));
    entry.refs.push(ref);
    byNamespace.set(ref.namespace, entry);
  }
  const wanted = new Set(refs.map(objectKey));
  const live = new Map<string, KubeObject>();
  const unread: ObjectsRead['unread'] = [];
  await Promise.all(
    [...byNamespace].map(async ([namespace, entry]) => {
      try {
        for (const object of await kubectl.listObjects(namespace, [...entry.types])) {
          const key = objectKey(refOf(object));
          if (wanted.has(key)) live.set(key, object);
        }
      } catch (error) {
        for (const ref of entry.refs) unread.push({ ref, error });
      }
    }),
  );
  return { live, unread };
}
