import { describe, expect, it } from 'vitest';
import type { CollectionList, CollectionQuery, WatchStream } from '../../src/kubectl/types.js';
import { WatchEventReader, type WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import type { KubeObject } from '../../src/objects/model.js';
import { WatchCache, WATCH_CACHE_DEFAULTS } from '../../src/track/watch-cache.js';
import { flush, ManualClock, until } from '../fakes.js';
import { fixtureText } from '../fixtures/load.js';

/** Events as the real kubectl printed them against the simulator (test/fixtures/kubectl/README.md). */
const captured = new WatchEventReader().push(fixtureText('kubectl/get-raw-watch-pods.jsonl'));
const expired = new WatchEventReader().push(fixtureText('kubectl/get-raw-watch-expired.jsonl'));
const listed = JSON.parse(fixtureText('kubectl/get-raw-list-pods.json')) as {
  metadata: { resourceVersion: string };
  items: KubeObject[];
};

const query: CollectionQuery = { namespace: 'default', type: 'pods', labelSelector: 'app=web' };

interface ScriptedWatch {
  from: string;
  emit(event: WatchEvent): void;
  end(how?: Awaited<WatchStream['done']>): void;
  stopped: boolean;
}

/** kubectl as the cache sees it: lists answered in order (the last repeats), watches driven by the test. */
function scriptedKubectl(lists: CollectionList[]) {
  const calls: string[] = [];
  const watches: ScriptedWatch[] = [];
  let listed = 0;
  const kubectl = {
    async listCollection(asked: CollectionQuery): Promise<CollectionList> {
      expect(asked).toEqual(query);
      calls.push('list');
      return lists[Math.min(listed++, lists.length - 1)]!;
    },
    watchCollection(
      asked: CollectionQuery,
      from: { resourceVersion: string },
      onEvent: (event: WatchEvent) => void,
    ): WatchStream {
      expect(asked).toEqual(query);
      calls.push(`watch from ${from.resourceVersion}`);
      let end!: (how: Awaited<WatchStream['done']>) => void;
      const done = new Promise<Awaited<WatchStream['done']>>((resolve) => (end = resolve));
      const watch: ScriptedWatch = {
        from: from.resourceVersion,
        emit: onEvent,
        end: (how = { ended: true }) => end(how),
        stopped: false,
      };
      watches.push(watch);
      return {
        done,
        stop: () => {
          watch.stopped = true;
          end({ ended: true });
        },
      };
    },
  };
  return { kubectl, calls, watches };
}

const ok = (items: KubeObject[], resourceVersion: string): CollectionList => ({ ok: true, items, resourceVersion });
const names = (cache: WatchCache) =>
  cache
    .contents()
    .map((object) => object.metadata.name)
    .sort();

function start(lists: CollectionList[]) {
  const clock = new ManualClock();
  const script = scriptedKubectl(lists);
  let changes = 0;
  const cache = new WatchCache(query, { kubectl: script.kubectl, clock }, () => (changes += 1));
  cache.start();
  return { ...script, clock, cache, changes: () => changes };
}

describe('WatchCache', () => {
  it('lists, then watches from the list resourceVersion and keeps every change the real stream carried', async () => {
    const { cache, calls, watches, changes } = start([ok(listed.items, listed.metadata.resourceVersion)]);
    await until(() => watches.length === 1);
    expect(calls).toEqual([`list`, `watch from ${listed.metadata.resourceVersion}`]);
    expect(cache.health.state).toBe('live');
    expect(names(cache)).toEqual(listed.items.map((pod) => pod.metadata.name).sort());
    for (const event of captured) watches[0]!.emit(event);
    const last = captured.filter((event) => event.type === 'MODIFIED').at(-1);
    const pod = cache
      .contents()
      .find((object) => last?.type === 'MODIFIED' && object.metadata.name === last.object.metadata.name);
    expect(pod?.metadata.resourceVersion).toBe(
      last?.type === 'MODIFIED' ? last.object.metadata.resourceVersion : undefined,
    );
    // Bookmarks move the resourceVersion but change no object.
    expect(changes()).toBe(1 + captured.filter((event) => event.type !== 'BOOKMARK').length);
    await cache.stop();
  });

  it('forgets a DELETED object', async () => {
    const { cache, watches } = start([ok(listed.items, '40')]);
    await until(() => watches.length === 1);
    const gone = listed.items[0]!;
    watches[0]!.emit({ type: 'DELETED', object: { ...gone, metadata: { ...gone.metadata, resourceVersion: '41' } } });
    expect(names(cache)).not.toContain(gone.metadata.name);
    await cache.stop();
  });

  it('resumes a watch the server ended from the last resourceVersion it saw, bookmarks included, without a list', async () => {
    const { cache, calls, watches } = start([ok([], '40')]);
    await until(() => watches.length === 1);
    watches[0]!.emit({ type: 'BOOKMARK', resourceVersion: '58' });
    watches[0]!.end();
    await until(() => watches.length === 2);
    expect(calls).toEqual(['list', 'watch from 40', 'watch from 58']);
    await cache.stop();
  });

  it('lists again at once when the watch answers 410 Expired, and watches from the new list', async () => {
    expect(expired[0]).toMatchObject({ type: 'ERROR', status: { code: 410, reason: 'Expired' } });
    const { cache, calls, watches } = start([ok(listed.items, '40'), ok([], '1200')]);
    await until(() => watches.length === 1);
    watches[0]!.emit(expired[0]!);
    expect(watches[0]!.stopped).toBe(true);
    await until(() => watches.length === 2);
    expect(calls).toEqual(['list', 'watch from 40', 'list', 'watch from 1200']);
    // The new list replaces what the old one had: objects deleted meanwhile are gone.
    expect(cache.contents()).toEqual([]);
    await cache.stop();
  });

  it('reconnects after a failed watch with a growing pause and a fresh list, and is live again', async () => {
    const refused = {
      ended: false as const,
      message: 'The connection to the server 127.0.0.1:1 was refused',
      transient: true,
    };
    const { cache, calls, watches, clock } = start([
      ok([], '40'),
      { ok: false, message: refused.message, transient: true },
      ok([], '77'),
    ]);
    await until(() => watches.length === 1);
    watches[0]!.end(refused);
    await until(() => cache.health.state === 'reconnecting');
    expect(cache.health).toMatchObject({ state: 'reconnecting', error: refused.message, since: 0 });
    expect(calls).toEqual(['list', 'watch from 40']);
    clock.advance(WATCH_CACHE_DEFAULTS.backoffMs[0]!);
    await until(() => calls.length === 3);
    expect(cache.health.state).toBe('reconnecting');
    clock.advance(WATCH_CACHE_DEFAULTS.backoffMs[1]!);
    await until(() => watches.length === 2);
    expect(calls).toEqual(['list', 'watch from 40', 'list', 'list', 'watch from 77']);
    expect(cache.health.state).toBe('live');
    await cache.stop();
  });

  it('gives up after repeated refusals that waiting will not cure (watch forbidden by RBAC)', async () => {
    const forbidden = {
      ended: false as const,
      message: 'pods is forbidden: User "ci" cannot watch resource "pods"',
      transient: false,
    };
    const { cache, watches, clock } = start([ok([], '40')]);
    for (let attempt = 1; attempt <= WATCH_CACHE_DEFAULTS.giveUpAfter; attempt += 1) {
      await until(() => watches.length === attempt);
      watches[attempt - 1]!.end(forbidden);
      if (attempt === WATCH_CACHE_DEFAULTS.giveUpAfter) break;
      // Between tries it lists again (RBAC allows list), so it is live until the watch is refused.
      await until(() => cache.health.state === 'reconnecting');
      clock.advance(WATCH_CACHE_DEFAULTS.backoffMs[attempt - 1]!);
    }
    await until(() => cache.health.state === 'failed');
    expect(cache.health).toEqual({ state: 'failed', error: forbidden.message });
    await cache.stop();
  });

  it('lists again after relistEveryMs without an event or a bookmark, stopping the silent watch', async () => {
    const { cache, calls, watches, clock } = start([ok([], '40'), ok([], '90')]);
    await until(() => watches.length === 1);
    clock.advance(WATCH_CACHE_DEFAULTS.relistEveryMs);
    await until(() => watches.length === 2);
    expect(watches[0]!.stopped).toBe(true);
    expect(calls).toEqual(['list', 'watch from 40', 'list', 'watch from 90']);
    await cache.stop();
  });

  it('does not list again while the stream delivers: a bookmark is a word from it', async () => {
    const { cache, calls, watches, clock } = start([ok([], '40'), ok([], '90')]);
    await until(() => watches.length === 1);
    const half = WATCH_CACHE_DEFAULTS.relistEveryMs / 2;
    for (let step = 0; step < 4; step += 1) {
      clock.advance(half);
      watches[0]!.emit({ type: 'BOOKMARK', resourceVersion: String(41 + step) });
      await flush();
    }
    // Two intervals have gone by, never one in silence.
    expect(calls).toEqual(['list', 'watch from 40']);
    expect(watches[0]!.stopped).toBe(false);
    clock.advance(WATCH_CACHE_DEFAULTS.relistEveryMs);
    await until(() => watches.length === 2);
    expect(calls).toEqual(['list', 'watch from 40', 'list', 'watch from 90']);
    await cache.stop();
  });

  it('lists nothing again, and does not spin, when its sleeps end at once (a cancelled run)', async () => {
    // The run's clock once it is cancelled (clock.ts interruptible): every sleep resolves at once.
    const cancelled = { now: () => 0, sleep: () => Promise.resolve() };
    const script = scriptedKubectl([ok([], '40'), ok([], '90')]);
    const cache = new WatchCache(query, { kubectl: script.kubectl, clock: cancelled }, () => undefined);
    cache.start();
    await until(() => script.watches.length === 1);
    await flush();
    expect(script.calls).toEqual(['list', 'watch from 40']);
    await cache.stop();
    expect(script.watches[0]!.stopped).toBe(true);
  });

  it('stop() ends the running watch and starts nothing after it', async () => {
    const { cache, calls, watches } = start([ok([], '40')]);
    await until(() => watches.length === 1);
    await cache.stop();
    expect(watches[0]!.stopped).toBe(true);
    expect(calls).toEqual(['list', 'watch from 40']);
  });
});
