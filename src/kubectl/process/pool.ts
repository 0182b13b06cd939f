// A bounded pool for kubectl processes: every fan-out (leases, snapshots, restore writes, deletes)
// waits for a free slot, so a 1,000-object apply runs at most `size` kubectl processes at once
// instead of one per object. Watch streams are long-lived and stay outside the pool.
export class ProcessPool {
  private running = 0;
  private highest = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a pool needs at least one slot, not ${size}`);
  }

  /** The most processes that ran at once. */
  get peak(): number {
    return this.highest;
  }

  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    this.highest = Math.max(this.highest, this.running);
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line; only an empty queue frees it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
