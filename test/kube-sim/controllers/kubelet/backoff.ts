// client-go's flowcontrol.Backoff as the kubelet uses it for image pulls and container restarts:
// per key, start at `initial`, double on every Next up to `max`, forget after 2×max of quiet.

export class Backoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  next(key: string, eventTime: number, now: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: now });
      return;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
    entry.lastUpdate = now;
  }

  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** In back-off counted from `eventTime` (e.g. when the container finished). */
  isInBackOffSince(key: string, eventTime: number, now: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) return false;
    return now - eventTime < entry.backoffMs;
  }

  /** In back-off counted from the last Next (image pulls). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) return false;
    return eventTime - entry.lastUpdate < entry.backoffMs;
  }

  /** When the current back-off window of `key` ends, counted from its last update. */
  expiresAt(key: string): number | undefined {
    const entry = this.entries.get(key);
    return entry ? entry.lastUpdate + entry.backoffMs : undefined;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private hasExpired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > this.maxMs * 2;
  }
}
