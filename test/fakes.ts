// Test doubles for the pipeline's side effects: a clock that advances instantly and a reporter
// that records events. (kubectl itself is never faked in end-to-end tests.)
import type { Clock } from '../src/clock.js';
import { snapshotOf } from '../src/kubectl/resources.js';
import type { Reporter, RunEvent } from '../src/model/events.js';
import type { WorkloadSnapshot } from '../src/model/snapshot.js';
import type { Expectation } from '../src/model/verdict.js';
import type { KubeObject } from '../src/objects/model.js';

export class FakeClock implements Clock {
  constructor(private current = 0) {}
  now(): number {
    return this.current;
  }
  async sleep(ms: number): Promise<void> {
    this.current += ms;
  }
}

export class RecordingReporter implements Reporter {
  readonly events: RunEvent[] = [];
  closed = false;
  emit(event: RunEvent): void {
    this.events.push(event);
  }
  close(): void {
    this.closed = true;
  }
  kinds(): string[] {
    return this.events.map((event) => event.kind);
  }
}

/**
 * A clock that moves only when the test says so: sleeps end when `advance` passes their time, or
 * when their signal aborts. For code that keeps several timers at once (watch back-offs, relists).
 */
export class ManualClock implements Clock {
  private current = 0;
  private readonly sleepers = new Set<{ until: number; wake: () => void }>();

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sleeper = {
        until: this.current + ms,
        wake: () => {
          this.sleepers.delete(sleeper);
          signal?.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', sleeper.wake, { once: true });
    });
  }

  /** Moves time on and wakes every sleep that is due. */
  advance(ms: number): void {
    this.current += ms;
    for (const sleeper of [...this.sleepers]) if (sleeper.until <= this.current) sleeper.wake();
  }

  /** How many sleeps are waiting. */
  get sleeping(): number {
    return this.sleepers.size;
  }
}

/** Lets pending promise callbacks and I/O callbacks run until `ready()` holds (no wall-clock waits). */
export async function until(ready: () => boolean, rounds = 200): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    if (ready()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the awaited state never came');
}

/** Lets every pending promise and I/O callback run (a few event loop turns; no wall-clock wait). */
export async function flush(rounds = 20): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** A snapshot as one look reads it, from its parts (every object goes into `objects`, pods too). */
export function snapshotFrom(parts: {
  deployments?: readonly unknown[];
  replicaSets?: readonly unknown[];
  pods?: readonly unknown[];
  others?: readonly unknown[];
}): WorkloadSnapshot {
  return snapshotOf([
    ...(parts.deployments ?? []),
    ...(parts.replicaSets ?? []),
    ...(parts.pods ?? []),
    ...(parts.others ?? []),
  ] as KubeObject[]);
}

/** What kguard expects of an object it applied: the object itself. */
export function expectationOf(applied: unknown): Expectation {
  return { applied: applied as KubeObject };
}
