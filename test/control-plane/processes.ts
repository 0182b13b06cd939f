// The control plane's processes: each started in its own process group (a Ctrl-C reaches only the
// parent, which stops them in order), its output in a log file, its PID handed to the watchdog
// (watchdog.ts) that stops it if the parent dies. stopAll() ends them by PID, newest first.

import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeHostState, type HostState } from './host-state.js';

const WATCHDOG = fileURLToPath(new URL('.', import.meta.url)).replace(
  /\/(dist\/)?test\/control-plane\/$/,
  '/dist/test/control-plane/watchdog.js',
);
const STOP_GRACE_MS = 10_000;

export interface Started {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  /** Set once the process has exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

export class ProcessGroup {
  private readonly started: Started[] = [];
  private readonly hostState: HostState[] = [];
  private readonly watchdog: ChildProcess;
  private stopping = false;

  /**
   * @param logDir the cluster's temp dir: logs go there, and the watchdog removes it when it had to step in.
   * @param deadlineMs the watchdog stops everything after this long, whatever the parent does.
   */
  constructor(
    private readonly logDir: string,
    deadlineMs: number,
    private readonly onUnexpectedExit: (process: Started) => void = () => {},
  ) {
    this.watchdog = spawn(process.execPath, [WATCHDOG, String(deadlineMs), logDir], {
      stdio: ['pipe', 'ignore', 'inherit'],
      detached: true,
    });
    this.watchdog.unref();
    this.watchdog.stdin?.on('error', () => {});
    (this.watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  }

  start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Started {
    const logFile = join(this.logDir, `${name}.log`);
    const log = openSync(logFile, 'a');
    const child = spawn(command, args, { stdio: ['ignore', log, log], detached: true, env });
    closeSync(log);
    if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    const entry: Started = { name, pid: child.pid, child, logFile };
    this.watchdog.stdin?.write(`add ${child.pid}\n`);
    child.on('exit', (code, signal) => {
      entry.exit = { code, signal };
      if (!this.stopping) this.onUnexpectedExit(entry);
    });
    this.started.push(entry);
    return entry;
  }

  /**
   * Something a real node makes on the host outside its mount namespace (its cgroup tree, its CNI
   * bridge): removed by stopAll after the processes, and by the watchdog if the parent dies.
   * Call before making it, so a start that fails half way is cleaned up too.
   */
  track(state: HostState): void {
    this.hostState.push(state);
    this.watchdog.stdin?.write(`host ${JSON.stringify(state)}\n`);
  }

  get processes(): readonly Started[] {
    return this.started;
  }

  /** The last lines of a process's log, for error messages. */
  tail(entry: Started, lines = 15): string {
    try {
      return readFileSync(entry.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM each process, newest first (kwok before the API server before etcd); SIGKILL after a grace. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const entry of [...this.started].reverse()) {
      if (entry.exit) continue;
      const exited = new Promise<void>((resolve) => entry.child.once('exit', () => resolve()));
      try {
        process.kill(entry.pid, 'SIGTERM');
      } catch {
        continue;
      }
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_GRACE_MS).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        try {
          process.kill(entry.pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
        await exited;
      }
    }
    // The nodes' shims and containers are nobody's children here: they go with their cgroup tree.
    for (const state of [...this.hostState].reverse()) await removeHostState(state);
    // Closing the pipe ends the watchdog: nothing is left for it to stop.
    this.watchdog.stdin?.end();
  }
}
