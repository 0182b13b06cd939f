// A kubectl for one run or command, wired once: its processes (exec.ts), the API channel that
// carries its raw calls through one kubectl proxy (api-channel.ts), and -v tracing of both.
import type { KubectlCall } from '../model/events.js';
import { apiChannel } from './channel/api-channel.js';
import { createKubectl } from './client.js';
import { adoptingEarly, type EarlyStart } from './early-start.js';
import { backgroundProcess, execProcess, streamProcess } from './process/exec.js';
import { tracedExec, tracedStream } from './process/trace.js';
import type { Connection, Kubectl } from './types.js';

export interface ConnectOptions {
  /** -v: every call, said when it ends. */
  trace?: { now(): number; onCall(call: KubectlCall): void };
  /** Watches (`get --raw …?watch=1`); without them the tracker polls. Default true. */
  watches?: boolean;
  /** What the CLI started before the run (early-start.ts): its target and channel are the run's, and the run's own server dry run takes the early answer when it is the same call. */
  early?: EarlyStart;
}

/** The kubectl and its end: `close()` stops the proxy (a run that forgets still exits: it never holds kguard). */
export function connectKubectl(
  connection: Omit<Connection, 'channelProcesses' | 'pinned'>,
  options: ConnectOptions = {},
): Kubectl & { close(): void } {
  const early = options.early;
  const channel = early?.channel ?? apiChannel(execProcess, streamProcess, connection.binary, backgroundProcess);
  const trace = options.trace;
  const calls = early ? adoptingEarly(channel.exec, early) : channel.exec;
  const exec = trace ? tracedExec(calls, trace.now, trace.onCall) : calls;
  const stream =
    options.watches === false
      ? undefined
      : trace
        ? tracedStream(channel.stream, trace.now, trace.onCall)
        : channel.stream;
  const kubectl = createKubectl(
    exec,
    {
      ...connection,
      ...(early ? { target: early.target } : {}),
      // An early dry run no call took was a process of this run too.
      channelProcesses: () => channel.processes + (early?.wasted ? 1 : 0),
      pinned: (args) => channel.start(args),
    },
    stream,
  );
  return Object.assign(kubectl, {
    close: () => {
      early?.stop();
      channel.close();
    },
  });
}
