// The simulator's clock. Simulated time runs `timeScale` times faster than real time, so a
// 10 s image-pull back-off takes 1 s of wall time at --time-scale 10. Every timestamp the
// simulator writes (creationTimestamp, conditions, events, container state) comes from here.

export interface SimClock {
  readonly timeScale: number;
  /** Current simulated time. */
  now(): Date;
  /** Current simulated time as an RFC 3339 string with second precision, as the API serves it. */
  nowIso(): string;
  /** Run `callback` after `simulatedMs` of simulated time. Returns a cancel function. */
  after(simulatedMs: number, callback: () => void): () => void;
  /** Stop every pending timer (used when the cluster stops). */
  stopAll(): void;
}

export function createSimClock(timeScale = 1, startAt: Date = new Date()): SimClock {
  if (!(timeScale > 0)) throw new Error(`timeScale must be positive, got ${timeScale}`);
  const wallStart = Date.now();
  const simStart = startAt.getTime();
  const timers = new Set<NodeJS.Timeout>();
  const now = (): Date => new Date(simStart + (Date.now() - wallStart) * timeScale);
  return {
    timeScale,
    now,
    nowIso: () =>
      now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    after(simulatedMs, callback) {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          callback();
        },
        Math.max(0, simulatedMs / timeScale),
      );
      timer.unref?.();
      timers.add(timer);
      return () => {
        clearTimeout(timer);
        timers.delete(timer);
      };
    },
    stopAll() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
