// executeRestore on a Kubectl faked at its interface (restore-cluster.ts): phases in order, the
// objects of a phase at once, one list per namespace before a phase's writes, and someone else's
// change still winning when writes interleave.
import { describe, expect, it } from 'vitest';
import { changeOf } from '../../src/objects/compare.js';
import type { KubeObject } from '../../src/objects/model.js';
import { planRestore, type PlannedObject } from '../../src/restore/plan.js';
import { executeRestore } from '../../src/restore/restore.js';
import { FakeClock, RecordingReporter } from '../fakes.js';
import { refOfObject, restoreCluster, type Call, type RestoreCluster } from './restore-cluster.js';

const OWNERS = [
  {
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  },
];
let uid = 0;

function configMap(name: string, value: string, namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: `uid-${name}-${namespace}`, resourceVersion: '1', managedFields: OWNERS },
    data: { value },
  };
}

function service(name: string, port: number, namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, uid: `uid-${name}-${namespace}`, resourceVersion: '1', managedFields: OWNERS },
    spec: { ports: [{ port }] },
  };
}

function deployment(name: string, image: string, namespace = 'shop'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, uid: `uid-${name}-${namespace}`, resourceVersion: '1', managedFields: OWNERS },
    spec: { replicas: 1, template: { spec: { containers: [{ name, image }] } } },
  };
}

function namespaceObject(name: string, team: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, uid: `uid-ns-${name}`, resourceVersion: '1', labels: { team }, managedFields: OWNERS },
  };
}

/** The object as the apply left it: `change` applied, a new resourceVersion. */
function applied(before: KubeObject, change: (object: KubeObject) => void): KubeObject {
  const after = structuredClone(before);
  change(after);
  after.metadata.resourceVersion = String((uid += 1) + 100);
  return after;
}

/** A cluster holding the applied objects, and what the plan undoes: every object failed (the apply is one unit). */
function scenario(changes: Array<{ before?: KubeObject; after: KubeObject }>): {
  cluster: RestoreCluster;
  planned: PlannedObject[];
} {
  const cluster = restoreCluster(changes.map(({ after }) => after));
  const planned = changes.map(
    ({ before, after }): PlannedObject => ({
      ref: refOfObject(after),
      change: changeOf(before, after),
      verdict: 'failed',
    }),
  );
  return { cluster, planned };
}

async function restore(cluster: RestoreCluster, planned: PlannedObject[]) {
  const reporter = new RecordingReporter();
  const steps = planRestore(planned, 'all', { keepCreated: false });
  const results = await executeRestore(
    steps,
    { deadlineMs: 60_000 },
    {
      kubectl: cluster.kubectl,
      clock: new FakeClock(),
      reporter,
      keepCopy: async (ref) => `/private/${ref.kind}-${ref.name}.json`,
    },
  );
  return { results, reporter, steps };
}

const changedConfig = (before: KubeObject) =>
  applied(before, (object) => ((object as unknown as { data: Record<string, string> }).data = { value: 'two' }));
const changedService = (before: KubeObject) =>
  applied(
    before,
    (object) => ((object as unknown as { spec: { ports: Array<{ port: number }> } }).spec.ports = [{ port: 8080 }]),
  );
const changedImage = (before: KubeObject) =>
  applied(
    before,
    (object) =>
      ((object as unknown as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template
        .spec.containers[0]!.image = 'xxxxxnginx:1.17'),
  );

const writesOf = (calls: Call[], names: (name: string) => boolean) =>
  calls.filter((call) => (call.method === 'replace' || call.method === 'create') && names(call.target));

/** Every object the plan put back is equal to its pre-apply copy, field owners included. */
function expectRestored(cluster: RestoreCluster, befores: readonly KubeObject[]): void {
  for (const before of befores) {
    const live = cluster.live.get(`${before.kind}/${before.metadata.namespace ?? ''}/${before.metadata.name}`);
    const { resourceVersion: _rv, ...metadata } = live!.metadata;
    const { resourceVersion: _was, ...wanted } = before.metadata;
    expect({ ...live, metadata }).toEqual({ ...before, metadata: wanted });
  }
}

describe('executeRestore, in phases', () => {
  it('starts no workload write before every configuration write has finished, and deletes what the apply created last', async () => {
    const namespace = namespaceObject('shop', 'one');
    const configs = [configMap('config-0', 'one'), configMap('config-1', 'one'), service('front', 80)];
    const workloads = [deployment('web', 'nginx:1.25'), deployment('api', 'nginx:1.25')];
    const created = [configMap('fresh-config', 'new'), deployment('fresh', 'nginx:1.26')];
    const { cluster, planned } = scenario([
      { before: namespace, after: applied(namespace, (object) => (object.metadata.labels = { team: 'two' })) },
      ...configs.map((before) => ({
        before,
        after: before.kind === 'Service' ? changedService(before) : changedConfig(before),
      })),
      ...workloads.map((before) => ({ before, after: changedImage(before) })),
      ...created.map((after) => ({ after })),
    ]);
    const { results } = await restore(cluster, planned);

    const byName = (names: string[]) => (name: string) => names.includes(name);
    const namespaceWrites = writesOf(cluster.calls, byName(['shop']));
    const configWrites = writesOf(cluster.calls, byName(['config-0', 'config-1', 'front']));
    const workloadWrites = writesOf(cluster.calls, byName(['web', 'api']));
    const deletes = cluster.calls.filter((call) => call.method === 'deleteExact');

    // Each put back twice: its values, then its field owners.
    expect(configWrites).toHaveLength(6);
    expect(workloadWrites).toHaveLength(4);
    expect(Math.max(...namespaceWrites.map((call) => call.end))).toBeLessThan(
      Math.min(...configWrites.map((call) => call.start)),
    );
    expect(Math.max(...configWrites.map((call) => call.end))).toBeLessThan(
      Math.min(...workloadWrites.map((call) => call.start)),
    );
    expect(deletes.map((call) => call.target).sort()).toEqual(['fresh', 'fresh-config']);
    expect(Math.max(...workloadWrites.map((call) => call.end))).toBeLessThan(
      Math.min(...deletes.map((call) => call.start)),
    );
    // The created workload goes before the configuration it may read.
    expect(deletes.find((call) => call.target === 'fresh')!.end).toBeLessThan(
      deletes.find((call) => call.target === 'fresh-config')!.start,
    );

    expect([...results.values()].map((result) => result.status).sort()).toEqual([
      'deleted',
      'deleted',
      'restored',
      'restored',
      'restored',
      'restored',
      'restored',
      'restored',
    ]);
    expectRestored(cluster, [namespace, ...configs, ...workloads]);
    expect(cluster.live.has('ConfigMap/shop/fresh-config')).toBe(false);
    expect(cluster.live.has('Deployment/shop/fresh')).toBe(false);
  });

  it('restores the objects of a phase at once: more than one write in flight', async () => {
    const configs = Array.from({ length: 8 }, (_, index) => configMap(`config-${index}`, 'one'));
    const workloads = Array.from({ length: 4 }, (_, index) => deployment(`app-${index}`, 'nginx:1.25'));
    const { cluster, planned } = scenario([
      ...configs.map((before) => ({ before, after: changedConfig(before) })),
      ...workloads.map((before) => ({ before, after: changedImage(before) })),
    ]);
    const { results } = await restore(cluster, planned);

    expect(cluster.peak('replace')).toBeGreaterThan(1);
    // Within the workload phase too.
    const workloadWrites = writesOf(cluster.calls, (name) => name.startsWith('app-'));
    expect(
      Math.max(
        ...workloadWrites.map(
          (write) => workloadWrites.filter((other) => other.start <= write.start && other.end > write.start).length,
        ),
      ),
    ).toBeGreaterThan(1);
    expect([...results.values()].every((result) => result.status === 'restored')).toBe(true);
    expectRestored(cluster, [...configs, ...workloads]);
  });

  it('reads each phase with one list per namespace, never one get per object', async () => {
    const objects = ['shop', 'blog'].flatMap((namespace) => [
      ...Array.from({ length: 3 }, (_, index) => configMap(`config-${index}`, 'one', namespace)),
      service('web', 80, namespace),
      deployment('web', 'nginx:1.25', namespace),
    ]);
    const { cluster, planned } = scenario(
      objects.map((before) => ({
        before,
        after:
          before.kind === 'Deployment'
            ? changedImage(before)
            : before.kind === 'Service'
              ? changedService(before)
              : changedConfig(before),
      })),
    );
    const { reporter } = await restore(cluster, planned);

    const reads = cluster.calls.filter((call) => call.method === 'listObjects' || call.method === 'getObject');
    // Configuration, then workloads: two namespaces each.
    expect(reads.map((call) => `${call.method} ${call.target}`).sort()).toEqual([
      'listObjects blog',
      'listObjects blog',
      'listObjects shop',
      'listObjects shop',
    ]);
    expect(cluster.calls.filter((call) => call.method === 'apiResources')).toHaveLength(1);
    // One event per object.
    expect(reporter.events.filter((event) => event.kind === 'restored')).toHaveLength(objects.length);
    expectRestored(cluster, objects);
  });

  it('reads alone an object whose list failed, and restores it all the same', async () => {
    const objects = [configMap('config-0', 'one', 'shop'), configMap('config-0', 'one', 'blog')];
    const { cluster, planned } = scenario(objects.map((before) => ({ before, after: changedConfig(before) })));
    cluster.failListsOf('blog');
    const { results } = await restore(cluster, planned);

    expect(cluster.calls.filter((call) => call.method === 'getObject').map((call) => call.target)).toEqual([
      'config-0',
    ]);
    expect([...results.values()].map((result) => result.status)).toEqual(['restored', 'restored']);
    expectRestored(cluster, objects);
  });
});

describe('executeRestore, when writes race', () => {
  it('re-reads only the object whose conditional write answered 409, then puts it back', async () => {
    const configs = Array.from({ length: 4 }, (_, index) => configMap(`config-${index}`, 'one'));
    const { cluster, planned } = scenario(configs.map((before) => ({ before, after: changedConfig(before) })));
    // A controller's write between the list and kguard's write: the resourceVersion moves, the content does not.
    cluster.beforeWrite('config-2', (_object, writesBefore) => {
      if (writesBefore === 0) cluster.live.get('ConfigMap/shop/config-2')!.metadata.resourceVersion = '5000';
    });
    const { results } = await restore(cluster, planned);

    expect(cluster.calls.filter((call) => call.method === 'getObject').map((call) => call.target)).toEqual([
      'config-2',
    ]);
    expect(cluster.calls.filter((call) => call.method === 'listObjects')).toHaveLength(1);
    expect(results.get('/ConfigMap/shop/config-2')).toMatchObject({ status: 'restored', differences: [] });
    expectRestored(cluster, configs);
  });

  it('keeps looking while a busy controller moves the object between every look and write, until it lands', async () => {
    const configs = Array.from({ length: 2 }, (_, index) => configMap(`config-${index}`, 'one'));
    const { cluster, planned } = scenario(configs.map((before) => ({ before, after: changedConfig(before) })));
    // Eight status writes in a row land between kguard's look and its write (a controller under
    // load): each PUT answers 409, the content never changes. A fixed number of looks gives up.
    cluster.beforeWrite('config-1', (_object, writesBefore) => {
      if (writesBefore < 8)
        cluster.live.get('ConfigMap/shop/config-1')!.metadata.resourceVersion = String(6000 + writesBefore);
    });
    const { results } = await restore(cluster, planned);

    expect(
      cluster.calls.filter((call) => call.method === 'getObject' && call.target === 'config-1').length,
    ).toBeGreaterThanOrEqual(8);
    expect(results.get('/ConfigMap/shop/config-1')).toMatchObject({ status: 'restored', differences: [] });
    expectRestored(cluster, configs);
  });

  it("keeps someone else's change made between the list and the write: never overwritten, kept with commands", async () => {
    const configs = Array.from({ length: 4 }, (_, index) => configMap(`config-${index}`, 'one'));
    const { cluster, planned } = scenario(configs.map((before) => ({ before, after: changedConfig(before) })));
    cluster.beforeWrite('config-1', (_object, writesBefore) => {
      if (writesBefore > 0) return;
      const live = cluster.live.get('ConfigMap/shop/config-1')!;
      cluster.live.set('ConfigMap/shop/config-1', {
        ...live,
        metadata: { ...live.metadata, resourceVersion: '6000' },
        data: { value: 'theirs' },
      } as KubeObject);
    });
    const { results, reporter } = await restore(cluster, planned);

    expect((cluster.live.get('ConfigMap/shop/config-1') as unknown as { data: unknown }).data).toEqual({
      value: 'theirs',
    });
    expect(results.get('/ConfigMap/shop/config-1')).toMatchObject({
      status: 'kept',
      reason: 'conflict',
      copyFile: '/private/ConfigMap-config-1.json',
    });
    const kept = reporter.events.find((event) => event.kind === 'restore-kept');
    expect(kept).toMatchObject({ object: { name: 'config-1' }, reason: 'conflict' });
    expect(kept && 'commands' in kept ? kept.commands : []).toEqual([
      'kubectl get configmap/config-1 -n shop -o yaml',
      'kubectl replace -f /private/ConfigMap-config-1.json    # only if you decide the pre-apply copy should win',
    ]);
    // Only that object was read again; the others are back.
    expect(cluster.calls.filter((call) => call.method === 'getObject').map((call) => call.target)).toEqual([
      'config-1',
    ]);
    expectRestored(
      cluster,
      configs.filter((config) => config.metadata.name !== 'config-1'),
    );
  });

  it("keeps someone else's change the phase's list already shows, without writing it", async () => {
    const configs = Array.from({ length: 3 }, (_, index) => configMap(`config-${index}`, 'one'));
    const { cluster, planned } = scenario(configs.map((before) => ({ before, after: changedConfig(before) })));
    const live = cluster.live.get('ConfigMap/shop/config-0')!;
    cluster.live.set('ConfigMap/shop/config-0', { ...live, data: { value: 'theirs' } } as KubeObject);
    const { results } = await restore(cluster, planned);

    expect(writesOf(cluster.calls, (name) => name === 'config-0')).toEqual([]);
    expect(results.get('/ConfigMap/shop/config-0')).toMatchObject({ status: 'kept', reason: 'conflict' });
    expect((cluster.live.get('ConfigMap/shop/config-0') as unknown as { data: unknown }).data).toEqual({
      value: 'theirs',
    });
  });
});

describe('executeRestore, what the API server refuses to take back', () => {
  const immutable = (before: KubeObject) =>
    applied(before, (object) => Object.assign(object, { immutable: true, data: { value: 'two' } }));

  it('deletes an immutable ConfigMap by uid and resourceVersion, then creates its pre-apply copy with its field owners', async () => {
    const before = configMap('settings', 'one');
    const { cluster, planned } = scenario([{ before, after: immutable(before) }]);
    const { results, reporter } = await restore(cluster, planned);

    expect(cluster.calls.filter((call) => call.target === 'settings').map((call) => call.method)).toEqual([
      'deleteExact',
      'create',
      'replace',
    ]);
    expect(results.get('/ConfigMap/shop/settings')).toMatchObject({
      status: 'replaced',
      differences: [],
      notes: [expect.stringMatching(/immutable: true cannot be undone/)],
    });
    expect(reporter.events.find((event) => event.kind === 'restored')).toMatchObject({ action: 'replaced' });
    const live = cluster.live.get('ConfigMap/shop/settings')!;
    expect(live.metadata.uid).not.toBe(before.metadata.uid);
    expect(live).toMatchObject({ data: { value: 'one' }, metadata: { managedFields: OWNERS } });
    expect(live).not.toHaveProperty('immutable');
  });

  it("never deletes it when someone else changed it since the apply, even a field the apply left alone: kept, with the person's commands", async () => {
    const before = configMap('settings', 'one');
    const { cluster, planned } = scenario([{ before, after: immutable(before) }]);
    const live = cluster.live.get('ConfigMap/shop/settings')!;
    cluster.live.set('ConfigMap/shop/settings', { ...live, metadata: { ...live.metadata, labels: { owner: 'them' } } });
    const { results } = await restore(cluster, planned);

    expect(
      cluster.calls.filter(
        (call) => call.method === 'deleteExact' || call.method === 'create' || call.method === 'replace',
      ),
    ).toEqual([]);
    expect(results.get('/ConfigMap/shop/settings')).toMatchObject({
      status: 'kept',
      reason: 'conflict',
      commands: [
        'kubectl get configmap/settings -n shop -o yaml',
        'kubectl delete configmap/settings -n shop    # only if you decide the pre-apply copy should win',
        'kubectl create -f /private/ConfigMap-settings.json    # only if you decide the pre-apply copy should win',
      ],
    });
  });

  it('keeps it when it moved between the read and the delete (the resourceVersion precondition)', async () => {
    const before = configMap('settings', 'one');
    const { cluster, planned } = scenario([{ before, after: immutable(before) }]);
    const steps = planRestore(planned, 'all', { keepCreated: false });
    // A write lands after the phase's list: only the delete's precondition sees it.
    const list = cluster.kubectl.listObjects.bind(cluster.kubectl);
    cluster.kubectl.listObjects = async (namespace, types) => {
      const objects = await list(namespace, types);
      cluster.live.get('ConfigMap/shop/settings')!.metadata.resourceVersion = '7000';
      return objects;
    };
    const results = await executeRestore(
      steps,
      { deadlineMs: 60_000 },
      {
        kubectl: cluster.kubectl,
        clock: new FakeClock(),
        reporter: new RecordingReporter(),
        keepCopy: async (ref) => `/private/${ref.name}.json`,
      },
    );
    expect(results.get('/ConfigMap/shop/settings')).toMatchObject({ status: 'kept', reason: 'conflict' });
    expect(cluster.live.get('ConfigMap/shop/settings')).toMatchObject({ immutable: true, data: { value: 'two' } });
  });
});

describe('executeRestore while the API server is away', () => {
  const refused = 'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?';

  it('asks again with a growing pause until the server answers, reading the object before each write, and restores it', async () => {
    const [before] = [configMap('settings', 'one')];
    const { cluster, planned } = scenario([{ before: before!, after: changedConfig(before!) }]);
    // Twelve calls refused: with the back-off (0.5, 1, 2, 4, 4… s) that is well past the adapter's 3.5 s.
    cluster.failNext(12, refused);
    const clock = new FakeClock();
    const results = await executeRestore(
      planRestore(planned, 'all', { keepCreated: false }),
      { deadlineMs: 120_000 },
      { kubectl: cluster.kubectl, clock, reporter: new RecordingReporter(), keepCopy: async () => '/private/copy' },
    );
    expect(results.get('/ConfigMap/shop/settings')).toMatchObject({ status: 'restored', differences: [] });
    expectRestored(cluster, [before!]);
    expect(clock.now()).toBeGreaterThan(6_000);
  });

  it('a write that landed although its answer was lost is not written twice: the next look sees it written', async () => {
    const before = configMap('settings', 'one');
    const { cluster, planned } = scenario([{ before, after: changedConfig(before) }]);
    cluster.failNext(1, 'Error from server (Timeout): Timeout: request did not complete within requested timeout', {
      landed: 'settings',
    });
    const { results } = await restore(cluster, planned);
    expect(results.get('/ConfigMap/shop/settings')).toMatchObject({ status: 'restored', differences: [] });
    // As many writes as a restore without the lost answer: the values once, then the field owners.
    const calm = scenario([{ before, after: changedConfig(before) }]);
    await restore(calm.cluster, calm.planned);
    expect(writesOf(cluster.calls, (name) => name === 'settings')).toHaveLength(
      writesOf(calm.cluster.calls, (name) => name === 'settings').length,
    );
    expectRestored(cluster, [before]);
  });

  it('says "unreachable", not "refused", when the server never came back before --rollback-timeout', async () => {
    const before = configMap('settings', 'one');
    const { cluster, planned } = scenario([{ before, after: changedConfig(before) }]);
    cluster.failNext(10_000, refused);
    const { results } = await restore(cluster, planned);
    const result = results.get('/ConfigMap/shop/settings');
    expect(result?.status).toBe('failed');
    expect(result && 'reason' in result ? result.reason : '').toMatch(
      /^the API server was unreachable when kguard tried to (read it|write its pre-apply copy) \(.*was refused.*\); kguard tried again for 60s, until --rollback-timeout ran out$/,
    );
  });
});
