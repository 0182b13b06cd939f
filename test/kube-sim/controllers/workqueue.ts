// A keyed, de-duplicating, delayed work queue driven by the simulation clock, like client-go's
// workqueue: many store events for one object collapse into a single sync a step later, and a
// sync that hits a 409 Conflict (someone wrote in between) simply runs again.

import type { SimClock } from '../clock.js';
import { ApiError } from '../errors.js';

export class WorkQueue {
  private readonly pending = new Map<string, { dueAt: number; cancel: () => void }>();
  private stopped = false;

  constructor(
    private readonly clock: SimClock,
    private readonly stepMs: number,
    private readonly sync: (key: string) => void,
    private readonly name: string,
  ) {}

  /** Sync `key` after `delayMs` (default: one controller step), unless an earlier sync is already due. */
  add(key: string, delayMs = this.stepMs): void {
    if (this.stopped) return;
    const dueAt = this.clock.now().getTime() + delayMs;
    const existing = this.pending.get(key);
    if (existing && existing.dueAt <= dueAt) return;
    existing?.cancel();
    const cancel = this.clock.after(delayMs, () => this.run(key));
    this.pending.set(key, { dueAt, cancel });
  }

  stop(): void {
    this.stopped = true;
    for (const { cancel } of this.pending.values()) cancel();
    this.pending.clear();
  }

  private run(key: string): void {
    this.pending.delete(key);
    if (this.stopped) return;
    try {
      this.sync(key);
    } catch (error) {
      if (error instanceof ApiError && (error.code === 409 || error.code === 404)) {
        this.add(key);
        return;
      }
      // A bug in the simulator must not go unnoticed, but must not kill the cluster either.
      console.error(`[kube-sim ${this.name}] sync ${key} failed:`, error);
      this.add(key, this.stepMs * 10);
    }
  }
}

export function namespacedKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

export function splitKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
