// Time, passed in: the real one here, a fake one in tests that advances instantly.
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences matter. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (its timer is then cleared). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock whose sleeps end early once `signal` aborts: a cancelled run stops waiting at once. */
export function interruptible(clock: Clock, signal: AbortSignal | undefined): Clock {
  if (!signal) return clock;
  return {
    now: () => clock.now(),
    sleep: (ms, own) => clock.sleep(ms, own ? AbortSignal.any([signal, own]) : signal),
  };
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      // A pending timer would keep the process alive after the run: it is cleared on abort.
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
