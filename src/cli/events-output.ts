// Where --events FILE|- writes: a file created for this run (readable by its user only, written
// line by line and synchronously, so a killed run leaves whole lines), or stdout, which the log
// then leaves for stderr. Opened before anything is read from the cluster: a path that cannot be
// written is an input error and nothing is applied.
import { openSync, writeSync } from 'node:fs';
import { InputError } from '../errors.js';

export interface EventLines {
  write(line: string): void;
  /** `--events -`: the log goes to stderr, as with --output json. */
  toStdout: boolean;
}

export function openEventLines(target: string, jsonOutput: boolean): EventLines {
  if (target === '-') {
    if (jsonOutput)
      throw new InputError(
        '--events - and --output json both write to stdout; write the events to a file (--events events.ndjson).',
      );
    return { write: (line) => void process.stdout.write(line), toStdout: true };
  }
  let fd: number;
  try {
    fd = openSync(target, 'w', 0o600);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new InputError(`--events ${target}: the file cannot be written (${why}). Fix the path; nothing was applied.`);
  }
  return { write: (line) => void writeSync(fd, line), toStdout: false };
}
