import { describe, expect, it } from 'vitest';
import { createSimClock } from './clock.js';
import { ApiError, Store } from './store.js';
import type { KubeObject, StoreEvent } from './types.js';

function deployment(name: string, image = 'nginx:1.25', labels: Record<string, string> = { app: name }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name, image }] } },
    },
  };
}

function pod(name: string, labels: Record<string, string>, namespace = 'default'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  };
}

function newStore(): Store {
  return new Store(createSimClock());
}

function errorOf(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('Store', () => {
  it('assigns uid, creationTimestamp, resourceVersion, generation and the default namespace on create', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.metadata.resourceVersion).toBe('1');
    expect(created.metadata.generation).toBe(1);
    expect(created.metadata.namespace).toBe('default');
    expect(store.currentResourceVersion()).toBe(1);
  });

  it('gives pods no generation and cluster-scoped kinds no namespace', () => {
    const store = newStore();
    expect(store.create(pod('p', {})).metadata.generation).toBeUndefined();
    const namespace = store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', namespace: 'x' } });
    expect(namespace.metadata.namespace).toBeUndefined();
    expect(store.get('Namespace', '', 'shop')?.metadata.name).toBe('shop');
  });

  it('names objects from generateName with a 5-character suffix', () => {
    const created = newStore().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: '', generateName: 'web-abc-' },
    });
    expect(created.metadata.name).toMatch(/^web-abc-[a-z0-9]{5}$/);
  });

  it('refuses to create an existing object with 409 AlreadyExists', () => {
    const store = newStore();
    store.create(deployment('web'));
    const error = errorOf(() => store.create(deployment('web')));
    expect(error.code).toBe(409);
    expect(error.reason).toBe('AlreadyExists');
    expect(error.message).toBe('deployments.apps "web" already exists');
  });

  it('hands out deep copies so callers cannot mutate stored state', () => {
    const store = newStore();
    const input = deployment('web');
    const created = store.create(input);
    input.spec.replicas = 5;
    created.spec.replicas = 6;
    store.get('Deployment', 'default', 'web')!.spec.replicas = 7;
    expect(store.get('Deployment', 'default', 'web')!.spec.replicas).toBe(1);
  });

  it('bumps generation on spec changes but not on metadata-only changes', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    created.metadata.annotations = { note: 'x' };
    const annotated = store.update(created);
    expect(annotated.metadata.generation).toBe(1);
    expect(annotated.metadata.resourceVersion).toBe('2');
    annotated.spec.template.spec.containers[0].image = 'nginx:1.26';
    const changed = store.update(annotated);
    expect(changed.metadata.generation).toBe(2);
    expect(changed.metadata.resourceVersion).toBe('3');
  });

  it('treats an update that changes nothing as a no-op: same resourceVersion, no event', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    const events: StoreEvent[] = [];
    store.subscribe((event) => events.push(event));
    const again = store.update({ ...created, metadata: { ...created.metadata, resourceVersion: undefined } });
    expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(events).toEqual([]);
  });

  it('rejects an update with a stale resourceVersion with 409 Conflict', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    store.update({ ...created, spec: { ...created.spec, replicas: 2 } });
    const error = errorOf(() => store.update({ ...created, spec: { ...created.spec, replicas: 3 } }));
    expect(error.code).toBe(409);
    expect(error.reason).toBe('Conflict');
  });

  it('answers 404 NotFound with the plural resource in details when updating a missing object', () => {
    const error = errorOf(() => newStore().update(deployment('ghost')));
    expect(error.code).toBe(404);
    expect(error.message).toBe('deployments.apps "ghost" not found');
    expect(error.details).toMatchObject({ name: 'ghost', group: 'apps', kind: 'deployments' });
  });

  it('keeps uid and creationTimestamp when an update tries to change them', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    const updated = store.update({
      ...created,
      metadata: { ...created.metadata, uid: 'forged', creationTimestamp: 'x', labels: { a: 'b' } },
    });
    expect(updated.metadata.uid).toBe(created.metadata.uid);
    expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
  });

  it('changes only status through updateStatus, without bumping generation', () => {
    const store = newStore();
    const created = store.create(deployment('web'));
    const updated = store.updateStatus({
      ...created,
      spec: { replicas: 9 },
      status: { replicas: 1, observedGeneration: 1 },
    });
    expect(updated.spec.replicas).toBe(1);
    expect(updated.status).toEqual({ replicas: 1, observedGeneration: 1 });
    expect(updated.metadata.generation).toBe(1);
    expect(updated.metadata.resourceVersion).toBe('2');
  });

  it('lists by namespace and by equality and set-based label selectors', () => {
    const store = newStore();
    store.create(pod('a', { app: 'web', tier: 'front' }));
    store.create(pod('b', { app: 'web', tier: 'db' }));
    store.create(pod('c', { app: 'api' }));
    store.create(pod('d', { app: 'web' }, 'shop'));
    const names = (selector?: string, namespace?: string): string[] =>
      store.list('Pod', namespace, selector).map((obj) => obj.metadata.name);
    expect(names()).toEqual(['a', 'b', 'c', 'd']);
    expect(names(undefined, 'shop')).toEqual(['d']);
    expect(names('app=web', 'default')).toEqual(['a', 'b']);
    expect(names('app==web,tier!=db', 'default')).toEqual(['a']);
    expect(names('tier in (db, front)')).toEqual(['a', 'b']);
    expect(names('app notin (web)')).toEqual(['c']);
    expect(names('tier')).toEqual(['a', 'b']);
    expect(names('!tier')).toEqual(['c', 'd']);
  });

  it('rejects a malformed label selector with 400', () => {
    expect(errorOf(() => newStore().list('Pod', undefined, 'a in b')).code).toBe(400);
  });

  it('feeds ADDED, MODIFIED and DELETED events in resourceVersion order', () => {
    const store = newStore();
    const events: StoreEvent[] = [];
    const unsubscribe = store.subscribe((event) => events.push(event));
    const created = store.create(deployment('web'));
    store.update({ ...created, spec: { ...created.spec, replicas: 2 } });
    store.delete('Deployment', 'default', 'web');
    unsubscribe();
    store.create(deployment('later'));
    expect(events.map((event) => [event.type, event.resourceVersion])).toEqual([
      ['ADDED', 1],
      ['MODIFIED', 2],
      ['DELETED', 3],
    ]);
    expect(events[2]!.object.metadata.resourceVersion).toBe('3');
  });

  it('cascades deletion to dependents named by ownerReferences uid, transitively', () => {
    const store = newStore();
    const owner = store.create(deployment('web'));
    const reference = (obj: KubeObject) => [
      { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid!, controller: true },
    ];
    const replicaSet = store.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-1', ownerReferences: reference(owner) },
      spec: {},
    });
    store.create({ ...pod('web-1-a', {}), metadata: { name: 'web-1-a', ownerReferences: reference(replicaSet) } });
    store.create(pod('unrelated', {}));
    const deleted = store.delete('Deployment', 'default', 'web');
    expect(deleted?.metadata.name).toBe('web');
    expect(store.list('ReplicaSet')).toEqual([]);
    expect(store.list('Pod').map((obj) => obj.metadata.name)).toEqual(['unrelated']);
  });

  it('deletes the contents of a deleted namespace', () => {
    const store = newStore();
    store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    store.create(pod('a', {}, 'shop'));
    store.create(pod('b', {}));
    store.delete('Namespace', '', 'shop');
    expect(store.list('Pod').map((obj) => obj.metadata.name)).toEqual(['b']);
  });

  it('returns undefined when deleting a missing object', () => {
    expect(newStore().delete('Pod', 'default', 'nope')).toBeUndefined();
  });
});
