// What a run starts as soon as the CLI has read its command line, before the pipeline's modules
// load (on Node 20 they take about 70 ms): the run's target, pinned from the kubeconfig file; the
// run's API channel, whose kubectl proxy takes some 50 ms to serve; and the server dry run, the
// first thing a run waits for. The run then uses this pin, this channel and this dry run's answer
// as its own: the pin is still read once, at the start, only sooner; the proxy is the run's, started
// with the pinned flags the run passes on every call; and the run's own server dry run takes the
// early answer only when it is exactly the call it would make (the same argv), once.
//
// Only for the plain case: kubectl itself (not a KGUARD_KUBECTL binary, whose first call says
// whether it is kubectl at all), one kubeconfig file that names its context's cluster (what
// kubeconfig.ts reads without kubectl), and local manifest files that need no phases and that
// limits.ts would not refuse for their size (no kubectl runs for a run refused before any kubectl
// call). Anything else starts nothing here, and the run does it all itself, as before. It goes
// through exec.ts like every other call: its deadline, its process group, the reaper, the run's
// cancel signal.
import { readFile, stat } from 'node:fs/promises';
import { MAY_NEED_PHASES, PARSE_ABOVE_BYTES } from '../manifests/quick-look.js';
import type { ApiChannel } from './channel/api-channel.js';
import { readKubeconfigTarget } from './kubeconfig.js';
import { applyArgv, requestTimeoutWithin } from './output/parse.js';
import type { Exec, ExecOptions, ExecResult } from './process/exec.js';
import { pinnedArgs } from './target.js';
import type { ApplyRequest, Target } from './types.js';

export interface EarlyStart {
  /** The run's target, read from the kubeconfig file: the run pins it (kubectl/client/runner.ts). */
  target: Target;
  /** The run's API channel, its proxy started with the pinned connection flags. */
  channel: ApiChannel;
  /**
   * The early answer, for the one call it was made for (the exact argv), once; undefined for any
   * other call: the caller runs that call itself.
   */
  adopt(file: string, args: readonly string[], options?: ExecOptions): Promise<ExecResult | undefined>;
  /**
   * Ends the dry run, unless a call took it, and the channel: a run that never gets to them leaves
   * no kubectl behind. Called by the run's kubectl when it closes, and by the CLI after the run.
   */
  stop(): void;
  /** The dry run ran and no call took its answer (a process the run started for nothing). */
  readonly wasted: boolean;
}

export interface EarlyStartInput {
  binary: string;
  connectionArgs: readonly string[];
  request: ApplyRequest;
  /** kubectl's --request-timeout for the run's calls (Connection.requestTimeout). */
  requestTimeout: string;
  env: NodeJS.ProcessEnv;
  /** The run's cancel signal: the dry run is a read, stopped at once. */
  signal?: AbortSignal;
}

/** Starts the run's channel and server dry run in the plain case; undefined otherwise (the run starts its own). */
export async function startEarly(
  given: EarlyStartInput,
  exec: Exec,
  openChannel: () => ApiChannel,
): Promise<EarlyStart | undefined> {
  const { request } = given;
  if (given.binary !== 'kubectl' || request.filenames.length === 0 || request.stdin !== undefined || request.recursive)
    return undefined;
  const [target, plainFiles] = await Promise.all([
    readKubeconfigTarget(given.connectionArgs, given.env),
    Promise.all(request.filenames.map(plainManifest)).then((plain) => plain.every(Boolean)),
  ]);
  if (target === undefined || !plainFiles || given.signal?.aborted) return undefined;

  const pinned = pinnedArgs(given.connectionArgs, target);
  const args = [
    ...pinned,
    ...applyArgv(request),
    '--dry-run=server',
    '-o',
    'json',
    `--request-timeout=${requestTimeoutWithin(given.requestTimeout, request.deadlineMs)}`,
  ];
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  given.signal?.addEventListener('abort', onAbort, { once: true });
  const running = exec(given.binary, args, { timeoutMs: request.deadlineMs, cancelSignal: cancel.signal }).finally(() =>
    given.signal?.removeEventListener('abort', onAbort),
  );
  running.catch(() => undefined);
  const channel = openChannel();
  channel.start(pinned);

  // Waiting for the call it was made for; taken by it; or given up (stopped, or another dry run asked).
  let state: 'waiting' | 'taken' | 'wasted' = 'waiting';
  const giveUp = () => {
    if (state !== 'waiting') return;
    state = 'wasted';
    cancel.abort();
  };
  return {
    target,
    channel,
    get wasted() {
      return state === 'wasted';
    },
    stop() {
      giveUp();
      channel.close();
    },
    async adopt(file, called, options) {
      if (state !== 'waiting' || options?.input !== undefined || file !== given.binary) return undefined;
      if (!sameWords(called, args)) {
        // Another server dry run (a part of a phased apply, other flags): this one will not be asked for.
        if (called.includes('--dry-run=server')) giveUp();
        return undefined;
      }
      state = 'taken';
      return { ...(await running), early: true };
    },
  };
}

/** `exec`, but the call the early dry run was made for takes its answer. */
export function adoptingEarly(exec: Exec, early: Pick<EarlyStart, 'adopt'>): Exec {
  return async (file, args, options) => (await early.adopt(file, args, options)) ?? exec(file, args, options);
}

/** A local file (not stdin, a URL or a directory) with no CRD nor phase in it, small enough that limits.ts never parses it. */
async function plainManifest(filename: string): Promise<boolean> {
  if (filename === '-' || /^https?:\/\//i.test(filename)) return false;
  const info = await stat(filename).catch(() => undefined);
  if (!info?.isFile() || info.size > PARSE_ABOVE_BYTES) return false;
  const text = await readFile(filename, 'utf8').catch(() => undefined);
  return text !== undefined && !MAY_NEED_PHASES.test(text);
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, index) => word === b[index]);
}
