// `kguard -v`: every kubectl process kguard runs, said when it ends, with its duration and exit.
// Wraps the two ways kguard starts kubectl (exec.ts); credentials in the argv are masked here,
// at the source, so no reporter ever holds them. Pure apart from the clock it is given.
import type { KubectlCall } from '../../model/events.js';
import type { Exec, StreamExec } from './exec.js';
import { kubectlFlag } from '../flags.js';
import { splitFlag } from '../passthrough.js';

export const MASKED = '[redacted]';

/** The argv with the value of every credential flag (--token, --password) masked. */
export function maskCredentials(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const [name, value] = splitFlag(arg);
    if (value !== undefined) return kubectlFlag(name)?.secret ? `${name}=${MASKED}` : arg;
    // `--token VALUE`: the word after a credential flag.
    const previous = index > 0 ? splitFlag(args[index - 1] as string) : undefined;
    return previous && previous[1] === undefined && kubectlFlag(previous[0])?.secret ? MASKED : arg;
  });
}

export function tracedExec(exec: Exec, now: () => number, onCall: (call: KubectlCall) => void): Exec {
  return async (file, args, options) => {
    const started = now();
    const result = await exec(file, args, options);
    onCall({
      args: maskCredentials(args),
      durationMs: now() - started,
      exitCode: result.exitCode,
      timedOut: result.timedOut === true,
      stream: false,
      ...(result.proxied ? { proxied: true } : {}),
      ...(result.early ? { early: true } : {}),
    });
    return result;
  };
}

export function tracedStream(stream: StreamExec, now: () => number, onCall: (call: KubectlCall) => void): StreamExec {
  return (file, args, onStdout) => {
    const started = now();
    const running = stream(file, args, onStdout);
    const done = running.done.then((result) => {
      onCall({
        args: maskCredentials(args),
        durationMs: now() - started,
        exitCode: result.exitCode,
        timedOut: false,
        stream: true,
        ...(result.proxied ? { proxied: true } : {}),
      });
      return result;
    });
    return { done, stop: running.stop };
  };
}
