// Progress lines for a log that is read afterwards (CI, a pipe): a crash loop flips a rollout's
// ready count several times a second, and each flip was a line of its own (23 in 4 s for one
// Deployment). Here a change that says something new is printed at once: the object's first line,
// and a line of a shape not printed before (its text with the numbers left out: "ready pods count
// as available after minReadySeconds" after "new replicas have been updated"). A change of numbers
// only, or back to a shape already printed, gets one line every PROGRESS_INTERVAL_MS at most: held,
// and printed when the interval ends if it still differs from the last line printed. Any other line
// about the object (its verdict above all) drops what is held and is always printed. The spinner
// redraws one line in place and needs none of this; --events, the JSON report and the job summary
// keep every event.
import type { Clock } from '../clock.js';
import type { Reporter, RunEvent } from '../model/events.js';
import { objectKey, type ObjectRef } from '../objects/model.js';
import { formatEvent } from './format/format.js';

/**
 * 5 s: a person reading a CI log still sees the rollout move (kubectl rollout status prints each
 * change; Argo CD and Flux requeue a sync every few seconds), and a 10-minute --timeout costs at
 * most 120 progress lines per object instead of hundreds.
 */
export const PROGRESS_INTERVAL_MS = 5000;

type Progress = Extract<RunEvent, { kind: 'progress' }>;

interface Printed {
  at: number;
  text: string;
  /** The shapes printed for this object so far: a new one is news, a known one is throttled. */
  shapes: Set<string>;
  /** The latest progress not printed yet, and the end of its wait. */
  held?: { event: Progress; stop: AbortController };
}

export class ProgressThrottle implements Reporter {
  /** By object and phase: the restore's first line is a first line too. */
  private readonly printed = new Map<string, Printed>();

  constructor(
    private readonly inner: Reporter,
    private readonly clock: Clock,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  emit(event: RunEvent): void {
    if (event.kind === 'progress') {
      this.progress(event);
      return;
    }
    // A pod's problem or a note is evidence on the way, not the end of the object's progress.
    if ('workload' in event && event.workload && event.kind !== 'pod-problem' && event.kind !== 'note')
      this.forget(event.workload);
    if (event.kind === 'finished') this.forgetAll();
    this.inner.emit(event);
  }

  close(): void {
    this.forgetAll();
    this.inner.close();
  }

  private progress(event: Progress): void {
    const key = `${objectKey(event.workload)}\u0000${event.phase}`;
    const text = formatEvent(event).text;
    const last = this.printed.get(key);
    if (!last?.shapes.has(shapeOf(text))) {
      last?.held?.stop.abort();
      this.print(key, event, text, last?.shapes);
      return;
    }
    if (last.held) {
      last.held.event = event;
      return;
    }
    if (text === last.text) return;
    const wait = last.at + this.intervalMs - this.clock.now();
    if (wait <= 0) {
      this.print(key, event, text, last.shapes);
      return;
    }
    const stop = new AbortController();
    last.held = { event, stop };
    void this.clock.sleep(wait, stop.signal).then(() => {
      if (stop.signal.aborted || this.printed.get(key) !== last || !last.held) return;
      const held = last.held.event;
      last.held = undefined;
      const heldText = formatEvent(held).text;
      if (heldText !== last.text) this.print(key, held, heldText, last.shapes);
    });
  }

  private print(key: string, event: Progress, text: string, shapes = new Set<string>()): void {
    shapes.add(shapeOf(text));
    this.printed.set(key, { at: this.clock.now(), text, shapes });
    this.inner.emit(event);
  }

  private forget(workload: ObjectRef): void {
    const prefix = `${objectKey(workload)}\u0000`;
    for (const [key, printed] of this.printed) {
      if (!key.startsWith(prefix)) continue;
      printed.held?.stop.abort();
      this.printed.delete(key);
    }
  }

  private forgetAll(): void {
    for (const printed of this.printed.values()) printed.held?.stop.abort();
    this.printed.clear();
  }
}

/** A progress line with its numbers left out: what kind of wait it says, not how far along it is. */
function shapeOf(text: string): string {
  return text.replace(/\d+(\.\d+)?/g, '#');
}
