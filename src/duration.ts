// Go-style durations, as kubectl takes them: the one parser for the flags and the annotations.
import { InputError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest delay Node's timers take (2^31-1 ms, about 24.8 days): a longer one fires after
 * 1 ms with a TimeoutOverflowWarning (Node docs, setTimeout), which would turn a long --timeout
 * into an instant one.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** 300ms, 90s, 5m, 1m30s; a bare number is seconds. `what` names the flag or annotation. */
export function parseDuration(text: string, what: string): number {
  const ms = durationMs(text.trim());
  if (ms === undefined)
    throw new InputError(`${what} ${JSON.stringify(text)} is not a duration. Use forms like 90s, 5m or 1m30s.`);
  if (ms > MAX_DURATION_MS) {
    throw new InputError(
      `${what} ${text} is too long: the longest duration kguard can wait is 596h (about 24.8 days).`,
    );
  }
  return ms;
}

function durationMs(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  return parts.reduce((total, part) => total + Number(part[1]) * (UNITS[part[2] as string] ?? 0), 0);
}

/** A duration as the flags print it: 5m, 2s, 1m30s, 300ms. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const text = `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${seconds}s` : ''}`;
  return text || '0s';
}
