// The CLI entry: wires options, kubectl, the clock and a reporter together, and is the only place
// that turns results and errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { systemClock } from '../clock.js';
import { ExitCode, InputError, KguardError } from '../errors.js';
import { Kubectl } from '../kubectl/client.js';
import { execProcess } from '../kubectl/exec.js';
import type { LoadDeps } from '../manifests/load.js';
import type { Reporter } from '../report/events.js';
import { buildReport, REPORT_VERSION } from '../report/json.js';
import { PlainReporter } from '../report/plain.js';
import { TtyReporter } from '../report/tty.js';
import { runApply } from '../run/apply.js';
import { exitCodeFor, outcomeOf } from '../run/result.js';
import { parseOutputMode, toApplyOptions, type OutputMode, type RawApplyOptions } from './options.js';

/** A bug in kguard itself (EX_SOFTWARE), never a verdict about the cluster. */
const INTERNAL_ERROR = 70;

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
    .description('apply manifests, watch every changed Deployment, roll back on failure')
    .option('-f, --filename <file|dir|url|->', 'manifests to apply (repeatable); - reads stdin', collect, [])
    .option('-R, --recursive', 'read directories given with -f recursively')
    .option('-k, --kustomize <dir>', 'apply a kustomization directory')
    .option('-n, --namespace <namespace>', 'namespace for objects that name none')
    .option('--context <name>', 'kubeconfig context to use')
    .option('--kubeconfig <path>', 'kubeconfig file to use')
    .option('--server-side', 'use server-side apply')
    .option('--field-manager <name>', 'field manager name for the apply')
    .option('--timeout <duration>', 'how long each rollout may take to become healthy', '5m')
    .option('--rollback-timeout <duration>', 'how long a rollback may take (default: --timeout)')
    .option('--poll-interval <duration>', 'time between status polls', '2s')
    .addOption(
      new Option('--rollback <mode>', 'on failure undo every changed Deployment (all), only failing ones (failed), or none')
        .choices(['all', 'failed', 'none'])
        .default('all'),
    )
    .option('--no-rollback', 'never roll back (same as --rollback none)')
    .addOption(new Option('-o, --output <format>', 'text, or json: one report on stdout, logs on stderr').default('text'))
    .argument('[kubectl-args...]', 'after --: passed to kubectl apply untouched')
    .action(async (kubectlArgs: string[], raw: RawApplyOptions & { context?: string; kubeconfig?: string }) => {
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

async function apply(raw: RawApplyOptions & { context?: string; kubeconfig?: string }, passThrough: string[]): Promise<number> {
  let outputMode: OutputMode = 'text';
  let reporter: Reporter | undefined;
  try {
    outputMode = parseOutputMode(raw.output);
    const options = toApplyOptions(raw, passThrough);
    reporter = makeReporter(outputMode);
    const kubectl = new Kubectl(execProcess, {
      binary: process.env.KGUARD_KUBECTL || 'kubectl',
      context: raw.context,
      kubeconfig: raw.kubeconfig,
      requestTimeout: '30s',
    });
    const load: LoadDeps = {
      readStdin,
      kustomize: (directory) => kubectl.kustomize(directory),
      fetchUrl,
    };
    const result = await runApply(options, { kubectl, clock: systemClock, reporter, load });
    const exitCode = exitCodeFor(result);
    reporter.emit({
      kind: 'finished',
      outcome: outcomeOf(result),
      exitCode,
      failedWorkloads: result.workloads.filter((workload) => workload.verdict && workload.verdict.state !== 'healthy').length,
    });
    reporter.close();
    if (outputMode === 'json') process.stdout.write(`${JSON.stringify(buildReport(result), null, 2)}\n`);
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

function makeReporter(outputMode: OutputMode): Reporter {
  const colourFor = (stream: NodeJS.WriteStream) =>
    !('NO_COLOR' in process.env) && (Boolean(stream.isTTY) || Boolean(process.env.FORCE_COLOR));
  if (outputMode === 'json') return new PlainReporter(process.stderr, colourFor(process.stderr));
  const interactive = Boolean(process.stdout.isTTY) && !process.env.CI;
  return interactive
    ? new TtyReporter(process.stdout, colourFor(process.stdout))
    : new PlainReporter(process.stdout, colourFor(process.stdout));
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new InputError('-f - reads manifests from stdin, but stdin is a terminal. Pipe the manifests in: cat app.yaml | kguard apply -f -');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function fetchUrl(url: string): Promise<string> {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    return await response.text();
  } catch (error) {
    throw new InputError(`-f ${url}: could not download the manifests (${error instanceof Error ? error.message : error}). Nothing was applied.`);
  }
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
