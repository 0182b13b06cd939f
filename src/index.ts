// The library entry: `import { apply } from 'kguard'`. The same pipeline as `kguard apply`, with
// a callback for the events instead of a terminal, and the JSON report as the result. It never
// writes to stdout or stderr and never exits the process: a failed rollout is a report (with
// the exit code the CLI would use), and what stopped kguard from doing its job is a thrown
// KguardError carrying that exit code.
import { guardedApply } from './api/apply.js';
import { guardedFleetApply } from './api/fleet.js';
import { fleetWaves, planWaves } from './run/fleet/fleet.js';
import { parseFleetFile } from './run/fleet/fleet-file.js';
import type { FleetPlan } from './model/fleet.js';
import type { FleetReport } from './report/fleet.js';
import { readStdin } from './api/environment.js';
import { resolveApplyOptions, type GuardInput } from './api/options.js';
import { typedFromLibrary, type LibraryFlags } from './api/flag-values.js';
import { readAnalysis, readHealthRules } from './api/input-files.js';
import { InputError, KguardError } from './errors.js';
import type { Reporter, RunEvent } from './model/events.js';
import { formatEvent, type Line } from './report/format/format.js';
import type { JsonReport } from './report/json.js';
import { Redactor } from './report/safety/redact.js';
import { sanitizeText } from './report/safety/sanitize.js';

export { ExitCode, InputError, InterruptedError, KguardError, KubectlError } from './errors.js';
export { REPORT_VERSION, type JsonObject as ObjectReport, type JsonReport as ApplyReport } from './report/json.js';
export type { FailureReport } from './report/format/failure.js';
export type { RunEvent as ApplyEvent, RunEventKind as ApplyEventKind } from './model/events.js';
export type { Line as EventLine, Tone as EventTone } from './report/format/format.js';
export type { Outcome } from './model/result.js';
export type { FleetReport } from './report/fleet.js';
export type { ClusterEnd, ClusterOutcome, FleetOutcome, FleetRollbackMode } from './model/fleet.js';
export type { Duration } from './api/flag-values.js';

/**
 * What `kguard apply` takes on its command line, as an object: a field per flag the library
 * takes (api/flags.ts declares each once, with the flag; docs/library.md lists them). Only
 * `files`, `kustomize` or `stdin` is required. Durations are milliseconds or Go-style strings
 * ("90s", "5m"); `healthRules` is a file, as --health-rules.
 */
export interface ApplyInput extends LibraryFlags<'run'> {
  /** The manifests of `-`, instead of reading process.stdin; alone (no `files`, no `kustomize`), they are the whole apply. */
  stdin?: string | Uint8Array;
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
    const options = resolveApplyOptions(await guardInput(input));
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

/** A fleet: the same apply, cluster by cluster, with the fleet's fields (`contexts`, `canary`, `fleetFile`, `fleetRollback`). `context` is not given; the waves name the contexts. */
export interface FleetInput extends Omit<ApplyInput, 'context'>, LibraryFlags<'fleet'> {}

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

/** The library's input as typed options, each field read by its flag's row (api/flags.ts); --health-rules' file read and checked. */
async function guardInput(input: Omit<ApplyInput, 'context'> & { context?: string }): Promise<GuardInput> {
  const { filenames, ...typed } = typedFromLibrary(input);
  return {
    ...typed,
    // Manifests given as text alone are read as kubectl reads stdin.
    filenames: filenames ?? (input.stdin !== undefined && input.kustomize === undefined ? ['-'] : []),
    ...(input.healthRules === undefined ? {} : { healthRules: await readHealthRules(input.healthRules) }),
    ...(input.analysis === undefined ? {} : { analysis: await readAnalysis(input.analysis) }),
    kubectlArgs: input.kubectlArgs,
  };
}

function callbackReporter(onEvent: ApplyInput['onEvent']): Reporter {
  return {
    emit: (event) => onEvent?.(event, formatEvent(event)),
    close: () => undefined,
  };
}
