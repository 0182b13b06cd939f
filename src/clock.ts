// Time, passed in: the real one here, a fake one in tests that advances instantly.
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences matter. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** A clock whose sleeps end early once `signal` aborts: a cancelled run stops waiting at once. */
export function interruptible(clock: Clock, signal: AbortSignal | undefined): Clock {
  if (!signal) return clock;
  return {
    now: () => clock.now(),
    sleep: (ms) =>
      signal.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              signal.removeEventListener('abort', done);
              resolve();
            };
            signal.addEventListener('abort', done);
            void clock.sleep(ms).then(done);
          }),
  };
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
