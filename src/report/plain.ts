// One line per event, for CI logs, pipes and --output json (where it writes to stderr).
import { Chalk, type ChalkInstance } from 'chalk';
import type { Clock } from '../clock.js';
import type { Reporter, RunEvent } from '../model/events.js';
import { formatEvent, type Line, type Tone } from './format/format.js';
import { ProgressThrottle } from './progress-throttle.js';

export const SYMBOLS: Record<Tone, string> = { ok: '✔', fail: '✖', warn: '⚠', info: '•', undo: '↩', alarm: '‼' };

export function paint(chalk: ChalkInstance, line: Line): string {
  const colours: Record<Tone, (text: string) => string> = {
    ok: chalk.green,
    fail: chalk.red,
    warn: chalk.yellow,
    info: (text) => text,
    undo: chalk.cyan,
    alarm: (text) => chalk.bold.red(text),
  };
  const head = `${colours[line.tone](SYMBOLS[line.tone])} ${line.tone === 'alarm' ? chalk.bold.red(line.text) : line.text}`;
  const details = (line.details ?? []).map((detail) => `    ${chalk.dim(detail)}`);
  return [head, ...details].join('\n');
}

export class PlainReporter implements Reporter {
  private readonly chalk: ChalkInstance;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    colour: boolean,
  ) {
    this.chalk = new Chalk({ level: colour ? 1 : 0 });
  }

  emit(event: RunEvent): void {
    this.stream.write(`${paint(this.chalk, formatEvent(event))}\n`);
  }

  close(): void {}
}

/** The plain reporter as the CLI uses it: progress lines throttled per object (progress-throttle.ts). */
export function plainLines(stream: NodeJS.WritableStream, colour: boolean, clock: Clock): Reporter {
  return new ProgressThrottle(new PlainReporter(stream, colour), clock);
}
