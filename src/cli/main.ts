// The CLI entry: wires options, kubectl, the clock and a reporter together, and is the only place
// that turns results and errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { systemClock } from '../clock.js';
import { ExitCode, InputError, KguardError } from '../errors.js';
import { Kubectl } from '../kubectl/client.js';
import { execProcess } from '../kubectl/exec.js';
import { readStdin } from './environment.js';
import { download } from '../manifests/download.js';
import type { InputDeps } from '../manifests/inputs.js';
import { privateCopies } from '../rollback/restore.js';
import type { Reporter } from '../report/events.js';
import { buildReport, REPORT_VERSION } from '../report/json.js';
import { GithubActionsReporter } from '../report/github.js';
import { PlainReporter } from '../report/plain.js';
import { RunRecorder } from '../report/recorder.js';
import { TtyReporter } from '../report/tty.js';
import { runApply } from '../run/apply.js';
import { exitCodeFor, outcomeOf } from '../run/result.js';
import { parseOutputMode, toApplyOptions, type OutputMode, type RawApplyOptions } from './options.js';

/** A bug in kguard itself (EX_SOFTWARE), never a verdict about the cluster. */
const INTERNAL_ERROR = 70;
/** Interrupted by SIGINT or SIGTERM (128 + 2, as shells report Ctrl-C). */
const INTERRUPTED = 130;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function buildProgram(): Command {
  const program = new Command('kguard')
    .description('kubectl apply that watches the new rollout, explains failing pods and rolls back to the exact prior revision')
    .version('0.1.0')
    .exitOverride();
  program
    .command('apply')
    .description('apply manifests, watch every changed workload, restore everything the apply changed on failure')
    .option('-f, --filename <file|dir|url|->', 'manifests to apply (repeatable); - reads stdin', collect, [])
    .option('-R, --recursive', 'read directories given with -f recursively')
    .option('-k, --kustomize <dir>', 'apply a kustomization directory')
    .option('-n, --namespace <namespace>', 'namespace for objects that name none')
    .option('--context <name>', 'kubeconfig context to use')
    .option('--kubeconfig <path>', 'kubeconfig file to use')
    .option('--server-side', 'use server-side apply')
    .option('--dry-run [strategy]', 'preview: say what would be created, changed or left alone; nothing changes (server, client)')
    .option('--keep-created', 'when restoring, keep objects this apply created (they are reported with their delete command)')
    .option('--field-manager <name>', 'field manager name for the apply')
    .option('--timeout <duration>', 'how long each rollout may take to become healthy', '5m')
    .option('--rollback-timeout <duration>', 'how long a rollback may take (default: --timeout)')
    .option('--poll-interval <duration>', 'time between status polls', '2s')
    .option('--settle <duration>', 'how long a rollout must stay healthy before it counts as healthy', '0s')
    .option('--log-lines <n>', "how many of a failing container's last lines to print (the JSON report has up to 50)", '5')
    .addOption(
      new Option('--rollback <mode>', 'on failure restore every object the apply changed (all), only failing ones (failed), or none')
        .choices(['all', 'failed', 'none'])
        .default('all'),
    )
    .option('--no-rollback', 'never roll back (same as --rollback none)')
    .addOption(new Option('-o, --output <format>', 'text, or json: one report on stdout, logs on stderr').default('text'))
    .argument('[kubectl-args...]', 'after --: passed to kubectl apply untouched')
    .action(async (kubectlArgs: string[], raw: RawApplyOptions) => {
      const dashDash = process.argv.indexOf('--');
      if (kubectlArgs.length > 0 && dashDash === -1) {
        throw new InputError(
          `unexpected argument ${JSON.stringify(kubectlArgs[0])}: name manifests with -f, and put kubectl apply flags after --.`,
        );
      }
      process.exitCode = await apply(raw, kubectlArgs);
    });
  return program;
}

async function apply(raw: RawApplyOptions, passThrough: string[]): Promise<number> {
  let outputMode: OutputMode = 'text';
  let reporter: RunRecorder | undefined;
  try {
    outputMode = parseOutputMode(raw.output);
    const options = toApplyOptions(raw, passThrough);
    reporter = new RunRecorder(makeReporter(outputMode));
    const kubectl = new Kubectl(execProcess, {
      binary: process.env.KGUARD_KUBECTL || 'kubectl',
      connectionArgs: options.connectionArgs,
      requestTimeout: '30s',
      readDeadlineMs: 60_000,
    });
    const inputs: InputDeps = {
      readStdin,
      kustomize: (directory) => kubectl.kustomize(directory),
      download: (url) => download(url),
    };
    const stopHandling = handleInterrupts(reporter, kubectl);
    const result = await runApply(options, { kubectl, clock: systemClock, reporter, inputs, keepCopy: privateCopies() });
    stopHandling();
    const exitCode = exitCodeFor(result);
    reporter.emit({
      kind: 'finished',
      outcome: outcomeOf(result),
      exitCode,
      failedWorkloads: result.objects.filter((object) => object.verdict && object.verdict.state !== 'healthy' && object.tracked).length,
    });
    reporter.close();
    if (outputMode === 'json') process.stdout.write(`${JSON.stringify(buildReport(result, reporter.messages), null, 2)}\n`);
    return exitCode;
  } catch (error) {
    reporter?.close();
    const exitCode = error instanceof KguardError ? error.exitCode : INTERNAL_ERROR;
    const message =
      error instanceof KguardError
        ? error.message
        : `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}. This is a bug in kguard; please report it with the command you ran.`;
    process.stderr.write(`kguard: ${message} (exit ${exitCode})\n`);
    if (outputMode === 'json') {
      process.stdout.write(`${JSON.stringify({ reportVersion: REPORT_VERSION, outcome: 'error', exitCode, error: message }, null, 2)}\n`);
    }
    return exitCode;
  }
}

/**
 * A cancelled CI job or Ctrl-C leaves the new rollout running: kguard does not roll back on its
 * way out, but says exactly what is in flight and how to undo it.
 */
function handleInterrupts(reporter: RunRecorder, kubectl: Kubectl): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    reporter.close();
    const lines = reporter.unfinished().map(({ workload, fromRevision }) =>
      fromRevision === undefined
        ? `  ${kubectl.commandLine(['delete', `deployment.apps/${workload.name}`, '-n', workload.namespace])}    # created by this apply`
        : `  ${kubectl.commandLine(['rollout', 'undo', `deployment.apps/${workload.name}`, '-n', workload.namespace, `--to-revision=${fromRevision}`])}`,
    );
    const what =
      lines.length > 0
        ? `the rollouts it was watching were NOT checked or rolled back. To undo them by hand:\n${lines.join('\n')}`
        : 'no rollout was in flight.';
    process.stderr.write(`kguard: interrupted by ${signal}; ${what} (exit ${INTERRUPTED})\n`);
    process.exit(INTERRUPTED);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

function makeReporter(outputMode: OutputMode): Reporter {
  const colourFor = (stream: NodeJS.WriteStream) =>
    !('NO_COLOR' in process.env) && (Boolean(stream.isTTY) || Boolean(process.env.FORCE_COLOR));
  const logStream = outputMode === 'json' ? process.stderr : process.stdout;
  const interactive = outputMode === 'text' && Boolean(process.stdout.isTTY) && !process.env.CI;
  const reporter = interactive ? new TtyReporter(process.stdout, colourFor(process.stdout)) : new PlainReporter(logStream, colourFor(logStream));
  if (process.env.GITHUB_ACTIONS !== 'true') return reporter;
  // Annotations are read from either stream; stderr keeps stdout clean for --output json.
  return new GithubActionsReporter(reporter, process.stderr, process.env.GITHUB_STEP_SUMMARY || undefined);
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the usage error (or the help/version text).
      process.exitCode = error.exitCode === 0 ? ExitCode.Success : ExitCode.InputError;
      return;
    }
    if (error instanceof KguardError) {
      process.stderr.write(`kguard: ${error.message} (exit ${error.exitCode})\n`);
      process.exitCode = error.exitCode;
      return;
    }
    throw error;
  }
}

await main(process.argv);
