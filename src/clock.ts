// Time, passed in: the real one here, a fake one in tests that advances instantly.
export interface Clock {
  /** Milliseconds since an arbitrary origin; only differences matter. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
