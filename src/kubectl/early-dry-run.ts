// The server dry run, started by the CLI as soon as the command line is read, before the
// pipeline's modules, the kubeconfig and the inputs are: on Node 20 those take about 70 ms, and the
// dry run is the first thing a run waits for. It runs with the user's own connection flags; the
// run's own dry run (run/apply/understand.ts) takes its answer only when it is exactly the call
// the run would have made: the same argv once the run's target is pinned, from a kubeconfig whose
// bytes did not change between the start of the early dry run and its end. Anything else (another
// context pinned, the kubeconfig switched meanwhile, a phased apply) runs the dry run again, as
// before, and the early one is stopped. A dry run changes nothing, so one not taken costs only
// its time.
//
// Only for the plain case: kubectl itself (not a KGUARD_KUBECTL binary, whose first call says
// whether it is kubectl at all), one kubeconfig file, and local manifest files that need no phases
// and that limits.ts would not refuse for their size (so that no kubectl runs for a run refused
// before any kubectl call). It goes through exec.ts like every other call: its deadline, its
// process group, the reaper, the run's cancel signal.
import { readFile, stat } from 'node:fs/promises';
import { MAY_NEED_PHASES, PARSE_ABOVE_BYTES } from '../manifests/quick-look.js';
import { kubeconfigFile, targetOfKubeconfigText } from './kubeconfig.js';
import { applyCommand, requestTimeoutWithin } from './output/parse.js';
import type { Exec, ExecOptions, ExecResult } from './process/exec.js';
import { pinnedArgs } from './target.js';
import type { ApplyRequest } from './types.js';

export interface EarlyDryRun {
  /**
   * The early answer, for the one call it was made for (the exact argv the run would run, with
   * its pinned connection flags), once; undefined for any other call, and when the kubeconfig
   * changed while it ran: the caller runs the call itself then.
   */
  adopt(file: string, args: readonly string[], options?: ExecOptions): Promise<ExecResult | undefined>;
  /** Ends it, unless a call took it: a run that never gets to its dry run leaves no kubectl behind. */
  stop(): void;
  /** It ran and no call took its answer (a process the run started for nothing). */
  readonly wasted: boolean;
}

export interface EarlyDryRunPlan {
  binary: string;
  connectionArgs: readonly string[];
  request: ApplyRequest;
  /** kubectl's --request-timeout for the run's calls (Connection.requestTimeout). */
  requestTimeout: string;
  env: NodeJS.ProcessEnv;
  /** The run's cancel signal: the dry run is a read, stopped at once. */
  signal?: AbortSignal;
}

/** Starts the server dry run when the plan is the plain case; undefined otherwise (the run starts its own). */
export async function startEarlyDryRun(plan: EarlyDryRunPlan, exec: Exec): Promise<EarlyDryRun | undefined> {
  const { request } = plan;
  if (plan.binary !== 'kubectl' || request.filenames.length === 0 || request.stdin !== undefined || request.recursive)
    return undefined;
  const kubeconfig = kubeconfigFile(plan.connectionArgs, plan.env);
  if (kubeconfig === undefined) return undefined;
  const [bytes, plainFiles] = await Promise.all([
    readFile(kubeconfig).catch(() => undefined),
    Promise.all(request.filenames.map(plainManifest)).then((plain) => plain.every(Boolean)),
  ]);
  if (bytes === undefined || !plainFiles || plan.signal?.aborted) return undefined;

  const args = [
    ...applyCommand(request),
    '--dry-run=server',
    '-o',
    'json',
    `--request-timeout=${requestTimeoutWithin(plan.requestTimeout, request.deadlineMs)}`,
  ];
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  plan.signal?.addEventListener('abort', onAbort, { once: true });
  const running = exec(plan.binary, [...plan.connectionArgs, ...args], {
    timeoutMs: request.deadlineMs,
    cancelSignal: cancel.signal,
  }).finally(() => plan.signal?.removeEventListener('abort', onAbort));
  running.catch(() => undefined);

  // Waiting for the call it was made for; taken by it; or given up (stopped, or not the call).
  let state: 'waiting' | 'taken' | 'wasted' = 'waiting';
  const giveUp = () => {
    if (state !== 'waiting') return;
    state = 'wasted';
    cancel.abort();
  };
  return {
    get wasted() {
      return state === 'wasted';
    },
    stop: giveUp,
    async adopt(file, called, options) {
      if (state !== 'waiting' || options?.input !== undefined || file !== plan.binary) return undefined;
      const head = called.slice(0, called.length - args.length);
      // Another server dry run (a part of a phased apply, other flags): this one will not be asked for.
      if (!sameWords(called.slice(head.length), args))
        return called.includes('--dry-run=server') ? wasted() : undefined;
      state = 'taken';
      // Pinned as this kubeconfig pins: the same context, cluster and user.
      const target = await targetOfKubeconfigText(bytes.toString('utf8'), plan.connectionArgs).catch(() => undefined);
      if (!target || !sameWords(head, pinnedArgs(plan.connectionArgs, target))) return wasted();
      const result = await running;
      // kubectl read the kubeconfig between the start and the end: unchanged over both, it read these bytes.
      const now = await readFile(kubeconfig).catch(() => undefined);
      return now?.equals(bytes) ? { ...result, early: true } : wasted();
    },
  };

  function wasted(): undefined {
    state = 'wasted';
    cancel.abort();
    return undefined;
  }
}

/** `exec`, but the call the early dry run was made for takes its answer. */
export function adoptingEarly(exec: Exec, early: EarlyDryRun): Exec {
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
