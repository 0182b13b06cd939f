// An API server for Leases only, faked at kubectl's interface, shared by any number of runs: each
// run gets its own client (the capabilities journal/leases.ts uses). Creates, lists, PUTs and
// DELETEs are linearizable as etcd's are, with the real preconditions (AlreadyExists, a 409 on a
// stale resourceVersion or uid, NotFound for a namespace that does not exist). Each call takes a
// random number of event-loop turns, so concurrent runs interleave differently on every seed.
import type { Kubectl, WriteResult } from '../../src/kubectl/types.js';
import type { KubeObject } from '../../src/objects/model.js';

export type LeaseClient = Pick<
  Kubectl,
  'create' | 'replace' | 'deleteExact' | 'getObject' | 'listCollection' | 'commandLine' | 'stopCancelling'
>;

export interface LeaseCall {
  client: string;
  verb: 'create' | 'replace' | 'delete' | 'get' | 'list';
  namespace: string;
  name?: string;
}

/** Lets a test refuse or fail a call: return a WriteResult failure, or undefined to let it through. */
export type Fault = (call: LeaseCall) => Extract<WriteResult, { ok: false }> | undefined;

export class LeaseApi {
  readonly leases = new Map<string, KubeObject>();
  readonly calls: LeaseCall[] = [];
  readonly namespaces = new Set(['default', 'shop', 'web']);
  fault: Fault | undefined;
  /** Holds a call until the returned promise settles: to set up one interleaving exactly. */
  gate: ((call: LeaseCall) => Promise<void> | undefined) | undefined;
  private version = 1000;
  private uids = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** The Leases of a namespace now, by name. */
  inNamespace(namespace: string): KubeObject[] {
    return [...this.leases.values()]
      .filter((lease) => lease.metadata.namespace === namespace)
      .map((lease) => structuredClone(lease));
  }

  /** Someone else writes a Lease (a person, another tool, a run that took it over). */
  write(lease: KubeObject): KubeObject {
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const stored = structuredClone(lease);
    stored.metadata.uid ??= this.leases.get(key)?.metadata.uid ?? `uid-${(this.uids += 1)}`;
    stored.metadata.resourceVersion = String((this.version += 1));
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  client(name: string): LeaseClient {
    const api = this;
    const call = async (verb: LeaseCall['verb'], namespace: string, leaseName?: string) => {
      await api.turns();
      const made: LeaseCall = { client: name, verb, namespace, ...(leaseName ? { name: leaseName } : {}) };
      await api.gate?.(made);
      api.calls.push(made);
      return api.fault?.(made);
    };
    return {
      commandLine: (args) => ['kubectl', ...args].join(' '),
      stopCancelling: () => undefined,
      async create(object, collectionPath) {
        const namespace = namespaceOf(collectionPath);
        const failed = await call('create', namespace, object.metadata.name);
        if (failed) return failed;
        if (!api.namespaces.has(namespace))
          return failure(`namespaces "${namespace}" not found`, { notFound: true, reason: 'NotFound' });
        if (api.leases.has(`${namespace}/${object.metadata.name}`))
          return failure(`leases.coordination.k8s.io "${object.metadata.name}" already exists`, {
            reason: 'AlreadyExists',
          });
        return {
          ok: true,
          object: api.write({ ...object, metadata: { ...object.metadata, namespace, uid: undefined } }),
        };
      },
      async replace(object, path) {
        const [namespace, leaseName] = namedOf(path);
        const failed = await call('replace', namespace, leaseName);
        if (failed) return failed;
        const stored = api.leases.get(`${namespace}/${leaseName}`);
        if (!stored)
          return failure(`leases.coordination.k8s.io "${leaseName}" not found`, { notFound: true, reason: 'NotFound' });
        if (object.metadata.resourceVersion !== stored.metadata.resourceVersion)
          return failure('the object has been modified', { conflict: true, reason: 'Conflict' });
        return {
          ok: true,
          object: api.write({ ...object, metadata: { ...object.metadata, uid: stored.metadata.uid } }),
        };
      },
      async deleteExact(path, preconditions) {
        const [namespace, leaseName] = namedOf(path);
        const failed = await call('delete', namespace, leaseName);
        if (failed) return failed;
        const stored = api.leases.get(`${namespace}/${leaseName}`);
        if (!stored)
          return failure(`leases.coordination.k8s.io "${leaseName}" not found`, { notFound: true, reason: 'NotFound' });
        const moved =
          preconditions.uid !== stored.metadata.uid ||
          (preconditions.resourceVersion !== undefined &&
            preconditions.resourceVersion !== stored.metadata.resourceVersion);
        if (moved) return failure('Precondition failed', { conflict: true, reason: 'Conflict' });
        api.leases.delete(`${namespace}/${leaseName}`);
        return { ok: true };
      },
      async getObject(_type, namespace, leaseName) {
        await call('get', namespace, leaseName);
        const stored = api.leases.get(`${namespace}/${leaseName}`);
        return stored && structuredClone(stored);
      },
      async listCollection(query) {
        const failed = await call('list', query.namespace);
        if (failed) return { ok: false, message: failed.message, transient: false };
        const wanted = (query.labelSelector ?? '')
          .split(',')
          .filter(Boolean)
          .map((term) => term.split('='));
        const items = api
          .inNamespace(query.namespace)
          .filter((lease) => wanted.every(([key, value]) => lease.metadata.labels?.[key ?? ''] === value));
        return { ok: true, items, resourceVersion: String(api.version) };
      },
    };
  }

  /** 0 to 3 event-loop turns: what a kubectl process takes, without wall time. */
  private async turns(): Promise<void> {
    const count = Math.floor(this.random() * 4);
    for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  }
}

export function failure(
  message: string,
  options: { conflict?: boolean; notFound?: boolean; reason: string },
): Extract<WriteResult, { ok: false }> {
  return {
    ok: false,
    conflict: options.conflict ?? false,
    notFound: options.notFound ?? false,
    message,
    stderr: `Error from server (${options.reason}): ${message}`,
  };
}

/** A small seeded generator (mulberry32): a failing interleaving can be run again. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function namespaceOf(collectionPath: string): string {
  return decodeURIComponent(/\/namespaces\/([^/]+)\/leases/.exec(collectionPath)?.[1] ?? '');
}

function namedOf(path: string): [string, string] {
  const match = /\/namespaces\/([^/]+)\/leases\/([^/?]+)/.exec(path);
  return [decodeURIComponent(match?.[1] ?? ''), decodeURIComponent(match?.[2] ?? '')];
}
