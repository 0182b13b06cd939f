// The latest objects of one collection (a namespace, a type, a selector), kept by a list and a
// watch from that list's resourceVersion, the way client-go's reflector keeps an informer's store
// (tools/cache/reflector.go, ListAndWatch):
//   - a watch the server ends (its timeoutSeconds, a cut stream) is resumed from the last
//     resourceVersion seen, bookmarks included, without a new list;
//   - an expired resourceVersion (410 Gone, "too old resource version") means events were lost:
//     list again at once and watch from the new list;
//   - a failed list or watch (API server unreachable, 5xx, 429) is tried again after a growing
//     pause, with a fresh list;
//   - a list again after relistEveryMs without a word from the stream (no event, no bookmark,
//     which the server sends at its discretion: allowWatchBookmarks in the API reference), a
//     safety net for a stream that silently stalls. A stream that delivers is not listed again:
//     at a thousand objects each such list put a new copy of every object in memory, and every
//     workload was judged anew.
// Failures that will not go away by waiting (RBAC refuses watch, the type is not served) give up
// after a few tries: the owner then polls instead.
import type { Clock } from '../clock.js';
import type { CollectionQuery, Kubectl } from '../kubectl/types.js';
import { isExpired, type WatchEvent } from '../kubectl/channel/watch-events.js';
import type { KubeObject } from '../objects/model.js';

export type CacheHealth =
  /** No list has come back yet. */
  | { state: 'starting'; since: number; error?: string }
  | { state: 'live' }
  /** It had the objects, lost the stream, and is trying again (the objects are as last seen). */
  | { state: 'reconnecting'; since: number; error: string }
  /** It gave up: watching this collection does not work. */
  | { state: 'failed'; error: string };

export interface WatchCacheOptions {
  /** The server ends each watch after this long (timeoutSeconds); it is then resumed. */
  watchSeconds: number;
  /** A fresh list after this long without an event or a bookmark from the stream. */
  relistEveryMs: number;
  /** Pauses before the next try after 1, 2, 3... failures in a row (the last one repeats). */
  backoffMs: readonly number[];
  /** Failures in a row that waiting will not cure, after which the cache gives up. */
  giveUpAfter: number;
  /** A watch that ends sooner than this, having delivered nothing, counts as a failure. */
  minWatchMs: number;
}

export const WATCH_CACHE_DEFAULTS: WatchCacheOptions = {
  // client-go picks 5-10 min (reflector minWatchTimeout); one rollout rarely lasts longer.
  watchSeconds: 300,
  relistEveryMs: 60_000,
  backoffMs: [100, 250, 500, 1000, 2000, 5000],
  giveUpAfter: 3,
  minWatchMs: 1000,
};

export interface WatchCacheDeps {
  kubectl: Pick<Kubectl, 'listCollection' | 'watchCollection'>;
  clock: Clock;
}

type WatchOutcome =
  | { kind: 'expired' | 'relist' | 'ended'; delivered: boolean }
  | { kind: 'failed'; message: string; transient: boolean };

export class WatchCache {
  private readonly objects = new Map<string, KubeObject>();
  private resourceVersion: string | undefined;
  private currentHealth: CacheHealth;
  private readonly stopping = new AbortController();
  private stopStream: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    readonly query: CollectionQuery,
    private readonly deps: WatchCacheDeps,
    /** Called at once on every change of the objects or of the health. */
    private readonly onChange: () => void,
    private readonly options: WatchCacheOptions = WATCH_CACHE_DEFAULTS,
  ) {
    this.currentHealth = { state: 'starting', since: deps.clock.now() };
  }

  get health(): CacheHealth {
    return this.currentHealth;
  }

  /** The objects as last seen. */
  contents(): KubeObject[] {
    return [...this.objects.values()];
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops the watch and its kubectl; resolves when nothing of it runs any more. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.stopStream?.();
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      if (this.resourceVersion === undefined) {
        const list = await this.deps.kubectl.listCollection(this.query);
        if (this.stopped) return;
        if (!list.ok) {
          failures += 1;
          if (this.troubled(list.message, list.transient, failures)) return;
          await this.pause(failures);
          continue;
        }
        this.objects.clear();
        for (const object of list.items) this.objects.set(object.metadata.name, lean(object));
        this.resourceVersion = list.resourceVersion;
        this.currentHealth = { state: 'live' };
        this.onChange();
      }
      const startedAt = this.deps.clock.now();
      const outcome = await this.watchOnce(this.resourceVersion);
      if (this.stopped) return;
      if (outcome.kind === 'failed') {
        failures += 1;
        if (this.troubled(outcome.message, outcome.transient, failures)) return;
        // Whatever was missed while it was down, a fresh list has.
        this.resourceVersion = undefined;
        await this.pause(failures);
        continue;
      }
      if (outcome.delivered || this.deps.clock.now() - startedAt >= this.options.minWatchMs) failures = 0;
      else {
        // Ended at once with nothing: something between kguard and the API server does not stream.
        failures += 1;
        if (this.troubled('the watch ended as soon as it started', false, failures)) return;
        await this.pause(failures);
      }
      if (outcome.kind !== 'ended') this.resourceVersion = undefined;
    }
  }

  /** Records a failure; true when the cache gives up. Transient failures never give up. */
  private troubled(message: string, transient: boolean, failures: number): boolean {
    if (!transient && failures >= this.options.giveUpAfter) {
      this.currentHealth = { state: 'failed', error: message };
      this.onChange();
      return true;
    }
    const health = this.currentHealth;
    const since = health.state === 'starting' || health.state === 'reconnecting' ? health.since : this.deps.clock.now();
    this.currentHealth =
      health.state === 'starting'
        ? { state: 'starting', since, error: message }
        : { state: 'reconnecting', since, error: message };
    this.onChange();
    return false;
  }

  private async pause(failures: number): Promise<void> {
    const { backoffMs } = this.options;
    await this.deps.clock.sleep(backoffMs[Math.min(failures, backoffMs.length) - 1] ?? 0, this.stopping.signal);
  }

  /** One watch, from `resourceVersion` until the server ends it, it fails, or a relist is due. */
  private async watchOnce(resourceVersion: string): Promise<WatchOutcome> {
    let delivered = false;
    let expired = false;
    let error: string | undefined;
    let heardAt = this.deps.clock.now();
    const stream = this.deps.kubectl.watchCollection(
      this.query,
      { resourceVersion, timeoutSeconds: this.options.watchSeconds },
      (event) => {
        delivered = true;
        heardAt = this.deps.clock.now();
        if (this.stopped) return;
        if (event.type === 'ERROR') {
          if (isExpired(event.status)) expired = true;
          else
            error =
              event.status.message ??
              `the watch failed (${event.status.reason ?? event.status.code ?? 'no reason given'})`;
          stream.stop();
          return;
        }
        this.apply(event);
      },
    );
    this.stopStream = () => stream.stop();
    const relistDue = new AbortController();
    let relist = false;
    void (async () => {
      for (;;) {
        const silentUntil = heardAt + this.options.relistEveryMs;
        if (this.deps.clock.now() < silentUntil) {
          await this.deps.clock.sleep(silentUntil - this.deps.clock.now(), relistDue.signal);
          // A sleep also ends early when the run is cancelled or the watch ended: nothing is due then.
          if (relistDue.signal.aborted || this.stopped || this.deps.clock.now() < silentUntil) return;
          continue;
        }
        relist = true;
        stream.stop();
        return;
      }
    })();
    const end = await stream.done;
    relistDue.abort();
    this.stopStream = undefined;
    if (expired) return { kind: 'expired', delivered };
    if (relist) return { kind: 'relist', delivered };
    // An ERROR event other than expiry: the server refused to go on (e.g. 500 from the watch cache).
    if (error !== undefined) return { kind: 'failed', message: error, transient: true };
    if (!end.ended) return { kind: 'failed', message: end.message, transient: end.transient };
    return { kind: 'ended', delivered };
  }

  private apply(event: Exclude<WatchEvent, { type: 'ERROR' }>): void {
    if (event.type === 'BOOKMARK') {
      this.resourceVersion = event.resourceVersion;
      return;
    }
    const { object } = event;
    if (event.type === 'DELETED') this.objects.delete(object.metadata.name);
    else this.objects.set(object.metadata.name, lean(object));
    this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
    if (this.currentHealth.state !== 'live') this.currentHealth = { state: 'live' };
    this.onChange();
  }
}

/**
 * The object without most of its managedFields: the tracker judges by the applied copy, and at a
 * thousand objects they were a third of what the caches held. The entries written through /scale
 * stay: they tell an autoscaler's replicas from someone else's change (objects/owners.ts).
 */
function lean(object: KubeObject): KubeObject {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields, ...metadata } = object.metadata;
  const scale = (managedFields as Array<{ subresource?: string }>).filter((entry) => entry.subresource === 'scale');
  return { ...object, metadata: scale.length > 0 ? { ...metadata, managedFields: scale } : metadata };
}
