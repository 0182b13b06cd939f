// The recent change history watches replay from (`?watch=true&resourceVersion=N`), like the
// API server's watch cache. Each entry also carries the object's previous state so a filtered
// watch can tell when an object starts or stops matching its selectors.

import { RESOURCE_TYPES } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';

export interface HistoryEntry extends StoreEvent {
  /** The object before this change (MODIFIED and DELETED only). */
  previous?: KubeObject;
}

type Listener = (entry: HistoryEntry) => void;

export class WatchHistory {
  private readonly entries: HistoryEntry[] = [];
  private readonly latestByKey = new Map<string, KubeObject>();
  private readonly listeners = new Set<Listener>();
  /** Changes up to and including this resourceVersion are no longer replayable. */
  private evictedThrough: number;
  private readonly unsubscribe: () => void;

  constructor(
    store: Store,
    private readonly capacity = 10_000,
  ) {
    this.evictedThrough = store.currentResourceVersion();
    for (const type of RESOURCE_TYPES) for (const obj of store.list(type.kind)) this.latestByKey.set(keyOf(obj), obj);
    this.unsubscribe = store.subscribe((event) => this.record(event));
  }

  /** Entries after `resourceVersion`, or 'expired' when some of them were already evicted. */
  since(resourceVersion: number): HistoryEntry[] | 'expired' {
    if (resourceVersion < this.evictedThrough) return 'expired';
    return this.entries.filter((entry) => entry.resourceVersion > resourceVersion);
  }

  oldestReplayableVersion(): number {
    return this.evictedThrough;
  }

  /** Live entries, delivered synchronously right after they are recorded. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.unsubscribe();
    this.listeners.clear();
  }

  private record(event: StoreEvent): void {
    const key = keyOf(event.object);
    const entry: HistoryEntry = { ...event, previous: this.latestByKey.get(key) };
    if (event.type === 'DELETED') this.latestByKey.delete(key);
    else this.latestByKey.set(key, event.object);

    this.entries.push(entry);
    // Trim in batches: splicing the front of a 10k array on every write would be quadratic.
    if (this.entries.length > this.capacity + 1000) {
      const evicted = this.entries.splice(0, this.entries.length - this.capacity);
      this.evictedThrough = evicted[evicted.length - 1]!.resourceVersion;
    }
    for (const listener of [...this.listeners]) listener(entry);
  }
}

function keyOf(obj: KubeObject): string {
  return `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}
