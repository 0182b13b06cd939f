// The only place kguard spawns processes. Argv is always an array, never a shell string.
//
// Every process runs in a process group of its own, and a deadline kills the whole group: a
// KGUARD_KUBECTL wrapper script (or a credential plugin kubectl starts) would otherwise keep
// the output pipes open after the direct child died, and the run would wait for the grandchild.
// A reaper (reaper.ts) kills the groups still running when kguard itself is killed with SIGKILL.
import type { execa as Execa } from 'execa';
import { forgetGroup, reapOnDeath } from './reaper.js';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (e.g. ENOENT: kubectl not on PATH). */
  spawnError?: string;
  /** The deadline passed and the process group was killed. */
  timedOut?: boolean;
  /** Sent through the API channel's kubectl proxy (api-channel.ts), not a process of its own. */
  proxied?: boolean;
  /** The answer of the process the CLI started before the run (early-start.ts). */
  early?: boolean;
}

export interface ExecOptions {
  input?: string | Uint8Array;
  /**
   * stdin held back: the process starts now and gets these bytes only when the promise gives them
   * (its deadline starts then); `undefined` (or a rejection) stops its group having sent nothing.
   * How the apply's kubectl starts during the guard (run/apply/guard.ts).
   */
  heldInput?: Promise<string | undefined>;
  timeoutMs?: number;
  /** Aborting it stops the process group at once: a cancelled run does not wait for reads. */
  cancelSignal?: AbortSignal;
}

/** Runs a program to completion. Never throws for a non-zero exit: callers read the result. */
export type Exec = (file: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

/**
 * Every kubectl kguard runs ignores kuberc preferences (KEP-3104, read by default from kubectl
 * 1.34): a default such as `delete --interactive` or `get -o wide` makes kubectl refuse kguard's
 * `--raw` calls ("--interactive can not be used with --raw", checked with kubectl 1.35), and a
 * run must not depend on a hidden file. kubectl's help: "disabled by exporting KUBECTL_KUBERC=false".
 */
const kubectlEnv = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECTL_KUBERC: 'false' });

/** After SIGTERM, how long a process group gets before SIGKILL and before its pipes are abandoned. */
const KILL_GRACE_MS = 1000;

/** Process groups (by leader pid) still running: an interrupted kguard stops them on its way out. */
const running = new Set<number>();

/**
 * execa is loaded at the first process, not at start-up: `kguard --version` and input errors
 * never start one.
 */
let execaModule: Promise<{ execa: typeof Execa }> | undefined;
const loadExeca = () => (execaModule ??= import('execa'));

/** Loads what starting a process needs now, so that the first call spawns at once (the CLI's early dry run). */
export async function readyToSpawn(): Promise<void> {
  await loadExeca();
}

export const execProcess: Exec = async (file, args, options = {}) => {
  const { execa } = await loadExeca();
  const held = options.heldInput;
  const child = execa(file, [...args], {
    reject: false,
    stripFinalNewline: false,
    input: options.input,
    stdin: held ? 'pipe' : options.input === undefined ? 'ignore' : undefined,
    env: kubectlEnv(),
    // A group of its own: the deadline and an interrupt can kill the whole tree. It also keeps a
    // terminal's Ctrl-C away from kubectl, so kguard alone decides what to stop (and says so).
    detached: true,
  });
  const pid = child.pid;
  if (pid !== undefined) track(pid);
  const ending = held ? holdInput(child, pid, held, options) : endOnDeadlineOrCancel(child, pid, options);
  try {
    const result = await child;
    const { timedOut, cancelled } = ending;
    const spawnFailed =
      result.failed && result.exitCode === undefined && !timedOut && !cancelled && result.signal === undefined;
    return {
      exitCode: result.exitCode ?? (timedOut ? 124 : cancelled ? 130 : 127),
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      stderr: typeof result.stderr === 'string' ? result.stderr : '',
      spawnError: spawnFailed ? ((result as { code?: string }).code ?? result.shortMessage) : undefined,
      timedOut,
    };
  } finally {
    ending.release();
    if (pid !== undefined) untrack(pid);
  }
};

/** A long-running process whose output is read as it arrives (a watch). */
export interface StreamingProcess {
  /** Settles when the process has ended, however it ended (stdout is not kept); never rejects. */
  done: Promise<ExecResult>;
  /** Ends its whole process group (SIGTERM, then SIGKILL); safe to call again or after the end. */
  stop(): void;
}

export type StreamExec = (file: string, args: readonly string[], onStdout: (text: string) => void) => StreamingProcess;

/**
 * Starts a program whose stdout is handed over piece by piece (UTF-8 safe) as it arrives. Like
 * execProcess it runs in a process group of its own and is stopped by stopRunningProcesses; the
 * caller stops it when it no longer needs it.
 */
let stopOnExit = false;

export const streamProcess: StreamExec = (file, args, onStdout) => streaming(file, args, onStdout, false);

/**
 * A streaming process that never keeps kguard alive (the API channel's kubectl proxy): neither it
 * nor its pipes hold node's event loop. It still stops with kguard, as every other does.
 */
export const backgroundProcess: StreamExec = (file, args, onStdout) => streaming(file, args, onStdout, true);

function streaming(
  file: string,
  args: readonly string[],
  onStdout: (text: string) => void,
  background: boolean,
): StreamingProcess {
  let stopRequested = false;
  let stopGroup: (() => void) | undefined;
  const done = (async (): Promise<ExecResult> => {
    const { execa } = await loadExeca();
    if (stopRequested) return { exitCode: 130, stdout: '', stderr: '' };
    const child = execa(file, [...args], {
      reject: false,
      stdin: 'ignore',
      buffer: { stdout: false },
      env: kubectlEnv(),
      detached: true,
    });
    const pid = child.pid;
    if (pid !== undefined) track(pid);
    // A watch never ends by itself: whatever way kguard exits, its group goes with it.
    if (!stopOnExit) {
      stopOnExit = true;
      process.once('exit', () => stopRunningProcesses());
    }
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (text: string) => onStdout(text));
    if (background) {
      child.unref();
      for (const pipe of [child.stdout, child.stderr]) (pipe as unknown as { unref?: () => void } | null)?.unref?.();
    }
    let timer: NodeJS.Timeout | undefined;
    stopGroup = () => {
      if (pid === undefined || timer) return;
      killGroup(pid, 'SIGTERM');
      timer = setTimeout(() => {
        killGroup(pid, 'SIGKILL');
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, KILL_GRACE_MS);
      // A background process (the proxy) never keeps kguard alive, its stop included: kguard may
      // exit before it has ended, and the exit handler above kills its group then.
      if (background) timer.unref();
    };
    try {
      const result = await child;
      const spawnFailed =
        result.failed && result.exitCode === undefined && !stopRequested && result.signal === undefined;
      return {
        exitCode: result.exitCode ?? (stopRequested ? 130 : 127),
        stdout: '',
        stderr: typeof result.stderr === 'string' ? result.stderr : '',
        spawnError: spawnFailed ? ((result as { code?: string }).code ?? result.shortMessage) : undefined,
      };
    } finally {
      clearTimeout(timer);
      if (pid !== undefined) untrack(pid);
    }
  })();
  return {
    done,
    stop: () => {
      stopRequested = true;
      stopGroup?.();
    },
  };
}

/** How a shell command (--verify) ended, with the end of what it printed. */
export interface CommandResult {
  /** Its exit code; undefined when it did not exit by itself (a signal, never started). */
  exitCode?: number;
  /** The signal that ended it (SIGTERM, SIGKILL), when one did. */
  signal?: string;
  /** The deadline passed and its process group was stopped. */
  timedOut: boolean;
  /** The cancel signal stopped its process group. */
  cancelled: boolean;
  /** It could not be started at all (no shell). */
  spawnError?: string;
  /** The end of stdout and stderr, interleaved as they came: at most `tailChars` characters. */
  output: string;
  /** Earlier output was dropped to stay within `tailChars`. */
  truncated: boolean;
}

export interface CommandOptions {
  /** Added to kguard's own environment. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Aborting it stops the process group at once (the run was cancelled). */
  cancelSignal?: AbortSignal;
  /** How much of the end of its output to keep: a chatty command cannot fill kguard's memory. */
  tailChars: number;
}

/** Runs a person's command line with the system shell, as npm scripts and git hooks do. */
export type CommandExec = (command: string, options: CommandOptions) => Promise<CommandResult>;

/**
 * A --verify command: `sh -c COMMAND` (execa's shell option), stdin closed so it can never wait
 * for input, in a process group of its own that its deadline or a cancel stops whole (SIGTERM,
 * then SIGKILL a second later), and that a second signal stops with every kubectl
 * (stopRunningProcesses), as the reaper does when kguard dies by SIGKILL. Only the end of its
 * output is kept.
 */
export const execCommand: CommandExec = async (command, options) => {
  const { execa } = await loadExeca();
  const child = execa(command, {
    shell: true,
    reject: false,
    stdin: 'ignore',
    buffer: false,
    env: { ...process.env, ...options.env },
    detached: true,
  });
  const pid = child.pid;
  if (pid !== undefined) track(pid);
  let output = '';
  let truncated = false;
  const keep = (text: string) => {
    output += text;
    if (output.length > 2 * options.tailChars) {
      output = output.slice(-options.tailChars);
      truncated = true;
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', keep);
  }
  const ending = endOnDeadlineOrCancel(child, pid, options);
  try {
    const result = await child;
    const { timedOut, cancelled } = ending;
    const spawnFailed =
      result.failed && result.exitCode === undefined && result.signal === undefined && !timedOut && !cancelled;
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut,
      cancelled,
      spawnError: spawnFailed ? ((result as { code?: string }).code ?? result.shortMessage) : undefined,
      output: output.slice(-options.tailChars),
      truncated: truncated || output.length > options.tailChars,
    };
  } finally {
    ending.release();
    if (pid !== undefined) untrack(pid);
  }
};

/**
 * A child whose stdin waits for `held`: given bytes, they are written whole, stdin is closed and
 * the deadline starts; given nothing (or a rejection), its group is stopped before it has read a
 * byte, as by its cancel.
 */
function holdInput(
  child: Parameters<typeof endOnDeadlineOrCancel>[0] & {
    stdin?: { end(bytes: string): void; destroy(): void; on(event: 'error', listener: () => void): void } | null;
  },
  pid: number | undefined,
  held: Promise<string | undefined>,
  options: { timeoutMs?: number; cancelSignal?: AbortSignal },
): ReturnType<typeof endOnDeadlineOrCancel> {
  // A process that ended before its input (it failed to start, it was stopped) closes the pipe: no error for that.
  child.stdin?.on('error', () => undefined);
  const dropped = new AbortController();
  const cancelSignal = AbortSignal.any([dropped.signal, ...(options.cancelSignal ? [options.cancelSignal] : [])]);
  const waiting = endOnDeadlineOrCancel(child, pid, { cancelSignal });
  let running: ReturnType<typeof endOnDeadlineOrCancel> | undefined;
  let ended = false;
  void held
    .catch(() => undefined)
    .then((bytes) => {
      // It ended before its input came (it could not start, it was stopped): nothing to send or stop.
      if (ended) return;
      if (bytes === undefined || waiting.cancelled) return dropped.abort();
      running = endOnDeadlineOrCancel(child, pid, { timeoutMs: options.timeoutMs });
      child.stdin?.end(bytes);
    });
  return {
    get timedOut() {
      return running?.timedOut ?? false;
    },
    get cancelled() {
      return waiting.cancelled;
    },
    release() {
      ended = true;
      waiting.release();
      running?.release();
    },
  };
}

/**
 * A child's deadline and cancel: either stops its whole process group (SIGTERM, then SIGKILL and
 * its pipes abandoned after KILL_GRACE_MS) and says which it was; `release` clears both.
 */
function endOnDeadlineOrCancel(
  child: { stdout?: { destroy(): void } | null; stderr?: { destroy(): void } | null },
  pid: number | undefined,
  options: { timeoutMs?: number; cancelSignal?: AbortSignal },
): { readonly timedOut: boolean; readonly cancelled: boolean; release(): void } {
  const timers: NodeJS.Timeout[] = [];
  const state = { timedOut: false, cancelled: false };
  const stop = () => {
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    timers.push(
      setTimeout(() => {
        killGroup(pid, 'SIGKILL');
        // A process that left the group may still hold the pipes: stop waiting for them.
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, KILL_GRACE_MS),
    );
  };
  if (options.timeoutMs !== undefined) {
    timers.push(
      setTimeout(() => {
        state.timedOut = true;
        stop();
      }, options.timeoutMs),
    );
  }
  const onCancel = () => {
    state.cancelled = true;
    stop();
  };
  if (options.cancelSignal?.aborted) onCancel();
  else options.cancelSignal?.addEventListener('abort', onCancel, { once: true });
  return {
    get timedOut() {
      return state.timedOut;
    },
    get cancelled() {
      return state.cancelled;
    },
    release() {
      for (const timer of timers) clearTimeout(timer);
      options.cancelSignal?.removeEventListener('abort', onCancel);
    },
  };
}

/** Stops every process group kguard started that is still running (on SIGINT/SIGTERM). */
export function stopRunningProcesses(): number {
  const count = running.size;
  for (const pid of running) {
    killGroup(pid, 'SIGKILL');
    forgetGroup(pid);
  }
  running.clear();
  return count;
}

function track(pid: number): void {
  running.add(pid);
  reapOnDeath(pid);
}

function untrack(pid: number): void {
  running.delete(pid);
  forgetGroup(pid);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
