// A Kubectl faked at the interface the restore uses, over an in-memory store, that records when
// each call starts and ends: the unit tests of executeRestore read the order of the writes, how
// many ran at once and which reads were made from that log. Every call takes a few turns of the
// event loop, so calls started together overlap as kubectl processes do.
import type { RestoreDeps } from '../../src/restore/context.js';
import type { KubeObject, ObjectRef } from '../../src/objects/model.js';
import type { WriteResult } from '../../src/kubectl/types.js';

export interface Call {
  method: 'listObjects' | 'getObject' | 'replace' | 'create' | 'deleteExact' | 'apiResources';
  /** The object's name, or the namespace of a list. */
  target: string;
  start: number;
  end: number;
}

export interface RestoreCluster {
  kubectl: RestoreDeps['kubectl'];
  live: Map<string, KubeObject>;
  calls: Call[];
  /** The most calls that were running at once. */
  peak(method?: Call['method']): number;
  /** Runs right before a write of the named object reaches the store, with how many came before it. */
  beforeWrite(name: string, change: (object: KubeObject, writesBefore: number) => void): void;
  /** Makes the lists of a namespace fail. */
  failListsOf(namespace: string): void;
  /**
   * The next `count` reads and writes fail with kubectl's `stderr` (a read throws, a write answers
   * it); with `landed`, a failed write of `name` is stored all the same (answered 504 after commit).
   */
  failNext(count: number, stderr: string, options?: { landed?: string }): void;
}

const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const keyOfObject = (object: KubeObject) => keyOf(object.kind, object.metadata.namespace ?? '', object.metadata.name);

const RESOURCES: Record<string, { kind: string; namespaced: boolean }> = {
  configmaps: { kind: 'ConfigMap', namespaced: true },
  services: { kind: 'Service', namespaced: true },
  deployments: { kind: 'Deployment', namespaced: true },
  namespaces: { kind: 'Namespace', namespaced: false },
};

export function restoreCluster(initial: readonly KubeObject[]): RestoreCluster {
  const live = new Map(initial.map((object) => [keyOfObject(object), structuredClone(object)]));
  const calls: Call[] = [];
  const hooks = new Map<string, (object: KubeObject, writesBefore: number) => void>();
  const writes = new Map<string, number>();
  const failingLists = new Set<string>();
  let failing = { count: 0, stderr: '', landed: undefined as string | undefined };
  /** The failure of this call, if the outage is not over. */
  const outage = (): string | undefined => {
    if (failing.count <= 0) return undefined;
    failing.count -= 1;
    return failing.stderr;
  };
  const unreachable = (stderr: string): WriteResult => ({
    ok: false,
    conflict: false,
    notFound: false,
    message: stderr.split('\n').at(-1)!,
    stderr,
  });
  let clock = 0;
  let version = 1000;

  /** A call: starts now, lets the event loop turn a few times (others start meanwhile), then ends. */
  async function call<T>(method: Call['method'], target: string, work: () => T): Promise<T> {
    const record: Call = { method, target, start: (clock += 1), end: Number.POSITIVE_INFINITY };
    calls.push(record);
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    try {
      return work();
    } finally {
      record.end = clock += 1;
    }
  }

  const conflict = (message: string): WriteResult => ({
    ok: false,
    conflict: true,
    notFound: false,
    message,
    stderr: '',
  });

  /** What the API server does with a write: the writer owns what it changed (apimachinery fieldmanager). */
  function store(object: KubeObject, current: KubeObject | undefined): KubeObject {
    const stored = structuredClone(object);
    const contentMoved =
      current !== undefined &&
      JSON.stringify(withoutServerFields(current)) !== JSON.stringify(withoutServerFields(object));
    if (contentMoved)
      stored.metadata.managedFields = [
        ...(object.metadata.managedFields ?? []),
        { manager: 'kguard-restore', operation: 'Update' },
      ];
    stored.metadata.resourceVersion = String((version += 1));
    stored.metadata.uid ??= current?.metadata.uid ?? `uid-${version}`;
    live.set(keyOfObject(stored), stored);
    return structuredClone(stored);
  }

  function hook(object: KubeObject): void {
    const count = writes.get(object.metadata.name) ?? 0;
    writes.set(object.metadata.name, count + 1);
    hooks.get(object.metadata.name)?.(object, count);
  }

  const kubectl: RestoreDeps['kubectl'] = {
    commandLine: (args) => ['kubectl', ...args].join(' '),
    apiResources: () =>
      call(
        'apiResources',
        '',
        () =>
          new Map([
            ['/ConfigMap', { name: 'configmaps', namespaced: true }],
            ['/Service', { name: 'services', namespaced: true }],
            ['apps/Deployment', { name: 'deployments', namespaced: true }],
            ['/Namespace', { name: 'namespaces', namespaced: false }],
          ]),
      ),
    listObjects: (namespace, types) =>
      call('listObjects', namespace, () => {
        if (failingLists.has(namespace))
          throw new Error(`kubectl could not read ${types.join(', ')} in namespace ${namespace}`);
        const kinds = new Set(types.map((type) => type.split('.')[0]));
        return [...live.values()]
          .filter((object) => (object.metadata.namespace ?? '') === namespace && kinds.has(object.kind))
          .map((object) => structuredClone(object));
      }),
    getObject: (type, namespace, name) =>
      call('getObject', name, () => {
        const down = outage();
        if (down) throw Object.assign(new Error(down.split('\n').at(-1)), { stderr: down });
        const found = live.get(keyOf(type.split('.')[0]!, namespace, name));
        return found && structuredClone(found);
      }),
    replace: (object) =>
      call('replace', object.metadata.name, () => {
        const down = outage();
        if (down && failing.landed !== object.metadata.name) return unreachable(down);
        hook(object);
        const current = live.get(keyOfObject(object));
        if (down && current?.metadata.resourceVersion === object.metadata.resourceVersion) {
          store(object, current);
          return unreachable(down);
        }
        if (!current) return { ok: false, conflict: false, notFound: true, message: 'not found', stderr: '' };
        if (object.metadata.resourceVersion !== current.metadata.resourceVersion)
          return conflict(
            'the object has been modified; please apply your changes to the latest version and try again',
          );
        return { ok: true, object: store(object, current) };
      }),
    create: (object) =>
      call('create', object.metadata.name, () => {
        hook(object);
        if (live.has(keyOfObject(object)))
          return { ok: false, conflict: true, notFound: false, message: 'already exists', stderr: '' };
        return { ok: true, object: store(object, undefined) };
      }),
    deleteExact: (path, preconditions) =>
      call('deleteExact', path.split('/').at(-1)!, () => {
        const { kind, namespace, name } = parsePath(path);
        const current = live.get(keyOf(kind, namespace, name));
        if (!current) return { ok: false, conflict: false, notFound: true, message: 'not found', stderr: '' };
        if (current.metadata.uid !== preconditions.uid) return conflict('Precondition failed: UID in precondition');
        if (
          preconditions.resourceVersion !== undefined &&
          current.metadata.resourceVersion !== preconditions.resourceVersion
        )
          return conflict('the ResourceVersion in the precondition does not match');
        live.delete(keyOf(kind, namespace, name));
        return { ok: true };
      }),
    workloadSnapshot: async () => {
      throw new Error('the restore of these kinds reads no workload state');
    },
  };

  return {
    kubectl,
    live,
    calls,
    peak(method) {
      const chosen = calls.filter((entry) => method === undefined || entry.method === method);
      let peak = 0;
      for (const entry of chosen)
        peak = Math.max(peak, chosen.filter((other) => other.start <= entry.start && other.end > entry.start).length);
      return peak;
    },
    beforeWrite: (name, change) => hooks.set(name, change),
    failListsOf: (namespace) => failingLists.add(namespace),
    failNext: (count, stderr, options = {}) => {
      failing = { count, stderr, landed: options.landed };
    },
  };
}

function withoutServerFields(object: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _owners, uid: _uid, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function parsePath(path: string): { kind: string; namespace: string; name: string } {
  const parts = path.split('?')[0]!.split('/');
  const name = decodeURIComponent(parts.at(-1)!);
  const resource = RESOURCES[parts.at(-2)!];
  if (!resource) throw new Error(`the fake does not know the path ${path}`);
  const namespaceAt = parts.indexOf('namespaces');
  const namespace = resource.namespaced && namespaceAt >= 0 ? decodeURIComponent(parts[namespaceAt + 1]!) : '';
  return { kind: resource.kind, namespace, name };
}

export function refOfObject(object: KubeObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name,
  };
}
