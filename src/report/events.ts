// --events FILE|-: every event as one line of JSON (NDJSON) the moment it happens, for a CD tool
// or a script that follows a run live. Each line is one of the library's events, already
// sanitised and Secret-redacted by the recorder in front of every reporter, with the stream's
// version, a sequence number and the time added; schema/events.schema.json describes a line.
// It stands beside the terminal's reporter (alongside()): it sees every event, whatever -q or -v
// show.
import type { Reporter, RunEvent } from '../model/events.js';
import { eventLines } from './event-lines.js';

export const EVENTS_VERSION = 1;

export class EventStreamReporter implements Reporter {
  private seq = 0;
  private ended = false;

  constructor(
    /** Writes one whole line; a file is written synchronously, so a killed run leaves whole lines. */
    private readonly write: (line: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  emit(event: RunEvent): void {
    this.line(event);
  }

  close(): void {}

  /**
   * The stream's last line when kguard could not do its job (a usage, input or kubectl error, or
   * a second signal): not an event of the run, so the CLI writes it. The message is sanitised.
   */
  error(exitCode: number, message: string): void {
    this.line({ kind: 'error', exitCode, message });
    this.ended = true;
  }

  private line(event: RunEvent | { kind: 'error'; exitCode: number; message: string }): void {
    if (this.ended) return;
    const time = this.now().toISOString();
    // No line passes 64 KiB (event-lines.ts): a bigger event comes in parts, each with its own seq.
    const lines = eventLines(
      (seq) => ({ eventsVersion: EVENTS_VERSION, seq, time }),
      event,
      () => (this.seq += 1),
    );
    try {
      for (const line of lines) this.write(line);
    } catch {
      // A stream that cannot be written (a full disk, a closed pipe) does not stop the run or its restore.
    }
  }
}

/** Both reporters see every event, the first one first. */
export function alongside(first: Reporter, second: Reporter): Reporter {
  return {
    emit: (event) => {
      first.emit(event);
      second.emit(event);
    },
    close: () => {
      first.close();
      second.close();
    },
  };
}
