// A look's objects are grouped once per list (kinds/engine.ts): the answers are those of a filter
// over the whole list, whatever was asked before.
import { describe, expect, it } from 'vitest';
import { findObject, objectsControlledBy, ownedCopies, podsControlledBy } from '../../src/kinds/look-index.js';
import type { KubeObject } from '../../src/objects/model.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';
import { expectationOf, verdictFor } from './judge-deployment.js';

const newReplicaSet = replicaSet('progressing-new');
const oldReplicaSet = replicaSet('progressing-old');
const web = deployment('progressing-new-rs');

/** A pod of another ReplicaSet: the fixture with its controller's uid replaced. */
function podOf(owner: string, name: string) {
  const copy = pod('running-ready');
  copy.metadata.name = name;
  copy.metadata.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: owner, controller: true },
  ];
  return copy;
}

describe('podsControlledBy', () => {
  it('gives the pods whose controller is the owner, in the order read, and none for an owner with no uid', () => {
    const pods = [pod('running-ready'), podOf('other', 'other-1'), pod('image-pull-backoff')];
    expect(podsControlledBy(newReplicaSet, pods).map((each) => each.metadata.name)).toEqual([
      'web-7d9c6b8f4d-x5k2p',
      'web-7d9c6b8f4d-q7r4t',
    ]);
    expect(podsControlledBy({ metadata: {} }, pods)).toEqual([]);
  });

  it('does not count an owner reference that is not the controller', () => {
    const adopted = pod('running-ready');
    adopted.metadata.ownerReferences = [{ ...adopted.metadata.ownerReferences![0]!, controller: false }];
    expect(podsControlledBy(newReplicaSet, [adopted])).toEqual([]);
  });

  it('answers anew for a list that grew in place, and a caller changing an answer changes no later one', () => {
    const pods = [pod('running-ready')];
    const first = podsControlledBy(newReplicaSet, pods);
    expect(first).toHaveLength(1);
    first.pop();
    expect(podsControlledBy(newReplicaSet, pods)).toHaveLength(1);
    pods.push(pod('image-pull-backoff'));
    expect(podsControlledBy(newReplicaSet, pods)).toHaveLength(2);
  });
});

describe('objectsControlledBy', () => {
  const foreign = replicaSet('progressing-new');
  foreign.metadata.name = 'other-abc';
  foreign.metadata.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', uid: 'other', controller: true },
  ];
  const objects = [web, newReplicaSet, pod('running-ready'), foreign, oldReplicaSet] as unknown as KubeObject[];
  const snapshot = { objects, pods: [] };

  it("gives a Deployment's own ReplicaSets, not another's nor its pods", () => {
    expect(
      objectsControlledBy<KubeObject>(web, snapshot, 'apps/v1', 'ReplicaSet').map((each) => each.metadata.name),
    ).toEqual(['web-7d9c6b8f4d', oldReplicaSet.metadata.name]);
    expect(objectsControlledBy(web, snapshot, 'v1', 'Pod')).toEqual([]);
  });
});

describe('someone else’s change, judged once per copy of the object', () => {
  it('judges the same copy against each expectation of its own', () => {
    const live = deployment('complete');
    const look = { deployment: live, replicaSets: [replicaSet('complete-new')], pods: [pod('running-ready')] };
    const moment = { now: 1000, startedAt: 0, timeoutMs: 300_000 };
    // kguard applied exactly what is there: healthy.
    expect(verdictFor(look, expectationOf(live), new Map(), moment).state).toBe('healthy');
    // kguard applied another image, and the live copy holds someone else's: their change wins.
    const applied = structuredClone(live);
    const [container] = applied.spec?.template?.spec?.containers ?? [];
    if (!container) throw new Error('the fixture has a container');
    container.image = 'nginx:9.9';
    const ours = [['spec', 'template', 'spec', 'containers', 0, 'image']];
    expect(verdictFor(look, { ...expectationOf(applied), ours }, new Map(), moment).state).toBe('conflict');
    // And the first expectation, asked again of the same copy, still says healthy.
    expect(verdictFor(look, expectationOf(live), new Map(), moment).state).toBe('healthy');
  });
});

describe('findObject', () => {
  it('finds the object by kind, group (any version), namespace and name, and nothing for another', () => {
    const objects = [newReplicaSet, web] as unknown as KubeObject[];
    const snapshot = { objects, pods: [] };
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: web.metadata.namespace ?? '', name: 'web' };
    expect(findObject(snapshot, ref)).toBe(web);
    expect(findObject(snapshot, { ...ref, apiVersion: 'apps/v1beta2' })).toBe(web);
    expect(findObject(snapshot, { ...ref, apiVersion: 'extensions/v1beta1' })).toBeUndefined();
    expect(findObject(snapshot, { ...ref, namespace: 'elsewhere' })).toBeUndefined();
    expect(findObject(snapshot, { ...ref, kind: 'StatefulSet' })).toBeUndefined();
  });

  it('finds a cluster-scoped object by the empty namespace', () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } as KubeObject;
    const snapshot = { objects: [namespace], pods: [] };
    expect(findObject(snapshot, { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop' })).toBe(namespace);
  });
});

describe('ownedCopies', () => {
  it('gives the object, then what it controls and what that controls, and walks an ownerReference loop once', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
    const pods = [pod('running-ready'), podOf('other', 'other-1')];
    const objects = [web, newReplicaSet, oldReplicaSet, ...pods] as unknown as KubeObject[];
    const names = (copies: KubeObject[]) => copies.map((copy) => copy.metadata.name);
    expect(names(ownedCopies({ objects, pods }, ref))).toEqual([
      'web',
      'web-7d9c6b8f4d',
      oldReplicaSet.metadata.name,
      'web-7d9c6b8f4d-x5k2p',
    ]);
    // Written by hand: the Deployment is controlled by its own ReplicaSet.
    const looped = structuredClone(web);
    looped.metadata.ownerReferences = [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-7d9c6b8f4d',
        uid: newReplicaSet.metadata.uid!,
        controller: true,
      },
    ];
    const loop = [looped, newReplicaSet] as unknown as KubeObject[];
    expect(names(ownedCopies({ objects: loop, pods: [] }, ref))).toEqual(['web', 'web-7d9c6b8f4d', 'web']);
    expect(ownedCopies({ objects: loop, pods: [] }, { ...ref, name: 'api' })).toEqual([]);
  });
});
