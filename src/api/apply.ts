// A whole guarded apply, wired: kubectl, the system clock, inputs read once, Secret values learnt
// before kubectl sees them, every event sanitised, and the JSON report at the end. Shared by the
// CLI (which passes a terminal reporter) and the library entry (src/index.ts, which passes a
// callback); neither this file nor anything it calls writes to stdout or exits.
import { isChange } from '../objects/compare.js';
import { systemClock } from '../clock.js';
import { InputError } from '../errors.js';
import { connectKubectl } from '../kubectl/connect.js';
import { execCommand } from '../kubectl/process/exec.js';
import type { EarlyStart } from '../kubectl/early-start.js';
import { requestTimeoutOf } from '../kubectl/output/parse.js';
import { credentialValues } from '../kubectl/passthrough.js';
import { RETRY_DELAYS_MS } from '../kubectl/transient.js';
import { download } from '../manifests/download.js';
import type { InputDeps } from '../manifests/inputs.js';
import { privateCopies } from '../restore/private-copies.js';
import { makeRunId } from '../journal/store.js';
import type { KubectlCall, Reporter } from '../model/events.js';
import { buildReport, type JsonReport } from '../report/json.js';
import { RunRecorder } from '../report/recorder.js';
import { secretValuesOfObjects, type Redactor } from '../report/safety/redact.js';
import { secretValuesIn } from '../report/safety/secret-values.js';
import { sanitizeDeep } from '../report/safety/sanitize.js';
import { runApply } from '../run/apply/apply.js';
import { anythingRestored, exitCodeOfRun } from '../run/apply/result.js';
import { manifestTexts, missingKubeconfig } from './environment.js';
import type { GuardedApplyOptions } from '../model/options.js';

export interface GuardedApplyDeps {
  /** Learns every Secret value of the apply; the caller sanitises its own error messages with it. */
  redactor: Redactor;
  /** Where the (sanitised) events go: a terminal reporter, or the library's callback. */
  reporter: Reporter;
  /** Aborted: before the apply nothing is changed; after it, what it changed is restored. */
  signal?: AbortSignal;
  /** The bytes of `-f -`. */
  readStdin(): Promise<Uint8Array>;
  /** The kubectl binary to run. */
  kubectlBinary: string;
  /** The environment kubectl will see, for the missing-kubeconfig check. */
  env: NodeJS.ProcessEnv;
  /** Called as soon as the run's recorder exists: the CLI needs its log and what is not restored yet on a second signal. */
  onRecorder?(recorder: RunRecorder): void;
  /** The preview of --confirm: more follows it, so it prints no final line. */
  quietEnd?: boolean;
  /** Called as soon as the pipeline has its result: a signal after this changes nothing. */
  onResult?(): void;
  /** Emit a `kubectl` event for every kubectl process as it ends (--verbose). */
  traceKubectl?: boolean;
  /** What the CLI started before loading this module (kubectl/early-start.ts): the run's target, channel and server dry run. */
  early?: EarlyStart;
}

export interface GuardedApplyResult {
  report: JsonReport;
  exitCode: number;
  /** The run's id: its journal's name in the cluster. */
  runId: string;
}

export async function guardedApply(options: GuardedApplyOptions, deps: GuardedApplyDeps): Promise<GuardedApplyResult> {
  const missing = missingKubeconfig(options.connectionArgs, deps.env);
  if (missing) throw new InputError(missing);
  const learn = (text: string) => {
    for (const value of secretValuesIn(text)) deps.redactor.addValue(value);
  };
  // A --token given on the command line is never printed, in commands kguard prints included.
  for (const value of credentialValues(options.connectionArgs)) deps.redactor.addValue(value);

  const recorder = new RunRecorder(deps.reporter, deps.redactor);
  deps.onRecorder?.(recorder);
  let closeKubectl = () => undefined as void;
  try {
    const onCall = (call: KubectlCall) => recorder.emit({ kind: 'kubectl', ...call });
    const now = () => systemClock.now();
    const kubectl = connectKubectl(
      {
        binary: deps.kubectlBinary,
        connectionArgs: options.connectionArgs,
        requestTimeout: requestTimeoutOf(options.requestTimeoutMs),
        readDeadlineMs: readDeadlineMs(options),
        concurrency: options.concurrency,
        retry: { delaysMs: RETRY_DELAYS_MS, sleep: systemClock.sleep },
        // Secrets as the cluster holds them (before the apply, and as a restore reads them).
        observe: (objects) => {
          for (const value of secretValuesOfObjects(objects)) deps.redactor.addValue(value);
        },
      },
      { trace: deps.traceKubectl ? { now, onCall } : undefined, early: deps.early },
    );
    closeKubectl = () => kubectl.close();
    // Every manifest is learnt before kubectl reads it and after the size check let it through: the
    // user's files, and the private copies of stdin, a URL and kustomize's output alike (a 50 MB
    // input parsed here before the check could refuse it cost many times its size, #45).
    const inputs: InputDeps = {
      readStdin: deps.readStdin,
      kustomize: (directory) => kubectl.kustomize(directory),
      download: (url) => download(url),
      learnFiles: async (prepared) => {
        for (const text of await manifestTexts(prepared.filenames, prepared.recursive)) learn(text);
      },
    };
    const runId = makeRunId();
    const copies = privateCopies(runId);
    const result = await runApply(options, {
      runId,
      kubectl,
      clock: systemClock,
      reporter: recorder,
      inputs,
      keepCopy: copies,
      signal: deps.signal,
      verify: {
        runCommand: execCommand,
        // The kubeconfig kguard was told to use is the one a check's kubectl must use too.
        env: kubeconfigOf(options.connectionArgs),
        // KGUARD_REPORT: what --output json would print now, sanitised as it would be.
        report: (sofar) => JSON.stringify(sanitizeDeep(buildReport(sofar, recorder.messages), deps.redactor), null, 2),
      },
      // The verdict line comes as soon as the result is known; kguard's cleanup follows it.
      announce: (known) => {
        deps.onResult?.();
        if (!deps.quietEnd) {
          recorder.emit({
            kind: 'finished',
            outcome: known.outcome,
            exitCode: exitCodeOfRun(known),
            restored: anythingRestored(known),
            failedWorkloads: known.objects.filter(
              (object) => object.verdict && object.verdict.state !== 'healthy' && object.tracked,
            ).length,
            // A rollout left unfinished before this run, judged although the apply changed nothing.
            ...(known.mode === 'apply' &&
            !known.objects.some(isChange) &&
            known.objects.some((object) => object.tracked)
              ? { changedNothing: true }
              : {}),
          });
        }
      },
    });
    const exitCode = exitCodeOfRun(result);
    // Pre-apply copies written for commands a person may run stay; a run that needs no one leaves none.
    if (result.outcome !== 'needs-attention' && options.rollback === 'all') await copies.remove();
    const run = { runId: recorder.runId, runLabel: options.runLabel };
    return { report: sanitizeDeep(buildReport(result, recorder.messages, run), deps.redactor), exitCode, runId };
  } finally {
    closeKubectl();
    recorder.close();
  }
}

function kubeconfigOf(connectionArgs: readonly string[]): Record<string, string> {
  const file = connectionArgs.find((arg) => arg.startsWith('--kubeconfig='))?.slice('--kubeconfig='.length);
  return file ? { KUBECONFIG: file } : {};
}

/**
 * Every read has a deadline, so one hung kubectl cannot stall the run: the shorter of the two
 * timeouts, between 5 s (kubectl needs some to start and discover) and 60 s. The apply and the
 * dry runs get --timeout, the restore's writes --rollback-timeout (run/apply/apply.ts).
 */
function readDeadlineMs(options: Pick<GuardedApplyOptions, 'timeoutMs' | 'rollbackTimeoutMs'>): number {
  return Math.min(60_000, Math.max(5_000, Math.min(options.timeoutMs, options.rollbackTimeoutMs)));
}
