// The only place kguard spawns processes. Argv is always an array, never a shell string.
import { execa } from 'execa';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started at all (e.g. ENOENT: kubectl not on PATH). */
  spawnError?: string;
  timedOut?: boolean;
}

export interface ExecOptions {
  input?: string | Uint8Array;
  timeoutMs?: number;
  /** Aborting it stops the process at once (SIGTERM): a cancelled run does not wait for reads. */
  cancelSignal?: AbortSignal;
}

/** Runs a program to completion. Never throws for a non-zero exit: callers read the result. */
export type Exec = (file: string, args: readonly string[], options?: ExecOptions) => Promise<ExecResult>;

export const execProcess: Exec = async (file, args, options = {}) => {
  const result = await execa(file, [...args], {
    reject: false,
    stripFinalNewline: false,
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : undefined,
    timeout: options.timeoutMs,
    cancelSignal: options.cancelSignal,
    env: { ...process.env },
  });
  const spawnFailed = result.failed && result.exitCode === undefined && !result.timedOut && !result.isCanceled;
  return {
    exitCode: result.exitCode ?? (result.timedOut ? 124 : result.isCanceled ? 130 : 127),
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    spawnError: spawnFailed ? ((result as { code?: string }).code ?? result.shortMessage) : undefined,
    timedOut: result.timedOut,
  };
};
