// Live copies of many objects at once, each read once: a kind with few objects in a namespace is
// read by name (one GET each, through the API channel), a kind with many by one list of its
// namespace (`kubectl get TYPE -n NS -o json --show-managed-fields`, or its REST list), every
// namespace and kind at once (the process pool bounds them). A list of a whole namespace costs
// what the namespace holds, not what the apply names: on a crowded namespace, thousands of objects.
import { objectKey, refOf, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { Kubectl } from './types.js';

/** Up to this many objects of one kind in one namespace are read by name; more by one list. */
export const BY_NAME_LIMIT = 8;

export interface ObjectsRead {
  /** By objectKey: the live copy of each wanted object its namespace's list held. */
  live: Map<string, KubeObject>;
  /** Wanted objects that could not be read, with why; whether they exist is unknown. */
  unread: Array<{ ref: ObjectRef; error: unknown }>;
}

/** A wanted object that was read (or whose kind was listed in its namespace) and is not in `live` does not exist. */
export async function readObjects(
  kubectl: Pick<Kubectl, 'listObjects' | 'getObject'>,
  refs: readonly ObjectRef[],
  { byNameLimit = BY_NAME_LIMIT }: { byNameLimit?: number } = {},
): Promise<ObjectsRead> {
  // byNameLimit 0: one list per namespace over all its kinds (the restore's first reads).
  const groups = new Map<string, { namespace: string; types: Set<string>; refs: ObjectRef[] }>();
  const wanted = new Map<string, ObjectRef>();
  for (const ref of refs) {
    const key = objectKey(ref);
    if (wanted.has(key)) continue;
    wanted.set(key, ref);
    const type = typeArg(ref);
    const id = byNameLimit === 0 ? ref.namespace : `${ref.namespace}\u0000${type}`;
    const group = groups.get(id) ?? { namespace: ref.namespace, types: new Set<string>(), refs: [] };
    group.types.add(type);
    group.refs.push(ref);
    groups.set(id, group);
  }
  const live = new Map<string, KubeObject>();
  const unread: ObjectsRead['unread'] = [];
  const keep = (object: KubeObject | undefined) => {
    if (!object) return;
    const key = objectKey(refOf(object));
    if (wanted.has(key)) live.set(key, object);
  };
  await Promise.all(
    [...groups.values()].map(async ({ namespace, types, refs: named }) => {
      if (named.length > byNameLimit) {
        try {
          for (const object of await kubectl.listObjects(namespace, [...types])) keep(object);
        } catch (error) {
          for (const ref of named) unread.push({ ref, error });
        }
        return;
      }
      await Promise.all(
        named.map(async (ref) => {
          try {
            keep(await kubectl.getObject(typeArg(ref), namespace, ref.name));
          } catch (error) {
            unread.push({ ref, error });
          }
        }),
      );
    }),
  );
  return { live, unread };
}
