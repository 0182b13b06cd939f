import { describe, expect, it } from 'vitest';
import type { CollectionList, CollectionQuery, WatchStream } from '../../src/kubectl/types.js';
import type { WorkloadSnapshot } from '../../src/model/snapshot.js';
import type { WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import type { KubeObject } from '../../src/objects/model.js';
import { WatchSource, WATCH_SOURCE_DEFAULTS } from '../../src/track/sources.js';
import { rowFor } from '../../src/kinds/table.js';
import { deploymentRules } from '../../src/kinds/workloads/deployment.js';
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

  it('answers a change no sooner than the earliest time it is given (a look that took long)', async () => {
    const clock = new ManualClock();
    const { kubectl, watches } = watchedCluster({ pods: [pod('running-ready') as unknown as KubeObject] });
    const source = new WatchSource(queries, { kubectl, clock, reporter: new RecordingReporter() }, options);
    await until(() => watches.size === 3);
    await flush();
    await source.read(new Map([['shop', deploymentTypes]]));
    let answered = false;
    const waiting = source.changed(2000, 500).then(() => {
      answered = true;
    });
    watches.get('pods')!.emit({ type: 'MODIFIED', object: pod('image-pull-backoff') as unknown as KubeObject });
    clock.advance(options.debounceMs);
    await flush();
    expect(answered).toBe(false);
    clock.advance(499 - clock.now());
    await flush();
    expect(answered).toBe(false);
    clock.advance(1);
    await waiting;
    expect(clock.now()).toBe(500);
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

/** Tracking rollouts through watches, as the CLI does by default. */
const WATCHED = {
  timeoutMs: 600_000,
  pollIntervalMs: 2000,
  watching: 'rollout' as const,
  stopWhenAnyFails: true,
  watch: true,
  logLines: 5,
};

/** A Deployment's row that calls `judged` at each judgement (the engine asks the rules for the progress once a judgement). */
function countingRow(judged: () => void): TrackTarget['row'] {
  return {
    ...rowFor({ apiVersion: 'apps/v1', kind: 'Deployment' }),
    rules: () => ({
      ...deploymentRules,
      progress: (object, snapshot) => {
        judged();
        return deploymentRules.progress(object as never, snapshot);
      },
    }),
  };
}

/** web rolling out, its new pod being created, seen through watches. */
function webRollingOut() {
  const web = deployment('progressing-new-rs');
  const cluster = watchedCluster({
    'deployments.apps': [web as unknown as KubeObject],
    'replicasets.apps': [replicaSet('progressing-old'), replicaSet('progressing-new')] as unknown as KubeObject[],
    pods: [pod('container-creating') as unknown as KubeObject],
  });
  return { web, ...cluster };
}

describe('trackRollouts with watches', () => {
  it('judges at a change the watch delivers and stops every watch at the verdict', async () => {
    const clock = new ManualClock();
    const { web, kubectl, watches } = webRollingOut();
    const target: TrackTarget = {
      workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      expected: expectationOf(web),
      selector: 'app=web',
    };
    const tracking = trackRollouts([target], WATCHED, { kubectl, clock, reporter: new RecordingReporter() });
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

describe('trackRollouts with watches, at the changes of other workloads', () => {
  /** The same objects under another name and other uids (each uid's first part replaced). */
  const renamed = <T>(object: T, name: string): T =>
    JSON.parse(
      JSON.stringify(object)
        .replaceAll('web', name)
        .replace(/"([0-9a-f]{8})-/g, '"0000beef-'),
    ) as T;

  it("judges a workload again when its own copies change or at the next tick, not at another's change", async () => {
    const clock = new ManualClock();
    const web = deployment('progressing-new-rs');
    const api = renamed(web, 'api');
    const sets = [replicaSet('progressing-old'), replicaSet('progressing-new')];
    const apiPod = renamed(pod('container-creating'), 'api');
    const { kubectl, watches } = watchedCluster({
      'deployments.apps': [web, api] as unknown as KubeObject[],
      'replicasets.apps': [...sets, ...sets.map((set) => renamed(set, 'api'))] as unknown as KubeObject[],
      pods: [pod('container-creating'), apiPod] as unknown as KubeObject[],
    });
    // Each judgement asks the rules for the progress once: counted per workload.
    const judged = { web: 0, api: 0 };
    const counted = (name: 'web' | 'api') =>
      countingRow(() => {
        judged[name] += 1;
      });
    const targetOf = (object: typeof web, name: 'web' | 'api'): TrackTarget => ({
      workload: { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'shop' },
      expected: expectationOf(object),
      row: counted(name),
    });
    const tracking = trackRollouts([targetOf(web, 'web'), targetOf(api, 'api')], WATCHED, {
      kubectl,
      clock,
      reporter: new RecordingReporter(),
    });
    // The lists are in: judged after the debounce.
    await until(() => watches.size === 3 && clock.sleeping > 3);
    clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
    await until(() => judged.web === 1 && judged.api === 1);
    // api's pod changes five times within the poll interval: api is judged at each, web stands.
    for (let change = 0; change < 5; change += 1) {
      await until(() => clock.sleeping > 3);
      watches.get('pods')!.emit({ type: 'MODIFIED', object: structuredClone(apiPod) as unknown as KubeObject });
      clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
      await until(() => judged.api === change + 2);
    }
    expect(judged.web).toBe(1);
    // Nothing changes for a poll interval: that look is past the tracker's tick (2000), and web,
    // judged before it, is judged again.
    const lastLook = clock.now();
    await until(() => clock.sleeping > 3);
    clock.advance(lastLook + 2000 - 1 - clock.now());
    await flush();
    expect(judged.web).toBe(1);
    clock.advance(1);
    await until(() => judged.web === 2);
    // api's pod cannot pull its image: the verdict comes at the change, and ends the tracking.
    await until(() => clock.sleeping > 3);
    watches.get('pods')!.emit({ type: 'MODIFIED', object: renamed(pod('image-pull-backoff'), 'api') as never });
    clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
    const tracked = await tracking;
    expect(tracked.get('apps/Deployment/shop/api')?.verdict.state).toBe('failed');
    expect(judged.web).toBe(2);
  });
});

describe('trackRollouts with watches, after a look that took long', () => {
  it('waits four times as long as the look took before it judges the next change', async () => {
    const clock = new ManualClock();
    const { web, kubectl, watches } = webRollingOut();
    // Each judgement takes 5 ms of the clock.
    let judged = 0;
    const slow = countingRow(() => {
      judged += 1;
      clock.advance(5);
    });
    const tracking = trackRollouts(
      [
        {
          workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
          expected: expectationOf(web),
          row: slow,
        },
      ],
      WATCHED,
      { kubectl, clock, reporter: new RecordingReporter() },
    );
    await until(() => watches.size === 3 && clock.sleeping > 3);
    clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
    await until(() => judged === 1 && clock.sleeping > 3);
    const lookEnded = clock.now();
    // Its pod cannot pull its image: judged 4 × 5 ms after the look, not at the debounce.
    watches.get('pods')!.emit({ type: 'MODIFIED', object: pod('image-pull-backoff') as unknown as KubeObject });
    clock.advance(WATCH_SOURCE_DEFAULTS.debounceMs);
    await flush();
    expect(judged).toBe(1);
    clock.advance(lookEnded + 20 - clock.now());
    const tracked = await tracking;
    expect(judged).toBe(2);
    expect(tracked.get('apps/Deployment/shop/web')?.verdict.state).toBe('failed');
  });
});
