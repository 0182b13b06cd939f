// A Kubectl faked at its interface, over an in-memory store: the apply writes what it planned,
// reads return the live copies, restore writes land in the store. For unit tests of runApply;
// the end-to-end tests drive the real kubectl against kube-sim instead.
import type { AppliedObject } from '../../src/model/result.js';
import { snapshotOf } from '../../src/kubectl/resources.js';
import type { Kubectl, WriteResult } from '../../src/kubectl/types.js';
import { objectKey, refOf, type KubeObject } from '../../src/objects/model.js';

export interface FakeCluster {
  kubectl: Kubectl;
  live: Map<string, KubeObject>;
  calls: string[];
  /** Makes a named capability throw from its `after`-th call on (1 = the first call). */
  failFrom(method: keyof Kubectl, after: number, error?: Error): void;
}

export function fakeCluster(
  initial: readonly KubeObject[],
  planned: readonly KubeObject[],
  options: { warnings?: string } = {},
): FakeCluster {
  const live = new Map(initial.map((object) => [objectKey(refOf(object)), structuredClone(object)]));
  const calls: string[] = [];
  const failures = new Map<string, { after: number; error: Error }>();
  const counts = new Map<string, number>();
  let version = 100;
  let uid = 0;
  const guard = (method: string) => {
    calls.push(method);
    const count = (counts.get(method) ?? 0) + 1;
    counts.set(method, count);
    const failure = failures.get(method);
    if (failure && count >= failure.after) throw failure.error;
  };
  const store = (object: KubeObject): KubeObject => {
    version += 1;
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(version);
    copy.metadata.uid ??= `uid-${(uid += 1)}`;
    live.set(objectKey(refOf(copy)), copy);
    return structuredClone(copy);
  };
  const inNamespace = (namespace: string) =>
    [...live.values()]
      .filter((object) => (object.metadata.namespace ?? '') === namespace)
      .map((object) => structuredClone(object));
  const ok = (object?: KubeObject): WriteResult => ({ ok: true, object });
  let spawned = 0;
  const kubectl: Kubectl = {
    get spawned() {
      return spawned;
    },
    peakProcesses: 1,
    commandLine: (args) => ['kubectl', ...args].join(' '),
    cancelReadsOn: () => undefined,
    stopCancelling: () => undefined,
    target: async () => undefined,
    reviewAccess: async (questions) => questions.map((question) => ({ ...question, allowed: true })),
    pinTarget: async () => undefined,
    openChannel: () => true,
    kustomize: async () => '',
    dryRun: async () => {
      guard('dryRun');
      spawned += 1;
      return {
        ok: true,
        objects: planned.map((object) => structuredClone(object)),
        pruned: [],
        warnings: options.warnings ?? '',
      };
    },
    dryRunActions: async () => [],
    readApplied: async () => {
      guard('readApplied');
      spawned += 1;
      return planned.flatMap((object) => {
        const current = live.get(objectKey(refOf(object)));
        return current ? [structuredClone(current)] : [];
      });
    },
    diff: async () => new Map(),
    // Released, it is the apply of whatever it was called on (a failing Proxy around this fake included).
    holdApply(this: Kubectl, request) {
      return { release: () => this.apply(request), cancel: () => undefined, ended: Promise.resolve() };
    },
    apply: async () => {
      guard('apply');
      spawned += 1;
      return planned.map((object): AppliedObject => {
        const existed = live.has(objectKey(refOf(object)));
        const current = live.get(objectKey(refOf(object)));
        store({ ...object, metadata: { ...object.metadata, uid: current?.metadata.uid } });
        return {
          resource: object.kind.toLowerCase(),
          name: object.metadata.name,
          action: existed ? 'configured' : 'created',
        };
      });
    },
    listObjects: async (namespace) => {
      guard('listObjects');
      spawned += 1;
      return inNamespace(namespace);
    },
    getObject: async (_type, namespace, name) => {
      guard('getObject');
      spawned += 1;
      return inNamespace(namespace).find((object) => object.metadata.name === name);
    },
    workloadSnapshot: async (namespace) => {
      guard('workloadSnapshot');
      spawned += 1;
      return snapshotOf(inNamespace(namespace));
    },
    events: async () => {
      guard('events');
      return [];
    },
    logs: async () => {
      guard('logs');
      return { ok: true, text: 'Error: connect ECONNREFUSED 10.0.0.5:5432\n' };
    },
    apiResources: async () => {
      guard('apiResources');
      return new Map([
        ['/ConfigMap', { name: 'configmaps', namespaced: true }],
        ['/Pod', { name: 'pods', namespaced: true }],
      ]);
    },
    refreshDiscovery: () => undefined,
    listLabelled: async () => {
      guard('listLabelled');
      return [];
    },
    replace: async (object) => {
      guard('replace');
      spawned += 1;
      const current = live.get(objectKey(refOf(object)));
      if (
        current &&
        object.metadata.resourceVersion &&
        object.metadata.resourceVersion !== current.metadata.resourceVersion
      ) {
        return { ok: false, conflict: true, notFound: false, message: 'the object has been modified', stderr: '' };
      }
      // A PUT keeps the object's uid, as the API server does.
      return ok(store({ ...object, metadata: { ...object.metadata, uid: current?.metadata.uid } }));
    },
    create: async (object) => {
      guard('create');
      spawned += 1;
      return ok(store(object));
    },
    deleteExact: async (path, preconditions) => {
      guard('deleteExact');
      spawned += 1;
      const found = [...live.entries()].find(([, object]) => object.metadata.uid === preconditions.uid);
      if (!found) return { ok: false, conflict: false, notFound: true, message: `${path} not found`, stderr: '' };
      live.delete(found[0]);
      return ok();
    },
    // kguard's Leases are listed (journal/leases.ts); every other collection is read by polls.
    listCollection: async (query) => {
      if (query.type !== 'leases.coordination.k8s.io')
        return { ok: false, message: 'not watched in this fake', transient: false };
      guard('listCollection');
      spawned += 1;
      const wanted = (query.labelSelector ?? '')
        .split(',')
        .filter(Boolean)
        .map((term) => term.split('='));
      const items = inNamespace(query.namespace).filter(
        (object) =>
          object.kind === 'Lease' && wanted.every(([key, value]) => object.metadata.labels?.[key ?? ''] === value),
      );
      return { ok: true, items, resourceVersion: String(version) };
    },
    watchCollection: () => ({
      done: Promise.resolve({ ended: false as const, message: 'not watched in this fake', transient: false }),
      stop: () => undefined,
    }),
  };
  return {
    kubectl,
    live,
    calls,
    failFrom: (method, after, error = new TypeError(`${String(method)} broke`)) =>
      failures.set(String(method), { after, error }),
  };
}
