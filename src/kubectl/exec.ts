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
    env: { ...process.env },
  });
  const spawnFailed = result.failed && result.exitCode === undefined && !result.timedOut;
  return {
    exitCode: result.exitCode ?? (result.timedOut ? 124 : 127),
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    spawnError: spawnFailed ? ((result as { code?: string }).code ?? result.shortMessage) : undefined,
    timedOut: result.timedOut,
  };
};
