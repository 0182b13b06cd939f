// Where the tracker's view of the cluster comes from. Both sources answer the same question (the
// objects of these types in this namespace, now) and feed the same verdicts; only the cost and the
// delay differ.
//   - polling: one `kubectl get A,B,C -n NS -o json` per namespace per cycle;
//   - watching: a WatchCache per namespace, type and selector (watch-cache.ts), read from memory;
//     the tracker judges as soon as something changed. A namespace whose watches do not work is
//     polled instead.
import type { Clock } from '../clock.js';
import type { CollectionQuery, Kubectl } from '../kubectl/types.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import { snapshotOf } from '../kubectl/resources.js';
import type { Reporter } from '../model/events.js';
import { WatchCache, WATCH_CACHE_DEFAULTS, type WatchCacheOptions } from './watch-cache.js';

/** One namespace's objects of the requested types; undefined: not known yet (a watch still starting). */
export type Reading = WorkloadSnapshot | Error | undefined;

export interface WorkloadSource {
  /** The objects of each namespace's types, now. */
  read(typesByNamespace: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Reading>>;
  /**
   * Resolves when something may have changed since the last read, not before `earliest` (the
   * clock's time) unless `ms` is up first, and after `ms` at the latest.
   */
  changed(ms: number, earliest?: number): Promise<void>;
  /** Stops whatever runs in the background (watch processes). */
  close(): Promise<void>;
}

export function pollingSource(kubectl: Pick<Kubectl, 'workloadSnapshot'>, clock: Clock): WorkloadSource {
  return {
    read: (typesByNamespace) => pollAll(kubectl, typesByNamespace),
    changed: (ms) => clock.sleep(ms),
    close: async () => undefined,
  };
}

async function pollAll(
  kubectl: Pick<Kubectl, 'workloadSnapshot'>,
  typesByNamespace: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, Reading>> {
  return new Map(
    await Promise.all(
      [...typesByNamespace].map(
        async ([namespace, types]) => [namespace, await poll(kubectl, namespace, types)] as const,
      ),
    ),
  );
}

async function poll(
  kubectl: Pick<Kubectl, 'workloadSnapshot'>,
  namespace: string,
  types: readonly string[],
): Promise<WorkloadSnapshot | Error> {
  try {
    return await kubectl.workloadSnapshot(namespace, types);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export interface WatchSourceOptions {
  /** The polling period of a namespace that falls back to polling (--poll-interval). */
  pollIntervalMs: number;
  /** A watch without an answer this long is reported, and its namespace reads as an error. */
  silenceMs: number;
  /** After a change, how long to wait for the rest of its burst before the tracker judges. */
  debounceMs: number;
  cache: WatchCacheOptions;
}

export const WATCH_SOURCE_DEFAULTS: Omit<WatchSourceOptions, 'pollIntervalMs'> = {
  silenceMs: 5000,
  // A controller writes a pod, its ReplicaSet and its Deployment within a few ms of each other.
  debounceMs: 10,
  cache: WATCH_CACHE_DEFAULTS,
};

export type WatchSourceDeps = {
  kubectl: Pick<Kubectl, 'workloadSnapshot' | 'listCollection' | 'watchCollection'>;
  clock: Clock;
  reporter: Reporter;
};

export class WatchSource implements WorkloadSource {
  private readonly caches: WatchCache[];
  /** Bumped on every change a cache reports; a read remembers the value it saw. */
  private version = 0;
  private seenVersion = 0;
  private readonly waiters = new Set<() => void>();
  private readonly fellBack = new Set<string>();

  constructor(
    queries: readonly CollectionQuery[],
    private readonly deps: WatchSourceDeps,
    private readonly options: WatchSourceOptions,
  ) {
    this.caches = queries.map((query) => new WatchCache(query, deps, () => this.noteChange(), options.cache));
    for (const cache of this.caches) cache.start();
  }

  async read(typesByNamespace: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Reading>> {
    this.seenVersion = this.version;
    return new Map(
      await Promise.all(
        [...typesByNamespace].map(
          async ([namespace, types]) => [namespace, await this.readNamespace(namespace, types)] as const,
        ),
      ),
    );
  }

  private async readNamespace(namespace: string, types: readonly string[]): Promise<Reading> {
    if (this.fellBack.has(namespace)) return poll(this.deps.kubectl, namespace, types);
    const caches = types.map((type) =>
      this.caches.find((cache) => cache.query.namespace === namespace && cache.query.type === type),
    );
    const failed = caches.find((cache) => cache === undefined || cache.health.state === 'failed');
    if (caches.some((cache) => cache === undefined) || failed) {
      this.fellBack.add(namespace);
      const reason =
        failed?.health.state === 'failed'
          ? `${failed.query.type}: ${failed.health.error}`
          : 'a type kguard cannot watch';
      this.deps.reporter.emit({
        kind: 'watch-fallback',
        namespace,
        reason,
        pollIntervalMs: this.options.pollIntervalMs,
      });
      // Its other watches are of no use any more.
      await Promise.all(
        this.caches.filter((cache) => cache.query.namespace === namespace).map((cache) => cache.stop()),
      );
      return poll(this.deps.kubectl, namespace, types);
    }
    const now = this.deps.clock.now();
    for (const cache of caches as WatchCache[]) {
      const health = cache.health;
      if (
        (health.state === 'starting' || health.state === 'reconnecting') &&
        now - health.since >= this.options.silenceMs
      ) {
        const seconds = Math.round((now - health.since) / 1000);
        return new Error(
          `no answer to the watch of ${cache.query.type} for ${seconds}s (${health.error ?? 'no answer yet'})`,
        );
      }
    }
    if (caches.some((cache) => cache!.health.state === 'starting')) return undefined;
    return snapshotOf(caches.flatMap((cache) => cache!.contents()));
  }

  changed(ms: number, earliest = 0): Promise<void> {
    return new Promise((resolve) => {
      const waiting = new AbortController();
      const finish = () => {
        waiting.abort();
        this.waiters.delete(onChange);
        resolve();
      };
      // The rest of a burst of changes comes within a few ms: one judgement for all of it.
      const onChange = () => {
        this.waiters.delete(onChange);
        const pause = Math.max(this.options.debounceMs, earliest - this.deps.clock.now());
        void this.deps.clock.sleep(pause, waiting.signal).then(finish);
      };
      void this.deps.clock.sleep(ms, waiting.signal).then(finish);
      if (this.version !== this.seenVersion) onChange();
      else this.waiters.add(onChange);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.caches.map((cache) => cache.stop()));
  }

  private noteChange(): void {
    this.version += 1;
    for (const waiter of [...this.waiters]) waiter();
  }
}
