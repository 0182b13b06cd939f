// A restore's writes outlast a short API outage: a write or read that failed in a way that may pass
// (connection refused or reset, EOF, a timeout, 429, 5xx, etcd's leader change: kubectl/transient.ts)
// is asked again after a capped, jittered back-off until --rollback-timeout. The caller reads the
// object again before each retry, so a write that landed although its answer was lost is seen as
// written, never sent twice; the conditional writes (uid, resourceVersion) stay as they were.
import type { Clock } from '../clock.js';
import { backoffMs, isUnreachableText, mayPassLater, RESTORE_BACKOFF } from '../kubectl/transient.js';

/** Returned by `attempt` when the read failed in a way that may pass and a retry was waited for. */
export const RETRY = Symbol('retry');

export class Persistence {
  /** Set when a back-off was just slept: the caller's own pause is not added on top. */
  waited = false;
  private retries = 0;
  private firstFailureAt: number | undefined;
  private unreachable = false;

  constructor(
    private readonly giveUpAt: number,
    private readonly deps: { clock: Clock; random?: () => number },
  ) {}

  /** After a failure that kubectl described with `stderr`: true once the back-off is waited (ask again), false to give up. */
  async retryAfter(stderr: string): Promise<boolean> {
    if (!mayPassLater(stderr)) return false;
    const now = this.deps.clock.now();
    this.firstFailureAt ??= now;
    this.unreachable = isUnreachableText(stderr);
    if (now >= this.giveUpAt) return false;
    const wait = backoffMs(this.retries, RESTORE_BACKOFF, (this.deps.random ?? Math.random)());
    this.retries += 1;
    const pause = Math.min(wait, this.giveUpAt - now);
    await this.deps.clock.sleep(pause);
    // A pause cut short is a signal (the run's clock is interruptible): no busy loop against a
    // server that is away; what is left is said with the commands that finish it.
    if (this.deps.clock.now() - now < pause / 2) return false;
    this.waited = true;
    return true;
  }

  /** A read: its value, RETRY after a waited back-off, or the error that ends the restore of the object. */
  async attempt<T>(read: () => Promise<T>): Promise<T | typeof RETRY | Error> {
    try {
      return await read();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const stderr = (error as { stderr?: unknown }).stderr;
      if (await this.retryAfter(typeof stderr === 'string' && stderr !== '' ? stderr : message)) return RETRY;
      return new Error(message);
    }
  }

  /**
   * Why the object could not be restored when the API server was away: "unreachable" when nothing
   * answered, "kept failing" when it answered with errors that may pass, and for how long;
   * undefined when the server refused (the caller's own words).
   */
  outage(message: string, what: string, stderr = message): string | undefined {
    if (!mayPassLater(stderr)) return undefined;
    const since = this.firstFailureAt === undefined ? 0 : this.deps.clock.now() - this.firstFailureAt;
    const tried = `kguard tried again for ${Math.round(since / 1000)}s, until --rollback-timeout ran out`;
    if (isUnreachableText(stderr) || this.unreachable)
      return `the API server was unreachable when kguard tried to ${what} (${message}); ${tried}`;
    return `the API server kept failing when kguard tried to ${what} (${message}); ${tried}`;
  }
}
