// One `kubectl proxy` per connection carries kguard's raw API calls (lists, watches, the journal's
// and the restore's PUT, POST and DELETE) instead of one kubectl process each.
//
// kubectl stays the one that talks to the cluster: the proxy is kubectl, started with the run's
// pinned connection flags, so it reads the same kubeconfig, credentials (exec plugins, tokens,
// certificates), impersonation and proxy settings a `kubectl get --raw` would. kguard only sends
// the same REST requests it would have given --raw, and reads the answers as kubectl prints them
// (raw-request.ts). A process costs about 50 ms of CPU and a blocking fork in kguard; a request
// through the proxy costs a few milliseconds: a 1,000-object restore makes thousands of them.
//
// The proxy listens on a unix socket in a private directory (mode 0700): no other user, and no
// web page, can reach it. It runs in a process group of its own like every kubectl kguard starts
// (exec.ts), dies with kguard (reaper.ts), and never keeps kguard alive. When it cannot be started
// (or stops answering), each call runs as its own kubectl process again: slower, never wrong.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Exec, ExecOptions, ExecResult, StreamExec, StreamingProcess } from '../process/exec.js';
import { isWatch, kubectlStyleAnswer, rawRequestOf, warningTexts, type RawRequest } from './raw-request.js';

/** How long the proxy may take to say it serves before kguard gives up on it for this run. */
const START_DEADLINE_MS = 10_000;

/** A request or watch stopped by kguard (a cancel, the end of tracking), as a stopped process ends. */
const STOPPED: ExecResult = { exitCode: 130, stdout: '', stderr: '' };

/** kubectl proxy accepts only local host names (--accept-hosts); the user agent tells kguard's requests apart in audit logs. */
const HEADERS = { host: 'localhost', accept: 'application/json', 'user-agent': 'kguard (through kubectl proxy)' };

export interface ApiChannel {
  /** Runs a raw call through the proxy, any other call as its own process. */
  exec: Exec;
  stream: StreamExec;
  /** kubectl processes it started itself (the proxies). */
  readonly processes: number;
  /** Starts the proxy of a connection now, so that it serves by the first raw call; false when none will. */
  start(connection: readonly string[]): boolean;
  /** Requests it sent through a proxy. */
  readonly requests: number;
  /** Stops the proxies and removes their sockets. */
  close(): void;
}

interface Proxy {
  socket: string;
  ready: Promise<boolean>;
  process: StreamingProcess;
  broken: boolean;
}

/**
 * `background` starts a process that never keeps kguard alive (the proxy). Turned off with
 * KGUARD_KUBECTL_PROXY=0, and where unix sockets are not a given (Windows).
 */
export function apiChannel(
  exec: Exec,
  stream: StreamExec,
  binary: string,
  background: StreamExec,
  enabled = process.platform !== 'win32' && process.env.KGUARD_KUBECTL_PROXY !== '0',
): ApiChannel {
  const proxies = new Map<string, Proxy>();
  // Requests reuse their connections (the process pool above bounds how many run at once); each
  // watch holds a connection of its own for as long as it runs, so watches have their own agent,
  // without a cap: 5 watches in each of 10 namespaces must not starve the requests, or each other.
  const agent = new Agent({ keepAlive: true });
  const watchAgent = new Agent({ keepAlive: false });
  let directory: string | undefined;
  let processes = 0;
  let requests = 0;

  // Once closed, no proxy starts again: a call still in flight runs as a process.
  let closed = false;
  const proxyFor = (connection: readonly string[]): Proxy | undefined => {
    if (!enabled || closed) return undefined;
    const key = JSON.stringify(connection);
    const known = proxies.get(key);
    if (known) return known.broken ? undefined : known;
    directory ??= mkdtempSync(join(tmpdir(), 'kguard-api-'));
    processes += 1;
    const proxy = startProxy(background, binary, connection, join(directory, `proxy-${proxies.size}.sock`));
    proxies.set(key, proxy);
    return proxy;
  };

  const channelExec: Exec = async (file, args, options = {}) => {
    const call = file === binary ? rawRequestOf(args) : undefined;
    if (!call || isWatch(call.path)) return exec(file, args, options);
    const proxy = proxyFor(call.connection);
    if (!proxy || !(await proxy.ready) || proxy.broken) return exec(file, args, options);
    const answer = await send(proxy, agent, call, options);
    // The proxy is gone, or its connection broke: this call and every later one run as processes.
    // A read, or a write that never left kguard, is simply made again that way. A write that may
    // have landed comes back as a dropped connection, which the caller retries as it would
    // kubectl's (every kguard write is safe to repeat: conditional, or by uid).
    if (answer === 'unreachable' || answer.dropped) {
      proxy.broken = true;
      proxy.process.stop();
    }
    if (answer === 'unreachable' || (answer.dropped && call.method === 'GET')) return exec(file, args, options);
    requests += 1;
    const { dropped: _dropped, ...result } = answer;
    return { ...result, proxied: true };
  };

  const channelStream: StreamExec = (file, args, onStdout) => {
    const call = file === binary ? rawRequestOf(args) : undefined;
    if (!call || !isWatch(call.path) || call.method !== 'GET') return stream(file, args, onStdout);
    const proxy = proxyFor(call.connection);
    if (!proxy) return stream(file, args, onStdout);
    return watchThrough(
      proxy,
      watchAgent,
      call,
      onStdout,
      () => {
        requests += 1;
      },
      () => stream(file, args, onStdout),
    );
  };

  return {
    exec: channelExec,
    stream: channelStream,
    start: (connection) => proxyFor(connection) !== undefined,
    get processes() {
      return processes;
    },
    get requests() {
      return requests;
    },
    close() {
      closed = true;
      for (const proxy of proxies.values()) {
        proxy.broken = true;
        proxy.process.stop();
      }
      agent.destroy();
      watchAgent.destroy();
      if (directory) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** `kubectl proxy` on a unix socket for one connection; broken when it does not serve within START_DEADLINE_MS, or ends. */
function startProxy(background: StreamExec, binary: string, connection: readonly string[], socket: string): Proxy {
  let announced: (ready: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (announced = resolve));
  let said = '';
  const running = background(binary, [...connection, 'proxy', `--unix-socket=${socket}`], (text) => {
    said += text;
    if (said.includes('Starting to serve on')) announced(true);
  });
  const proxy: Proxy = { socket, ready, process: running, broken: false };
  // Held until the proxy answers: a call waiting for it keeps kguard alive meanwhile.
  const timer = setTimeout(() => announced(false), START_DEADLINE_MS);
  void running.done.then(() => {
    proxy.broken = true;
    announced(false);
  });
  void ready.then((serving) => {
    clearTimeout(timer);
    if (!serving) {
      proxy.broken = true;
      running.stop();
    }
  });
  return proxy;
}

/** One request through the proxy, with the call's deadline and cancel signal. */
async function send(
  proxy: Proxy,
  agent: Agent,
  call: RawRequest,
  options: ExecOptions,
): Promise<(ExecResult & { dropped?: boolean }) | 'unreachable'> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: (ExecResult & { dropped?: boolean }) | 'unreachable') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.cancelSignal?.removeEventListener('abort', onCancel);
      resolve(result);
    };
    const body = call.body ? toBuffer(options.input) : undefined;
    const req = httpRequest(
      {
        socketPath: proxy.socket,
        agent,
        method: call.method,
        path: call.path,
        headers: {
          ...HEADERS,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
        },
      },
      (response) => {
        readAll(response).then(
          (text) => finish(kubectlStyleAnswer(response.statusCode ?? 0, text, warningTexts(headerList(response)))),
          (error: unknown) => finish({ ...dropped(error), dropped: true }),
        );
      },
    );
    // A kept-alive socket is connected already; a new one is until it connects.
    let sent = false;
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (sent = true));
      else sent = true;
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Never connected (no socket file, nothing listening): the request did not leave kguard.
      if (!sent && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) finish('unreachable');
      else finish({ ...dropped(error), dropped: true });
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ exitCode: 124, stdout: '', stderr: '', timedOut: true });
    }, options.timeoutMs ?? 60_000);
    const onCancel = () => {
      req.destroy();
      finish(STOPPED);
    };
    if (options.cancelSignal?.aborted) onCancel();
    else options.cancelSignal?.addEventListener('abort', onCancel, { once: true });
    req.end(body);
  });
}

/** A watch through the proxy: the response body is the event stream, handed on as it arrives. */
function watchThrough(
  proxy: Proxy,
  agent: Agent,
  call: RawRequest,
  onStdout: (text: string) => void,
  onSent: () => void,
  fallback: () => StreamingProcess,
): StreamingProcess {
  let stopped = false;
  let req: ReturnType<typeof httpRequest> | undefined;
  let instead: StreamingProcess | undefined;
  let settle: ((result: ExecResult) => void) | undefined;
  const done = (async (): Promise<ExecResult> => {
    if (!(await proxy.ready) || proxy.broken) {
      if (stopped) return STOPPED;
      instead = fallback();
      return instead.done;
    }
    return new Promise<ExecResult>((resolve) => {
      settle = resolve;
      if (stopped) return resolve(STOPPED);
      onSent();
      req = httpRequest(
        { socketPath: proxy.socket, agent, method: 'GET', path: call.path, headers: HEADERS },
        (response) => {
          const status = response.statusCode ?? 0;
          response.setEncoding('utf8');
          if (status < 200 || status >= 300) {
            readAll(response).then(
              (text) => resolve(kubectlStyleAnswer(status, text)),
              (error: unknown) => resolve(dropped(error)),
            );
            return;
          }
          response.on('data', (text: string) => onStdout(text));
          response.on('end', () => resolve({ exitCode: 0, stdout: '', stderr: '', proxied: true }));
          response.on('error', (error) => resolve(stopped ? STOPPED : dropped(error)));
          // Destroyed mid-stream without an error event (stop(), the proxy gone): it ended all the same.
          response.on('close', () =>
            resolve(
              stopped
                ? STOPPED
                : response.complete
                  ? { exitCode: 0, stdout: '', stderr: '', proxied: true }
                  : dropped(new Error('the stream ended early')),
            ),
          );
        },
      );
      req.on('error', (error) => resolve(stopped ? STOPPED : dropped(error)));
      req.end();
    });
  })();
  return {
    // However it ended, a watch that went through the proxy started no process.
    done: done.then((result) => (instead ? result : { ...result, proxied: true })),
    stop() {
      stopped = true;
      req?.destroy();
      instead?.stop();
      settle?.(STOPPED);
    },
  };
}

/** A connection that broke mid-request, in the words client-go uses (a transient failure). */
function dropped(error: unknown): ExecResult {
  const code = (error as NodeJS.ErrnoException).code;
  const words =
    code === 'ECONNRESET' ? 'connection reset by peer' : code === 'EPIPE' ? 'broken pipe' : 'unexpected EOF';
  return { exitCode: 1, stdout: '', stderr: `error: ${words} (kubectl proxy: ${(error as Error).message})\n` };
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

function headerList(response: IncomingMessage): string[] {
  const value = response.headers.warning;
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function toBuffer(input: ExecOptions['input']): Buffer {
  if (input === undefined) return Buffer.alloc(0);
  return typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
}
