import { describe, expect, it } from 'vitest';
import type { CollectionList, CollectionQuery, WatchStream } from '../../src/kubectl/types.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import type { WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import type { KubeObject } from '../../src/objects/model.js';
import { WatchSource, WATCH_SOURCE_DEFAULTS } from '../../src/track/sources.js';
import { trackRollouts, type TrackTarget } from '../../src/track/tracker.js';
import { WATCH_CACHE_DEFAULTS } from '../../src/track/watch-cache.js';
import { flush, ManualClock, RecordingReporter, until, snapshotFrom, expectationOf } from '../fakes.js';
import { deployment, pod, replicaSet } from '../fixtures/load.js';

type End = Awaited<WatchStream['done']>;

/** A cluster seen through list and watch: lists answer from `objects`, watches are driven by the test. */
function watchedCluster(
  objects: Record<string, KubeObject[]>,
  listAnswer?: (query: CollectionQuery) => CollectionList | undefined,
) {
  const watches = new Map<string, { emit(event: WatchEvent): void; end(how: End): void; stopped: boolean }>();
  const polls: string[] = [];
  const kubectl = {
    async listCollection(query: CollectionQuery): Promise<CollectionList> {
      return listAnswer?.(query) ?? { ok: true, items: objects[query.type] ?? [], resourceVersion: '10' };
    },
    watchCollection(
      query: CollectionQuery,
      _from: { resourceVersion: string },
      onEvent: (event: WatchEvent) => void,
    ): WatchStream {
      let end!: (how: End) => void;
      const done = new Promise<End>((resolve) => (end = resolve));
      const watch = { emit: onEvent, end: (how: End) => end(how), stopped: false };
      watches.set(query.type, watch);
      return {
        done,
        stop: () => {
          watch.stopped = true;
          end({ ended: true });
        },
      };
    },
    async workloadSnapshot(namespace: string): Promise<WorkloadSnapshot> {
      polls.push(namespace);
      return snapshotFrom({ deployments: [], replicaSets: [], pods: [], others: [] });
    },
    async events() {
      return [];
    },
  };
  return { kubectl, watches, polls };
}

const options = { ...WATCH_SOURCE_DEFAULTS, pollIntervalMs: 2000 };
const deploymentTypes = ['deployments.apps', 'replicasets.apps', 'pods'];
const queries = deploymentTypes.map((type) => ({ namespace: 'shop', type }));

describe('WatchSource', () => {
  it('has nothing to say before the first lists, then reads the namespace from memory', async () => {
    const clock = new ManualClock();
    const { kubectl, watches, polls } = watchedCluster({
      'deployments.apps': [deployment('complete') as unknown as KubeObject],
    });
    const source = new WatchSource(queries, { kubectl, clock, reporter: new RecordingReporter() }, options);
    const types = new Map([['shop', deploymentTypes]]);
    await until(() => watches.size === 3);
    const reading = (await source.read(types)).get('shop') as WorkloadSnapshot;
    expect(reading.objects.map((object) => object.metadata.name)).toEqual(['web']);
    expect(polls).toEqual([]);
    await source.close();
    expect([...watches.values()].every((watch) => watch.stopped)).toBe(true);
  });

  it('polls a namespace whose watches do not work, and says so once', async () => {
    const clock = new ManualClock();
    const reporter = new RecordingReporter();
    const forbidden = {
      ok: false as const,
      message: 'pods is forbidden: User "ci" cannot list resource "pods"',
      transient: false,
    };
    let podLists = 0;
    const { kubectl, polls } = watchedCluster({}, (query) => {
      if (query.type !== 'pods') return undefined;
      podLists++;
      return forbidden;
    });
    const source = new WatchSource(queries, { kubectl, clock, reporter }, options);
    for (let attempt = 1; attempt < WATCH_CACHE_DEFAULTS.giveUpAfter; attempt += 1) {
      await until(() => podLists === attempt);
      await flush();
      clock.advance(WATCH_CACHE_DEFAULTS.backoffMs[attempt - 1]!);
    }
    await until(() => podLists === WATCH_CACHE_DEFAULTS.giveUpAfter);
    await flush();
    const types = new Map([['shop', deploymentTypes]]);
    await source.read(types);
    await source.read(types);
    expect(polls).toEqual(['shop', 'shop']);
    expect(reporter.events).toEqual([
      { kind: 'watch-fallback', namespace: 'shop', reason: `pods: ${forbidden.message}`, pollIntervalMs: 2000 },
    ]);
    await source.close();
  });

  it('reads as an error once a watch has had no answer for silenceMs, and as the last state before', async () => {
    const clock = new ManualClock();
    let podLists = 0;
    const refused = 'The connection to the server 127.0.0.1:1 was refused';
    const { kubectl, watches } = watchedCluster({ pods: [pod('running-ready') as unknown as KubeObject] }, (query) =>
      query.type === 'pods' && podLists++ > 0 ? { ok: false, message: refused, transient: true } : undefined,
    );
    const source = new WatchSource(queries, { kubectl, clock, reporter: new RecordingReporter() }, options);
    const types = new Map([['shop', deploymentTypes]]);
    await until(() => watches.size === 3);
    watches.get('pods')!.end({ ended: false, message: refused, transient: true });
    await flush();
    expect(((await source.read(types)).get('shop') as WorkloadSnapshot).pods).toHaveLength(1);
    clock.advance(options.silenceMs);
    await flush();
    const reading = (await source.read(types)).get('shop');
    expect(reading).toBeInstanceOf(Error);
    expect((reading as Error).message).toContain('was refused');
    await source.close();
  });
});

describe('trackRollouts with watches', () => {
  it('judges at a change the watch delivers and stops every watch at the verdict', async () => {
    const clock = new ManualClock();
    const web = deployment('progressing-new-rs');
    const { kubectl, watches } = watchedCluster({
      'deployments.apps': [web as unknown as KubeObject],
      'replicasets.apps': [replicaSet('progressing-old'), replicaSet('progressing-new')] as unknown as KubeObject[],
      pods: [pod('container-creating') as unknown as KubeObject],
    });
    const target: TrackTarget = {
      workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      expected: expectationOf(web),
      selector: 'app=web',
    };
    const tracking = trackRollouts(
      [target],
      {
        timeoutMs: 600_000,
        pollIntervalMs: 2000,
        watching: 'rollout',
        stopWhenAnyFails: true,
        watch: true,
        logLines: 5,
      },
      { kubectl, clock, reporter: new RecordingReporter() },
    );
    await until(() => watches.size === 3);
    await until(() => clock.sleeping > 3);
    watches.get('pods')!.emit({ type: 'MODIFIED', object: pod('image-pull-backoff') as unknown as KubeObject });
    // The debounce, not the poll interval, stands between the change and the verdict.
    clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
    const tracked = await tracking;
    expect(tracked.get('apps/Deployment/shop/web')?.verdict.state).toBe('failed');
    expect(clock.now()).toBeLessThan(2000);
    expect([...watches.values()].every((watch) => watch.stopped)).toBe(true);
  });
});
