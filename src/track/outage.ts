// One line per outage, not one per look: while the API server is away every look at a namespace
// fails (about every 1.6 s with back-off), and each failure reads a little differently ("for 3s",
// "for 5s"). The first failure of a namespace is said with the time it began; then nothing until
// the reads answer again (said once, with how long it lasted), or once a minute while it stays away.
import type { RunEvent } from '../model/events.js';

/** While a namespace's reads keep failing, a reminder this often. */
export const OUTAGE_REMINDER_MS = 60_000;

interface Outage {
  /** When its first failure was seen (the tracker's clock). */
  since: number;
  /** The wall-clock time of that failure, as said. */
  sinceIso: string;
  saidAt: number;
}

export class OutageNotes {
  private readonly outages = new Map<string, Outage>();

  /** What to say of one look at `namespace`: its error, or undefined when it answered. */
  see(namespace: string, error: Error | undefined, now: number, wallIso: string): RunEvent | undefined {
    const outage = this.outages.get(namespace);
    if (!error) {
      if (!outage) return undefined;
      this.outages.delete(namespace);
      return { kind: 'poll-recovered', namespace, afterMs: Math.round(now - outage.since) };
    }
    if (!outage) {
      this.outages.set(namespace, { since: now, sinceIso: wallIso, saidAt: now });
      return { kind: 'poll-error', namespace, message: error.message, since: wallIso };
    }
    if (now - outage.saidAt < OUTAGE_REMINDER_MS) return undefined;
    outage.saidAt = now;
    return {
      kind: 'poll-error',
      namespace,
      message: error.message,
      since: outage.sinceIso,
      forMs: Math.round(now - outage.since),
    };
  }
}
