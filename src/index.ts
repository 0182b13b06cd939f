// The library entry: `import { apply } from 'kguard'`. The same pipeline as `kguard apply`, with
// a callback for the events instead of a terminal, and the JSON report as the result. It never
// writes to stdout or stderr and never exits the process: a failed rollout is a report (with
// the exit code the CLI would use), and what stopped kguard from doing its job is a thrown
// KguardError carrying that exit code.
import { guardedApply } from './api/apply.js';
import { guardedFleetApply } from './api/fleet.js';
import { fleetWaves, planWaves } from './run/fleet/fleet.js';
import { parseFleetFile } from './run/fleet/fleet-file.js';
import type { FleetPlan, FleetRollbackMode } from './model/fleet.js';
import type { FleetReport } from './report/fleet.js';
import { readStdin } from './api/environment.js';
import { resolveApplyOptions, type GuardInput } from './api/options.js';
import { parseDuration } from './duration.js';
import { InputError, KguardError } from './errors.js';
import type { Reporter, RunEvent } from './model/events.js';
import { formatEvent, type Line } from './report/format/format.js';
import type { JsonReport } from './report/json.js';
import { Redactor } from './report/safety/redact.js';
import { sanitizeText } from './report/safety/sanitize.js';
import type { RollbackMode } from './model/result.js';

export { ExitCode, InputError, InterruptedError, KguardError, KubectlError } from './errors.js';
export { REPORT_VERSION, type JsonObject as ObjectReport, type JsonReport as ApplyReport } from './report/json.js';
export type { FailureReport } from './report/format/failure.js';
export type { RunEvent as ApplyEvent, RunEventKind as ApplyEventKind } from './model/events.js';
export type { Line as EventLine, Tone as EventTone } from './report/format/format.js';
export type { Outcome } from './model/result.js';
export type { FleetReport } from './report/fleet.js';
export type { ClusterEnd, ClusterOutcome, FleetOutcome, FleetRollbackMode } from './model/fleet.js';

/** A duration: milliseconds, or a Go-style string as on the command line ("90s", "5m", "1m30s"). */
export type Duration = number | string;

/** What `kguard apply` takes on its command line, as an object. Only `files` or `kustomize` is required. */
export interface ApplyInput {
  /** -f: files, directories, URLs, or "-" for `stdin` (below, or process.stdin). */
  files?: string[];
  /** -R: read directories in `files` recursively. */
  recursive?: boolean;
  /** -k: a kustomization directory. */
  kustomize?: string;
  /** The manifests of `-`, instead of reading process.stdin; alone (no `files`, no `kustomize`), they are the whole apply. */
  stdin?: string | Uint8Array;
  namespace?: string;
  context?: string;
  kubeconfig?: string;
  serverSide?: boolean;
  fieldManager?: string;
  /** A preview: nothing changes. */
  dryRun?: 'server' | 'client';
  /** When restoring, keep the objects this apply created. */
  keepCreated?: boolean;
  /** false: no journal in the cluster and no leases (--no-journal). Default true. */
  journal?: boolean;
  /** Default "5m". */
  lockTimeout?: Duration;
  /** Where cluster-scoped objects are journalled and leased. Default "kube-system". */
  journalNamespace?: string;
  /** How long each changed rollout may take. Default "5m". */
  timeout?: Duration;
  /** How long the restore may take. Default: `timeout`. */
  rollbackTimeout?: Duration;
  /** The longest wait between two looks at a rollout (or between polls with `poll`). Default "2s". */
  pollInterval?: Duration;
  /** true: poll every `pollInterval` instead of watching (--poll). Default false. */
  poll?: boolean;
  /** Shell commands run once every changed workload is healthy; any exit but 0 restores the apply (--verify). */
  verify?: string[];
  /** Job manifest files run in the cluster after the rollout, like `helm test` (--verify-job). */
  verifyJobs?: string[];
  /** How long each verify command or Job may take. Default "2m". */
  verifyTimeout?: Duration;
  /** Keep the verify Jobs instead of deleting them. Default false. */
  keepVerify?: boolean;
  /** After healthy and verified, keep watching this long; a restart, a pod leaving Ready or an eviction restores the apply. Default "0s". */
  bake?: Duration;
  /** The old name of `bake`. */
  settle?: Duration;
  /** During the bake, run the `verify` commands again this often. Default: not again. */
  verifyInterval?: Duration;
  /** Successful runs kept per namespace for `kguard history` and `kguard undo`. Default 10; 0 keeps none. */
  history?: number;
  /** Default "all". */
  rollback?: RollbackMode;
  /** How many of a failing container's last lines the log events quote (the report keeps up to 50). Default 5. */
  logLines?: number;
  /** How many kubectl processes may run at once (watch streams aside). Default 8. */
  concurrency?: number;
  /** More `kubectl apply` flags, as after `--` on the command line. */
  kubectlArgs?: string[];
  /** The kubectl binary. Default: $KGUARD_KUBECTL, or `kubectl` from PATH. */
  kubectl?: string;
  /** Called with every event, already sanitised (Secret values redacted), and the line the CLI prints for it. */
  onEvent?: (event: RunEvent, line: Line) => void;
  /** Abort to cancel: before the apply nothing changes; after it, what it changed is restored. */
  signal?: PlatformAbortSignal;
}

/**
 * The platform's AbortSignal (Node's, or the DOM's) as the consumer's own types declare it, so
 * the published types need neither @types/node nor the DOM library (test/api/types.test.ts).
 */
export type PlatformAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer Signal } }
  ? Signal
  : never;

/**
 * Applies the manifests, watches every changed workload and restores the pre-apply state of the
 * whole apply when one fails. Resolves with the report `kguard apply --output json` prints
 * (schema/report.schema.json); `report.exitCode` is the CLI's exit code. Rejects with an
 * InputError (exit code 1), KubectlError (2) or InterruptedError (130) when nothing was applied
 * because of the input, kubectl or the cluster, or a cancel before the apply.
 */
export async function apply(input: ApplyInput): Promise<JsonReport> {
  return libraryRun(input, async (options, deps) => (await guardedApply(options, deps)).report);
}

/**
 * One library call: the options resolved from the input, the dependencies every run takes from
 * it (events, signal, stdin, kubectl), and a rejection whose message is sanitised: kubectl's
 * words may quote a Secret of the apply.
 */
async function libraryRun<T>(
  input: ApplyInput,
  run: (options: ReturnType<typeof resolveApplyOptions>, deps: Parameters<typeof guardedApply>[1]) => Promise<T>,
): Promise<T> {
  const redactor = new Redactor();
  try {
    const options = resolveApplyOptions(guardInput(input));
    return await run(options, {
      redactor,
      reporter: callbackReporter(input.onEvent),
      signal: input.signal,
      readStdin: input.stdin === undefined ? readStdin : async () => Buffer.from(input.stdin as string | Uint8Array),
      kubectlBinary: input.kubectl ?? (process.env.KGUARD_KUBECTL || 'kubectl'),
      env: process.env,
    });
  } catch (error) {
    if (error instanceof KguardError) error.message = sanitizeText(error.message, redactor);
    throw error;
  }
}

/** A fleet: the same apply, cluster by cluster. `context` is not given; the waves name the contexts. */
export interface FleetInput extends Omit<ApplyInput, 'context'> {
  /** Contexts of the kubeconfig, one wave each, in order. */
  contexts?: string[];
  /** A first wave of this one context; then every other context of `contexts` in one parallel wave. */
  canary?: string;
  /** When a cluster fails: restore every cluster this run changed (all, the default), only the failed one, or none. */
  fleetRollback?: FleetRollbackMode;
  /** A fleet file (YAML or JSON, schema/fleet.schema.json) instead of contexts and canary: waves, parallel, bake, per-context overrides. */
  fleetFile?: string;
}

/**
 * Applies to each cluster in turn, wave by wave, with the whole pipeline of apply() in each; a
 * wave must be healthy before the next starts. When a cluster fails, `fleetRollback: 'all'`
 * restores every cluster already changed, the healthy ones included; clusters not reached are
 * never touched. Resolves with the fleet's report (report.exitCode as the CLI's); rejects as
 * apply() does for input that no cluster could take.
 */
export async function applyFleet(input: FleetInput): Promise<FleetReport> {
  return libraryRun(
    input,
    async (options, deps) => (await guardedFleetApply(options, await fleetPlanOf(input), deps)).report,
  );
}

/** The fleet's waves: from its file, or from contexts and canary. */
async function fleetPlanOf(input: FleetInput): Promise<FleetPlan> {
  const rollback = input.fleetRollback ?? 'all';
  if (input.fleetFile === undefined)
    return { waves: planWaves(fleetWaves(input.contexts ?? [], input.canary)), rollback };
  if (input.contexts !== undefined || input.canary !== undefined)
    throw new InputError(
      `fleetFile ${input.fleetFile} names the fleet's contexts, and so do contexts and canary: give one of them.`,
    );
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(input.fleetFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `--fleet ${input.fleetFile}: cannot read it (${error.code ?? 'unreadable'}); give a YAML or JSON file of waves (schema/fleet.schema.json).`,
    );
  });
  return { ...parseFleetFile(text, input.fleetFile), rollback };
}

/** The library's input as typed options: numbers are milliseconds, strings Go durations. */
function guardInput(input: Omit<ApplyInput, 'context'> & { context?: string }): GuardInput {
  return {
    // Manifests given as text alone are read as kubectl reads stdin.
    filenames: input.files ?? (input.stdin !== undefined && input.kustomize === undefined ? ['-'] : []),
    recursive: input.recursive,
    kustomize: input.kustomize,
    namespace: input.namespace,
    context: input.context,
    kubeconfig: input.kubeconfig,
    serverSide: input.serverSide,
    fieldManager: input.fieldManager,
    dryRun: input.dryRun,
    keepCreated: input.keepCreated,
    journal: input.journal,
    lockTimeoutMs: ms(input.lockTimeout, 'lockTimeout'),
    journalNamespace: input.journalNamespace,
    timeoutMs: ms(input.timeout, 'timeout'),
    rollbackTimeoutMs: ms(input.rollbackTimeout, 'rollbackTimeout'),
    pollIntervalMs: ms(input.pollInterval, 'pollInterval'),
    poll: input.poll,
    settleMs: ms(input.settle, 'settle'),
    bakeMs: ms(input.bake, 'bake'),
    verifyCommands: input.verify,
    verifyJobs: input.verifyJobs,
    verifyTimeoutMs: ms(input.verifyTimeout, 'verifyTimeout'),
    keepVerify: input.keepVerify,
    verifyIntervalMs: ms(input.verifyInterval, 'verifyInterval'),
    history: input.history,
    rollback: input.rollback,
    logLines: input.logLines,
    concurrency: input.concurrency,
    kubectlArgs: input.kubectlArgs,
  };
}

function ms(duration: Duration | undefined, name: string): number | undefined {
  return typeof duration === 'string' ? parseDuration(duration, name) : duration;
}

function callbackReporter(onEvent: ApplyInput['onEvent']): Reporter {
  return {
    emit: (event) => onEvent?.(event, formatEvent(event)),
    close: () => undefined,
  };
}
