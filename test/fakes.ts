// Test doubles for the pipeline's side effects: a clock that advances instantly and a reporter
// that records events. (kubectl itself is never faked in end-to-end tests.)
import type { Clock } from '../src/clock.js';
import type { Reporter, RunEvent } from '../src/report/events.js';

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
