// The CLI's state of one invocation, shared by the commands (main.ts, journal-commands.ts).
import type { Reporter } from '../model/events.js';
import type { ManifestInput } from '../model/options.js';
import type { RunRecorder } from '../report/recorder.js';
import type { EventStreamReporter } from '../report/events.js';
import type { Redactor } from '../report/safety/redact.js';

/** What the exits need to know about the run in progress, whichever path it ends on. */
export interface Session {
  json: boolean;
  githubActions: boolean;
  /** Every Secret value of the apply, learned before kubectl reads the manifests. */
  redactor: Redactor;
  /** Aborted by the first SIGINT/SIGTERM: the run stops and restores what the apply changed. */
  cancel: AbortController;
  recorder?: RunRecorder;
  /** The result is in: a late signal changes nothing. */
  finished?: boolean;
  /** The apply's -f files: the JUnit report names the manifest line of each object. */
  manifests?: ManifestInput;
  /** --junit FILE: written at the end of every apply, failed ones included. */
  junitFile?: string;
  /** --dotenv FILE: `running` at the start, the outcome and exit code at the end. */
  dotenvFile?: string;
  /** kubectl's flags given natively before `--` (--prune, -l, --as...), as typed, for passthrough.ts to sort. */
  kubectlFlags: string[];
  /** --events: the NDJSON stream of the run, beside the terminal's reporter. */
  events?: EventStreamReporter;
  /** The log goes to stderr: stdout has the JSON report, or the events (--events -). */
  logToStderr?: boolean;
  /** -q: verdict lines only; -v: every kubectl command as well. */
  verbosity: 'quiet' | 'normal' | 'verbose';
  /** `apply --diff`: an error exits 2 or more, as `kubectl diff` (1 means differences). */
  diffPreview?: boolean;
}

/** What a command borrows from main.ts: its reporter and the one way errors become exit codes. */
export interface CommandContext {
  session: Session;
  makeReporter(session: Session, manifests?: ManifestInput): Promise<Reporter>;
  fail(session: Session, error: unknown): Promise<number>;
}
