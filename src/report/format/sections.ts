// A wave's clusters run in parallel; their events would interleave line by line. Sections keep
// each cluster's together: the first unfinished cluster of the wave streams live, the others are
// held and follow, each whole, in the wave's order as the one before them ends.
import type { Reporter, RunEvent } from '../../model/events.js';

export class ClusterSections {
  private readonly held = new Map<string, RunEvent[]>();
  private readonly ended = new Set<string>();
  private next = 0;

  constructor(
    private readonly inner: Reporter,
    private readonly order: readonly string[],
  ) {
    for (const context of order) this.held.set(context, []);
  }

  /** The reporter of one cluster's run; closing it ends nothing (the fleet closes the terminal's once). */
  reporterFor(context: string): Reporter {
    return {
      emit: (event) =>
        this.order[this.next] === context ? this.inner.emit(event) : this.held.get(context)?.push(event),
      close: () => undefined,
    };
  }

  /** The cluster's run ended: the next clusters' held events follow, those that ended too whole. */
  end(context: string): void {
    this.ended.add(context);
    while (this.next < this.order.length && this.ended.has(this.order[this.next]!)) {
      this.next += 1;
      const following = this.order[this.next];
      if (following === undefined) break;
      for (const event of this.held.get(following) ?? []) this.inner.emit(event);
      this.held.set(following, []);
    }
  }
}
