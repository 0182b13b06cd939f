// Live copies, each read once: a kind with few objects in a namespace by name, one with many by
// one list of that kind; a read that fails leaves its objects unread (whether they exist is unknown).
import { describe, expect, it } from 'vitest';
import { BY_NAME_LIMIT, readObjects } from '../../src/kubectl/read-objects.js';
import type { KubeObject, ObjectRef } from '../../src/objects/model.js';

const ref = (kind: string, name: string, namespace = 'shop'): ObjectRef => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  namespace,
  name,
});
const objectOf = ({ apiVersion, kind, namespace, name }: ObjectRef): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace },
});

function cluster(objects: readonly KubeObject[]) {
  const calls: string[] = [];
  return {
    calls,
    kubectl: {
      getObject: async (type: string, namespace: string, name: string) => {
        calls.push(`get ${type} ${namespace}/${name}`);
        if (namespace === 'locked') throw new Error('forbidden');
        return objects.find((object) => object.metadata.name === name && object.metadata.namespace === namespace);
      },
      listObjects: async (namespace: string, types: readonly string[]) => {
        calls.push(`list ${types.join(',')} ${namespace}`);
        return objects.filter((object) => object.metadata.namespace === namespace);
      },
    },
  };
}

describe('readObjects', () => {
  it('reads a few objects of a kind by name, never its whole namespace', async () => {
    const web = ref('Deployment', 'web');
    const settings = ref('ConfigMap', 'settings');
    const absent = ref('ConfigMap', 'new');
    const { kubectl, calls } = cluster([objectOf(web), objectOf(settings), objectOf(ref('ConfigMap', 'other'))]);
    const read = await readObjects(kubectl, [web, settings, absent]);
    expect([...read.live.keys()].sort()).toEqual(['/ConfigMap/shop/settings', 'apps/Deployment/shop/web']);
    expect(calls.filter((call) => call.startsWith('list'))).toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it(`lists a kind once when the apply names more than ${BY_NAME_LIMIT} of it in a namespace`, async () => {
    const many = Array.from({ length: BY_NAME_LIMIT + 1 }, (_, index) => ref('ConfigMap', `c${index}`));
    const { kubectl, calls } = cluster(many.map(objectOf));
    const read = await readObjects(kubectl, many);
    expect(read.live.size).toBe(many.length);
    expect(calls).toEqual(['list ConfigMap.v1. shop']);
  });

  it('leaves the objects it could not read unread', async () => {
    const { kubectl } = cluster([]);
    const read = await readObjects(kubectl, [ref('ConfigMap', 'a', 'locked')]);
    expect(read.live.size).toBe(0);
    expect(read.unread.map(({ ref: unread }) => unread.name)).toEqual(['a']);
  });
});
