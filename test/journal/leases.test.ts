// The lease protocol (src/journal/leases.ts) on a Lease API faked at kubectl's interface, with a
// manual clock: runs on objects apart go ahead together, runs that share an object never do,
// Leases are renewed while held, let go only while still this run's, and another run's Lease
// expires only by what this run saw.
import { describe, expect, it } from 'vitest';
import { KubectlError } from '../../src/errors.js';
import { runLeases } from '../../src/journal/lease.js';
import { acquireLeases, type HeldLeases, type LeaseOptions } from '../../src/journal/leases.js';
import { rbacRule } from '../../src/journal/store.js';
import type { RunEvent } from '../../src/model/events.js';
import { objectKey, type KubeObject, type ObjectRef } from '../../src/objects/model.js';
import { ManualClock, RecordingReporter } from '../fakes.js';
import { failure, LeaseApi, seeded } from './lease-api.js';

const configMap = (name: string, namespace = 'shop'): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name,
});

function optionsFor(runId: string, overrides: Partial<LeaseOptions> = {}): LeaseOptions {
  return { home: 'shop', runId, durationSeconds: 30, lockTimeoutMs: 60_000, deadlineMs: 10_000, ...overrides };
}

const turns = async (count = 20) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** Runs `work` to its end, moving the clock on by `stepMs` whenever the event loop has gone quiet. */
async function settle<T>(clock: ManualClock, work: Promise<T>, stepMs = 100): Promise<T> {
  let outcome: { value: T } | { error: unknown } | undefined;
  work.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  while (!outcome) {
    await turns(10);
    if (!outcome) clock.advance(stepMs);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** The error `work` ends with; the test fails if it ends well. */
async function refusal(clock: ManualClock, work: Promise<unknown>): Promise<Error> {
  try {
    await settle(clock, work);
  } catch (error) {
    return error as Error;
  }
  throw new Error('the run went ahead; it should have given up');
}

const names = (api: LeaseApi, namespace = 'shop') =>
  api
    .inNamespace(namespace)
    .map((lease) => lease.metadata.name)
    .sort();
const lockWaits = (reporter: RecordingReporter) =>
  reporter.events.filter((event): event is Extract<RunEvent, { kind: 'lock-wait' }> => event.kind === 'lock-wait');

/** Run a, settled as the holder of configMap one's Lease. */
function holdingOne(api: LeaseApi, clock: ManualClock) {
  return settle(
    clock,
    acquireLeases(api.client('a'), [configMap('one')], optionsFor('run-a'), {
      clock,
      reporter: new RecordingReporter(),
    }),
  );
}

describe('taking leases', () => {
  it('lets two runs on objects apart in one namespace go ahead at once, with one Lease each', async () => {
    const api = new LeaseApi(seeded(1));
    const clock = new ManualClock();
    const first = await settle(
      clock,
      acquireLeases(api.client('a'), [configMap('one'), configMap('two')], optionsFor('run-a'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    const second = await settle(
      clock,
      acquireLeases(api.client('b'), [configMap('three')], optionsFor('run-b'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    expect(names(api)).toEqual(['run-a', 'run-b']);
    // One create and one list per namespace, whatever the number of objects.
    expect(api.calls.filter((call) => call.client === 'a').map((call) => call.verb)).toEqual(['create', 'list']);
    await Promise.all([first.release(), second.release()]);
    expect(api.leases.size).toBe(0);
  });

  it('a run whose object is held takes a ticket, says who holds it once, and goes in when the holder lets go', async () => {
    const api = new LeaseApi(seeded(2));
    const clock = new ManualClock();
    const holder = await settle(
      clock,
      acquireLeases(api.client('a'), [configMap('one'), configMap('two')], optionsFor('run-a'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    const reporter = new RecordingReporter();
    let second: HeldLeases | undefined;
    const taking = acquireLeases(api.client('b'), [configMap('two'), configMap('three')], optionsFor('run-b'), {
      clock,
      reporter,
      random: seeded(3),
    }).then((held) => (second = held));
    for (let step = 0; step < 40; step += 1) {
      await turns(10);
      clock.advance(250);
    }
    expect(second).toBeUndefined();
    // It keeps its Lease while it waits, with its place in line.
    expect(names(api)).toEqual(['run-a', 'run-b']);
    expect(
      api.inNamespace('shop').find((lease) => lease.metadata.name === 'run-b')?.metadata.annotations?.[
        'kguard.dev/ticket'
      ],
    ).toBe('1');
    expect(lockWaits(reporter)).toEqual([{ kind: 'lock-wait', object: configMap('two'), holder: 'run-a' }]);
    await holder.release();
    await settle(clock, taking);
    expect(names(api)).toEqual(['run-b']);
    await second!.release();
  });

  it('serves the runs that wait for an object in the order they came', async () => {
    const api = new LeaseApi(seeded(21));
    const clock = new ManualClock();
    const entered: string[] = [];
    const holder = await holdingOne(api, clock);
    // run-z comes first, run-b after it: the ticket, not the name, decides.
    const later = (runId: string) =>
      acquireLeases(api.client(runId), [configMap('one')], optionsFor(runId), {
        clock,
        reporter: new RecordingReporter(),
      }).then(async (held) => {
        entered.push(runId);
        await clock.sleep(1000);
        await held.release();
      });
    const first = later('run-z');
    for (let step = 0; step < 10; step += 1) {
      await turns(10);
      clock.advance(250);
    }
    const second = later('run-b');
    for (let step = 0; step < 10; step += 1) {
      await turns(10);
      clock.advance(250);
    }
    expect(
      api
        .inNamespace('shop')
        .map((lease) => [lease.metadata.name, lease.metadata.annotations?.['kguard.dev/ticket']])
        .sort(),
    ).toEqual([
      ['run-a', undefined],
      ['run-b', '2'],
      ['run-z', '1'],
    ]);
    await holder.release();
    await settle(clock, Promise.all([first, second]));
    expect(entered).toEqual(['run-z', 'run-b']);
    expect(api.leases.size).toBe(0);
  });

  for (const seed of [11, 12, 13, 14, 15]) {
    it(`of 20 runs on overlapping objects, two that share an object never hold them at once, and every run gets its turn (seed ${seed})`, async () => {
      const random = seeded(seed);
      const api = new LeaseApi(random);
      const clock = new ManualClock();
      const objects = [
        configMap('a'),
        configMap('b'),
        configMap('c'),
        configMap('d'),
        configMap('e', 'web'),
        { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'team' },
      ];
      const inside = new Map<string, Set<string>>();
      const overlaps: string[] = [];
      let waited = 0;
      const run = async (index: number) => {
        const mine = objects.filter(() => random() < 0.5).slice(0, 3);
        if (mine.length === 0) mine.push(objects[index % objects.length]!);
        const keys = new Set(mine.map(objectKey));
        const reporter = new RecordingReporter();
        const held = await acquireLeases(api.client(`run-${index}`), mine, optionsFor(`run-${index}`), {
          clock,
          reporter,
          random,
        });
        for (const [other, theirs] of inside)
          if ([...keys].some((key) => theirs.has(key))) overlaps.push(`run-${index} with ${other}`);
        inside.set(`run-${index}`, keys);
        await clock.sleep(random() * 2000);
        inside.delete(`run-${index}`);
        await held.release();
        waited += lockWaits(reporter).length;
      };
      await settle(clock, Promise.all(Array.from({ length: 20 }, (_, index) => run(index))), 50);
      expect(overlaps).toEqual([]);
      expect(waited).toBeGreaterThan(0);
      expect(api.leases.size).toBe(0);
    });
  }

  it('looks again at a namespace that was clear before its ticket was written: a run that came in between is not passed over', async () => {
    const api = new LeaseApi(seeded(22));
    const clock = new ManualClock();
    // run-h holds shop/one and waited for it: ticket 7.
    const [holding] = runLeases('run-h', 'shop', [objectKey(configMap('one'))], 30, new Date());
    api.write({
      ...holding!,
      metadata: { ...holding!.metadata, annotations: { ...holding!.metadata.annotations, 'kguard.dev/ticket': '7' } },
    });
    // run-a wants shop/one and web/two: web is clear at its first look, shop is not. Its ticket
    // (8) is held on the way while run-k, on web/two only, takes ticket 1.
    let openGate = () => undefined as void;
    const gated = new Promise<void>((resolve) => (openGate = resolve));
    api.gate = (call) => (call.client === 'a' && call.verb === 'replace' ? gated : undefined);
    const entered: string[] = [];
    const enter = (runId: string, refs: ObjectRef[]) =>
      acquireLeases(api.client(runId.slice(4)), refs, optionsFor(runId), {
        clock,
        reporter: new RecordingReporter(),
      }).then((held) => {
        entered.push(runId);
        return held;
      });
    const runA = enter('run-a', [configMap('one'), configMap('two', 'web')]);
    while (!api.calls.some((call) => call.client === 'a' && call.verb === 'list' && call.namespace === 'web'))
      await turns(1);
    const runK = enter('run-k', [configMap('two', 'web')]);
    while (
      api.inNamespace('web').find((lease) => lease.metadata.name === 'run-k')?.metadata.annotations?.[
        'kguard.dev/ticket'
      ] !== '1'
    ) {
      await turns(10);
      clock.advance(100);
    }
    openGate();
    const k = await settle(clock, runK);
    // run-h lets go: shop is clear for run-a, but run-k (ticket 1) is in on web/two.
    api.leases.delete('shop/run-h');
    for (let step = 0; step < 40; step += 1) {
      await turns(10);
      clock.advance(250);
    }
    expect(entered).toEqual(['run-k']);
    await k.release();
    const a = await settle(clock, runA);
    expect(entered).toEqual(['run-k', 'run-a']);
    await a.release();
  });

  it('a place in line that cannot be written ends the run as a kubectl failure (exit 2), with none of its Leases left', async () => {
    const api = new LeaseApi(seeded(23));
    const clock = new ManualClock();
    const holder = await holdingOne(api, clock);
    api.fault = (call) =>
      call.client === 'b' && call.verb === 'replace'
        ? failure('the server is currently unable to handle the request', { reason: 'ServiceUnavailable' })
        : undefined;
    const error = await refusal(
      clock,
      acquireLeases(api.client('b'), [configMap('one')], optionsFor('run-b'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    expect(error).toBeInstanceOf(KubectlError);
    expect(error.message).toBe(
      'kguard could not write its place in line on its Lease run-b (namespace shop): the server is currently unable to handle the request. Next: check that the API server answers and run kguard again; nothing was applied.',
    );
    expect(names(api)).toEqual(['run-a']);
    await holder.release();
  });

  it('gives up after --lock-timeout naming the object and its holder; none of its Leases is left', async () => {
    const api = new LeaseApi(seeded(4));
    const clock = new ManualClock();
    const holder = await holdingOne(api, clock);
    const startedAt = clock.now();
    const taking = acquireLeases(
      api.client('b'),
      [configMap('one'), configMap('two'), configMap('three', 'web')],
      optionsFor('run-b', { lockTimeoutMs: 5000 }),
      {
        clock,
        reporter: new RecordingReporter(),
      },
    );
    const error = await refusal(clock, taking);
    expect(error).toBeInstanceOf(KubectlError);
    expect((error as Error).message).toBe(
      'configmap/one (namespace shop) is held by another kguard run (run-a); waited 5s (--lock-timeout). Next: let that run finish (kguard status shows it), then run again; nothing was applied.',
    );
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(5000);
    expect(clock.now() - startedAt).toBeLessThan(5500);
    expect(names(api)).toEqual(['run-a']);
    expect(names(api, 'web')).toEqual([]);
    await holder.release();
  });

  it('skips a namespace that does not exist yet (the apply creates it): nothing there has a "before" to protect', async () => {
    const api = new LeaseApi(seeded(5));
    const clock = new ManualClock();
    const held = await settle(
      clock,
      acquireLeases(api.client('a'), [configMap('one'), configMap('fresh', 'brand-new')], optionsFor('run-a'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    expect(held.held.map((lease) => `${lease.metadata.namespace}/${lease.metadata.name}`)).toEqual(['shop/run-a']);
    await held.release();
  });

  it('a refused Lease names the RBAC rule (list included), and the Leases already taken are withdrawn', async () => {
    const api = new LeaseApi(seeded(6));
    const clock = new ManualClock();
    api.fault = (call) =>
      call.verb === 'create' && call.namespace === 'web'
        ? failure('leases.coordination.k8s.io is forbidden: User "ci" cannot create resource "leases"', {
            reason: 'Forbidden',
          })
        : undefined;
    const taking = acquireLeases(api.client('a'), [configMap('one'), configMap('two', 'web')], optionsFor('run-a'), {
      clock,
      reporter: new RecordingReporter(),
    });
    const error = await refusal(clock, taking);
    expect(error.message).toContain('kguard could not take a lease on the objects it will change in namespace web');
    expect(error.message).toContain(`grant ${rbacRule('leases', 'web')}, or run with --no-journal`);
    expect(rbacRule('leases', 'web')).toContain('verbs: ["create", "get", "list", "update", "delete"]');
    expect(api.leases.size).toBe(0);
  });

  it('a refused list names the RBAC rule too, and withdraws the Lease it created', async () => {
    const api = new LeaseApi(seeded(7));
    const clock = new ManualClock();
    api.fault = (call) =>
      call.verb === 'list'
        ? failure('leases.coordination.k8s.io is forbidden: User "ci" cannot list resource "leases"', {
            reason: 'Forbidden',
          })
        : undefined;
    const error = await refusal(
      clock,
      acquireLeases(api.client('a'), [configMap('one')], optionsFor('run-a'), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    expect(error.message).toContain(`grant ${rbacRule('leases', 'shop')}`);
    expect(api.leases.size).toBe(0);
  });
});

describe('holding and letting go', () => {
  async function held(api: LeaseApi, clock: ManualClock, reporter = new RecordingReporter()): Promise<HeldLeases> {
    return settle(clock, acquireLeases(api.client('a'), [configMap('one')], optionsFor('run-a'), { clock, reporter }));
  }
  const onlyLease = (api: LeaseApi): KubeObject => api.inNamespace('shop')[0]!;

  it('renews its Lease every third of its duration with a conditional PUT, and stops once released', async () => {
    const api = new LeaseApi(seeded(8));
    const clock = new ManualClock();
    const leases = await held(api, clock);
    const versions = [onlyLease(api).metadata.resourceVersion];
    for (let period = 0; period < 3; period += 1) {
      clock.advance(10_000);
      await turns();
      versions.push(onlyLease(api).metadata.resourceVersion);
    }
    expect(new Set(versions).size).toBe(4);
    expect(api.calls.filter((call) => call.verb === 'replace')).toHaveLength(3);
    await leases.release();
    clock.advance(60_000);
    await turns();
    expect(api.calls.filter((call) => call.verb === 'replace')).toHaveLength(3);
    expect(api.leases.size).toBe(0);
  });

  it('does not delete a Lease another run took over: one 409, one read, no second delete', async () => {
    const api = new LeaseApi(seeded(9));
    const clock = new ManualClock();
    const reporter = new RecordingReporter();
    const leases = await held(api, clock, reporter);
    const lease = onlyLease(api);
    api.write({ ...lease, spec: { ...(lease['spec'] as object), holderIdentity: 'run-x' } });
    await leases.release();
    expect((onlyLease(api)['spec'] as { holderIdentity: string }).holderIdentity).toBe('run-x');
    expect(
      api.calls
        .filter((call) => call.client === 'a')
        .map((call) => call.verb)
        .slice(-2),
    ).toEqual(['delete', 'get']);
    expect(reporter.kinds()).not.toContain('journal-warning');
  });

  it('deletes its Lease that someone else only annotated, after reading it once', async () => {
    const api = new LeaseApi(seeded(10));
    const clock = new ManualClock();
    const leases = await held(api, clock);
    const lease = onlyLease(api);
    api.write({
      ...lease,
      metadata: { ...lease.metadata, annotations: { ...lease.metadata.annotations, 'example.com/seen': 'yes' } },
    });
    await leases.release();
    expect(api.leases.size).toBe(0);
    expect(
      api.calls
        .filter((call) => call.client === 'a')
        .map((call) => call.verb)
        .slice(-3),
    ).toEqual(['delete', 'get', 'delete']);
  });

  it('says a Lease it could not delete, with the kubectl command that deletes it', async () => {
    const api = new LeaseApi(seeded(16));
    const clock = new ManualClock();
    const reporter = new RecordingReporter();
    const leases = await held(api, clock, reporter);
    api.fault = (call) =>
      call.verb === 'delete'
        ? failure('the server is currently unable to handle the request', { reason: 'ServiceUnavailable' })
        : undefined;
    await leases.release();
    const warning = reporter.events.find((event) => event.kind === 'journal-warning');
    expect(warning).toMatchObject({ kind: 'journal-warning', commands: ['kubectl delete lease run-a -n shop'] });
    expect((warning as { message: string }).message).toContain(
      'kguard could not delete its Lease run-a in namespace shop (the server is currently unable to handle the request)',
    );
  });

  it('a renewal that finds its Lease taken over says so, stops renewing it and leaves it at release', async () => {
    const api = new LeaseApi(seeded(17));
    const clock = new ManualClock();
    const reporter = new RecordingReporter();
    const leases = await held(api, clock, reporter);
    const lease = onlyLease(api);
    api.write({ ...lease, spec: { ...(lease['spec'] as object), holderIdentity: 'run-x' } });
    clock.advance(10_000);
    await turns();
    expect(reporter.events).toContainEqual(
      expect.objectContaining({
        kind: 'journal-warning',
        message: expect.stringContaining('was taken over by run-x while this run held it'),
      }),
    );
    await leases.release();
    expect(names(api)).toEqual(['run-a']);
    expect(api.calls.filter((call) => call.client === 'a' && call.verb === 'delete')).toEqual([]);
  });
});

describe("another run's Lease expires by what this run saw", () => {
  // The holder's clock is not this machine's: an hour behind or ahead, it says nothing.
  for (const [skew, hours] of [
    ['an hour ago', -1],
    ['an hour from now', 1],
  ] as const) {
    it(`takes over a Lease left unrenewed once it has seen it unchanged for its duration (renewTime ${skew})`, async () => {
      const api = new LeaseApi(seeded(18));
      const clock = new ManualClock();
      const [left] = runLeases(
        'run-dead',
        'shop',
        [objectKey(configMap('one'))],
        10,
        new Date(Date.now() + hours * 3_600_000),
      );
      api.write(left!);
      const reporter = new RecordingReporter();
      const startedAt = clock.now();
      const leases = await settle(
        clock,
        acquireLeases(api.client('b'), [configMap('one')], optionsFor('run-b'), { clock, reporter }),
      );
      expect(clock.now() - startedAt).toBeGreaterThan(10_000);
      expect(clock.now() - startedAt).toBeLessThan(15_000);
      expect(lockWaits(reporter)).toEqual([{ kind: 'lock-wait', object: configMap('one'), holder: 'run-dead' }]);
      expect(names(api)).toEqual(['run-b']);
      await leases.release();
    });
  }

  it('never takes over a Lease its holder keeps renewing', async () => {
    const api = new LeaseApi(seeded(19));
    const clock = new ManualClock();
    const [live] = runLeases('run-live', 'shop', [objectKey(configMap('one'))], 10, new Date());
    let lease = api.write(live!);
    // The holder renews it (a new resourceVersion) every 3 s of this run's clock.
    const stop = new AbortController();
    const renewing = (async () => {
      while (!stop.signal.aborted) {
        await clock.sleep(3000, stop.signal);
        lease = api.write(lease);
      }
    })();
    const taking = acquireLeases(api.client('b'), [configMap('one')], optionsFor('run-b', { lockTimeoutMs: 40_000 }), {
      clock,
      reporter: new RecordingReporter(),
    });
    const error = await refusal(clock, taking);
    stop.abort();
    await renewing;
    expect(error.message).toContain('is held by another kguard run (run-live)');
    expect(names(api)).toEqual(['run-live']);
  });

  it('deletes an expired Lease only as it saw it: a renewal that lands first wins', async () => {
    const api = new LeaseApi(seeded(20));
    const clock = new ManualClock();
    const [left] = runLeases('run-slow', 'shop', [objectKey(configMap('one'))], 10, new Date());
    const stored = api.write(left!);
    // The holder's renewal lands just before this run's delete reaches the server.
    api.fault = (call) => {
      if (call.client === 'b' && call.verb === 'delete' && call.name === 'run-slow') {
        api.fault = undefined;
        api.write(api.inNamespace('shop').find((lease) => lease.metadata.name === 'run-slow') ?? stored);
      }
      return undefined;
    };
    const error = await refusal(
      clock,
      acquireLeases(api.client('b'), [configMap('one')], optionsFor('run-b', { lockTimeoutMs: 15_000 }), {
        clock,
        reporter: new RecordingReporter(),
      }),
    );
    // Renewed once at 10 s, then silent: not seen still for 10 s again before the 15 s are up.
    expect(error.message).toContain('is held by another kguard run (run-slow)');
    expect(names(api)).toEqual(['run-slow']);
  });
});
