// Where --events FILE|- writes: a file created for this run (readable by its user only, written
// line by line and synchronously, so a killed run leaves whole lines), or stdout, which the log
// then leaves for stderr. Opened before anything is read from the cluster: a path that cannot be
// written is an input error and nothing is applied. A write that fails later (a full disk: ENOSPC)
// is said once on stderr, naming the file and the cause; the run, its restore and its exit code go on.
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
  let failed = false;
  return {
    write: (line) => {
      if (failed) return;
      try {
        writeSync(fd, line);
      } catch (error) {
        failed = true;
        process.stderr.write(`kguard: ${cannotWrite(`the events to ${target}`, error)}\n`);
      }
    },
    toStdout: false,
  };
}

/** "could not write X (ENOSPC: no space left on device, write); …": what every lost output says, once. */
export function cannotWrite(what: string, error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return `could not write ${what} (${why}): free space or fix the path; the run goes on and its exit code stands`;
}
