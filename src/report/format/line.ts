// What a formatted event is (a line with a tone and indented details), and the small pieces of
// text every formatter shares. Pure.
import type { ContainerLog } from '../../model/findings.js';

export type Tone = 'ok' | 'fail' | 'warn' | 'info' | 'undo' | 'alarm';

export interface Line {
  tone: Tone;
  text: string;
  /** Indented lines under the main one: evidence, next steps, commands. */
  details?: string[];
}

export function seconds(ms: number): string {
  const total = ms / 1000;
  if (total < 60) return `${total.toFixed(1)}s`;
  return `${Math.floor(total / 60)}m${Math.round(total % 60)}s`;
}

export function plural(count: number): string {
  return count === 1 ? '' : 's';
}

/** The first 8 of `items`, each as `describe` says it, and how many more there are. */
export function firstEight<T>(items: readonly T[], describe: (item: T) => string): string {
  const shown = items.slice(0, 8).map(describe).join(', ');
  return items.length > 8 ? `${shown} and ${items.length - 8} more` : shown;
}

/** The last lines failing containers printed (their pods may be gone by now), `shown` of each. */
export function containerLogLines(logs: readonly ContainerLog[]): string[] {
  return logs.flatMap((log) => {
    const lines = log.lines.slice(-log.shown);
    if (lines.length === 0) return [];
    const run = log.previous ? ', run before the restart' : '';
    return [`last lines of container ${log.container} (pod ${log.pod}${run}):`, ...lines.map((line) => `  | ${line}`)];
  });
}
