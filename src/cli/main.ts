// The CLI entry: wires options, kubectl, the clock and a reporter together, and is the only place
// that turns results and errors into exit codes and exits.
// Only what parsing the command line needs is loaded up front: `--version`, `--help` and a bad
// command line never load the pipeline, kubectl's adapter, the reporters, ora or chalk; each
// command imports what it uses when it runs.
import { isChangeKind } from '../objects/compare.js';
import { writeFileSync } from 'node:fs';
import { Argument, Command, CommanderError, Option } from 'commander';
import { ExitCode, InputError, InterruptedError, KguardError } from '../errors.js';
import { stopRunningProcesses } from '../kubectl/exec.js';
import type { ManifestInput } from '../model/options.js';
import type { Reporter } from '../model/events.js';
import { failureReport, reportFailure, type Failure, type FailureOutputs, type FailureReport } from '../report/failure.js';
import type { JsonReport } from '../report/json.js';
import type { RunRecorder } from '../report/recorder.js';
import { Redactor, secretValuesOfObjects } from '../report/redact.js';
import { sanitizeDeep, sanitizeText } from '../report/sanitize.js';
import { canAnimate, missingKubeconfig, programName, readStdin, useColour } from '../api/environment.js';
import { secondSignalMessage } from './interrupt.js';
import { formatDuration, parseDuration } from '../duration.js';
import { DEFAULTS } from '../model/options.js';
import { parseOutputMode, toApplyOptions, wantsJsonOutput, type RawApplyOptions } from './options.js';
import type { GuardedApplyOptions } from '../model/options.js';
import type { JournalCommandOptions, RunCommandName } from './journal-commands.js';
import type { HistoryCommandOptions } from './history-commands.js';
import type { Session } from './session.js';

/** A bug in kguard itself (EX_SOFTWARE), never a verdict about the cluster. */
const INTERNAL_ERROR = 70;
/** Interrupted by SIGINT or SIGTERM (128 + 2, as shells report Ctrl-C). */
const INTERRUPTED = 130;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function buildProgram(session: Session): Command {
  const program = new Command(programName(process.argv[1]))
    .description('kubectl apply that watches the new rollout, explains failing pods and rolls back to the exact prior revision')
    .version('0.1.0')
    .exitOverride();
  const rollbackFlags: string[] = [];
  const apply = program
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
    .option('--no-journal', 'do not journal the run in the cluster nor lease its objects (a killed run cannot be rolled back by kguard rollback)')
    .option('--lock-timeout <duration>', 'how long to wait for objects another kguard run holds', formatDuration(DEFAULTS.lockTimeoutMs))
    .option('--journal-namespace <namespace>', 'where cluster-scoped objects are journalled and leased (each namespace\'s objects are journalled in it)', DEFAULTS.journalNamespace)
    .option('--timeout <duration>', 'how long each rollout may take to become healthy', formatDuration(DEFAULTS.timeoutMs))
    .option('--rollback-timeout <duration>', 'how long a rollback may take (default: --timeout)')
    .option('--poll-interval <duration>', 'longest time between two looks at a rollout (watching), or between polls (--poll)', formatDuration(DEFAULTS.pollIntervalMs))
    .option('--poll', 'poll the rollouts every --poll-interval instead of watching them')
    .option('--verify <command>', 'after every changed workload is healthy, run this shell command; any exit but 0 restores the apply (repeatable)', collect, [])
    .option('--verify-job <file>', 'after the rollout, run this Job in the cluster (like helm test); failed or late restores the apply (repeatable)', collect, [])
    .option('--verify-timeout <duration>', 'how long each --verify command or --verify-job may take', formatDuration(DEFAULTS.verifyTimeoutMs))
    .option('--keep-verify', 'keep the --verify-job Jobs instead of deleting them')
    .option('--bake <duration>', 'after healthy and verified, keep watching this long: a restart, a pod leaving Ready or an eviction restores the apply')
    .option('--verify-interval <duration>', 'during --bake, run the --verify commands again this often')
    .addOption(new Option('--settle <duration>', 'the old name of --bake').hideHelp())
    .option('--history <n>', 'keep the records of this many successful runs per namespace, for kguard history and undo (0 keeps none)', String(DEFAULTS.history))
    .option('--concurrency <n>', 'how many kubectl processes may run at once (watch streams aside)', String(DEFAULTS.concurrency))
    .option('--request-timeout <duration>', "kubectl's deadline for each API request (kubectl --request-timeout)", formatDuration(DEFAULTS.requestTimeoutMs))
    .option('--log-lines <n>', "how many of a failing container's last lines to print (the JSON report has up to 50)", String(DEFAULTS.logLines))
    .addOption(
      new Option('--rollback <mode>', 'on failure restore every object the apply changed (all), only failing ones (failed), or none')
        .choices(['all', 'failed', 'none'])
        .default('all'),
    )
    .option('--no-rollback', 'never roll back (same as --rollback none)')
    .addOption(new Option('-o, --output <format>', 'text, or json: one report on stdout, logs on stderr').default('text'))
    .option('--junit <file>', 'also write a JUnit XML report to FILE: one test case per object of the apply')
    .option('--diff', 'preview with kubectl diff for every object the apply would create or change; nothing changes')
    .option('--confirm', 'on a terminal: preview with --diff, then ask before applying')
    .option('-y, --yes', 'answer yes to --confirm (apply without asking)')
    .argument('[kubectl-args...]', 'after --: passed to kubectl apply untouched')
    .action(async (kubectlArgs: string[], raw: RawApplyOptions) => {
      const dashDash = process.argv.indexOf('--');
      if (kubectlArgs.length > 0 && dashDash === -1) {
        throw new InputError(
          `unexpected argument ${JSON.stringify(kubectlArgs[0])}: name manifests with -f, and put kubectl apply flags after --.`,
        );
      }
      process.exitCode = await runCommand({ ...raw, rollbackFlags }, kubectlArgs, session);
    });
  // Both flags write `rollback`; seeing each one lets a contradiction be refused (options.ts).
  apply.on('option:rollback', (mode: string) => rollbackFlags.push(`--rollback ${mode}`));
  apply.on('option:no-rollback', () => rollbackFlags.push('--no-rollback'));
  const journalOptions = (command: Command) =>
    command
      .option('-n, --namespace <namespace>', 'look for journals and Leases in this namespace only (default: all namespaces)')
      .option('--context <name>', 'kubeconfig context to use')
      .option('--kubeconfig <path>', 'kubeconfig file to use')
      .addOption(new Option('-o, --output <format>', 'text, or json').default('text'));
  const runAction = (name: RunCommandName) => async (run: string | undefined, raw: JournalCommandOptions) => {
    const { journalCommand } = await import('./journal-commands.js');
    process.exitCode = await journalCommand(name, run, raw, { session, makeReporter, fail });
  };
  journalOptions(
    program
      .command('rollback')
      .description("restore a run that could not finish itself, from its journal in the cluster (someone else's change still wins)")
      .argument('[run]', 'the run to restore (kguard status lists them); default: the only unfinished run that is not running'),
  )
    .option('--rollback-timeout <duration>', 'how long the restore may take', formatDuration(DEFAULTS.timeoutMs))
    .option('--force', 'restore the run even if it looks alive (its process runs, or it renews its Leases)')
    .action(runAction('rollback'));
  journalOptions(program.command('status').description('list kguard runs in the cluster: running, dead or finished, with what is left to do')).action(
    async (raw: JournalCommandOptions) => runAction('status')(undefined, raw),
  );
  const byRunId = (name: 'unlock' | 'forget', description: string, force: string) =>
    journalOptions(program.command(name).description(description).argument('<run>', `the run to ${name} (kguard status lists them)`))
      .option('--force', force)
      .action(runAction(name));
  byRunId('unlock', 'release the Leases of a run that died before it wrote its journal, so other runs may change its objects', 'release them even if the run looks alive or left a journal');
  byRunId('forget', 'dismiss a run on purpose: remove its journal and Leases and leave its objects as they are', 'forget it even if it looks alive');
  const historyAction = (name: 'history' | 'undo') => async (run: string | undefined, raw: HistoryCommandOptions) => {
    const { historyCommand } = await import('./history-commands.js');
    process.exitCode = await historyCommand(name, run, raw, { session, makeReporter, fail });
  };
  const historyOptions = (command: Command) =>
    command
      .option('-n, --namespace <namespace>', 'look for history records in this namespace only (default: all namespaces)')
      .option('--context <name>', 'kubeconfig context to use')
      .option('--kubeconfig <path>', 'kubeconfig file to use')
      .addOption(new Option('-o, --output <format>', 'text, or json').default('text'));
  historyOptions(program.command('history').description('list the successful runs kept in the cluster (--history): when, who, what they changed')).action(
    async (raw: HistoryCommandOptions) => historyAction('history')(undefined, raw),
  );
  historyOptions(
    program
      .command('undo')
      .description("put back the state from before a successful run, from its history record (someone else's change since still wins)")
      .argument('[run]', 'the run to undo (kguard history lists them); default: the newest kept'),
  )
    .option('--dry-run', 'say what would change, with the differences kubectl diff style; change nothing')
    .option('--rollback-timeout <duration>', 'how long the restore and the restored workloads may take', formatDuration(DEFAULTS.timeoutMs))
    .action(historyAction('undo'));
  program
    .command('completion')
    .description('print the shell completion script: source <(kguard completion bash)')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(async (shell: 'bash' | 'zsh') => {
      const { completionScript } = await import('./completion.js');
      process.stdout.write(completionScript(program, shell));
    });
  return program;
}

async function runCommand(raw: RawApplyOptions, passThrough: string[], session: Session): Promise<number> {
  try {
    const outputMode = parseOutputMode(raw.output);
    session.json = outputMode === 'json';
    session.junitFile = raw.junit;
    const options = toApplyOptions(raw, passThrough);
    if (raw.confirm && !raw.yes && !(await confirmed(options, session))) {
      throw new InputError('not applied: the answer was not yes. Nothing was changed.');
    }
    // Said before the pipeline is even loaded (guardedApply checks it again for the library).
    const missing = missingKubeconfig(options.connectionArgs, process.env);
    if (missing) throw new InputError(missing);
    session.finished = false;
    const { guardedApply } = await import('../api/apply.js');
    const { report, exitCode } = await guardedApply(options, {
      redactor: session.redactor,
      reporter: await makeReporter(session, options.manifests),
      signal: session.cancel.signal,
      readStdin,
      kubectlBinary: process.env.KGUARD_KUBECTL || 'kubectl',
      env: process.env,
      onRecorder: (recorder) => (session.recorder = recorder),
      onResult: () => (session.finished = true),
    });
    if (session.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    await writeJunit(session, report);
    return exitCode;
  } catch (error) {
    session.recorder?.close();
    return fail(session, error);
  }
}

/** Turns anything that stopped the run into its exit code, reported on every output. */
async function fail(session: Session, error: unknown): Promise<number> {
  const failure = failureOf(error);
  if (failure.exitCode === ExitCode.Success) return ExitCode.Success;
  const sanitized = { ...failure, message: sanitizeText(failure.message, session.redactor), messages: session.recorder?.messages };
  await reportFailure(sanitized, failureOutputs(session));
  await writeJunit(session, failureReport(sanitized));
  return failure.exitCode;
}

/**
 * --confirm: the preview (a server dry run with kubectl diff) on the terminal, then the question.
 * A preview in which nothing would change needs no answer.
 */
async function confirmed(options: GuardedApplyOptions, session: Session): Promise<boolean> {
  const output = session.json ? process.stderr : process.stdout;
  const [{ askYesNo, requireTerminal }, { guardedApply }] = await Promise.all([import('./confirm.js'), import('../api/apply.js')]);
  requireTerminal(Boolean(process.stdin.isTTY), Boolean(output.isTTY));
  const { report } = await guardedApply({ ...options, dryRun: 'server', diff: true }, {
    redactor: session.redactor,
    reporter: await makeReporter({ ...session, githubActions: false }, options.manifests),
    signal: session.cancel.signal,
    readStdin,
    kubectlBinary: process.env.KGUARD_KUBECTL || 'kubectl',
    env: process.env,
    onRecorder: (recorder) => (session.recorder = recorder),
    quietEnd: true,
  });
  if (report.objects.every((object) => !isChangeKind(object.change))) return true;
  return askYesNo('Apply these changes? [y/N] ', process.stdin, output);
}

function failureOutputs(session: Session): FailureOutputs {
  const summaryPath = process.env.GITHUB_STEP_SUMMARY || undefined;
  return { stdout: process.stdout, stderr: process.stderr, json: session.json, githubActions: session.githubActions, summaryPath };
}

/** The JUnit report is a courtesy, like the job summary: a file that cannot be written is a warning; the exit code stands. */
async function writeJunit(session: Session, report: JsonReport | FailureReport): Promise<void> {
  if (!session.junitFile) return;
  const { junitXml } = await import('../report/junit.js');
  try {
    writeFileSync(session.junitFile, junitXml(report, new Date()));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    process.stderr.write(`kguard: could not write the JUnit report to ${session.junitFile} (${why}); the exit code stands\n`);
  }
}

function failureOf(error: unknown): Failure {
  if (error instanceof CommanderError) {
    // Commander printed the usage error itself (or the help or version text, exit 0).
    if (error.exitCode === 0) return { outcome: 'error', exitCode: ExitCode.Success, message: '' };
    const message = error.message === '(outputHelp)' ? 'no command given: use kguard apply -f FILE' : error.message.replace(/^error: /, '');
    return { outcome: 'error', exitCode: ExitCode.InputError, message, printed: true };
  }
  if (error instanceof InterruptedError) return { outcome: 'interrupted', exitCode: error.exitCode, message: error.message };
  if (error instanceof KguardError) return { outcome: 'error', exitCode: error.exitCode, message: error.message };
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    outcome: 'error',
    exitCode: INTERNAL_ERROR,
    message: `internal error: ${detail}. This is a bug in kguard; please report it with the command you ran.`,
  };
}

/**
 * A cancelled CI job (SIGINT, then SIGTERM, then SIGKILL a few seconds later) or Ctrl-C, in any
 * state, from the first line of main on: the first signal stops the watch and restores what the
 * apply changed (before the apply: stops the reads, nothing is applied); a second one stops every
 * kubectl still running and exits at once, saying what was left, on every output.
 */
function handleInterrupts(session: Session): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (session.finished) return;
    signals += 1;
    if (signals === 1) {
      process.stderr.write(`kguard: ${signal}: stopping; restoring what this apply changed (a second signal exits at once)\n`);
      session.cancel.abort(`interrupted by ${signal}`);
      return;
    }
    stopRunningProcesses();
    session.recorder?.close();
    const message = sanitizeText(secondSignalMessage(signal, session.recorder?.notRestored() ?? [], INTERRUPTED, session.recorder?.runId), session.redactor);
    process.stderr.write(`kguard: ${message}\n`);
    const failure: Failure = { outcome: 'interrupted', exitCode: INTERRUPTED, message, messages: session.recorder?.messages, printed: true };
    void (async () => {
      await reportFailure(failure, failureOutputs(session)).catch(() => undefined);
      await writeJunit(session, failureReport(failure)).catch(() => undefined);
      process.exit(INTERRUPTED);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * A reader that goes away (`kguard apply -f x | head -2`) makes the next write fail with EPIPE,
 * and an unhandled stream error would end kguard in the middle of a watch or a restore. The
 * output is lost; the run, the restore and the exit code are not.
 */
function keepWorkingWithoutReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

/** The reporter for this terminal or CI system; only its own module is loaded (ora for a terminal). */
async function makeReporter(session: Session, manifests?: ManifestInput): Promise<Reporter> {
  const env = process.env;
  const logStream = session.json ? process.stderr : process.stdout;
  const terminal =
    !session.json && canAnimate(process.stdout, env)
      ? new (await import('../report/tty.js')).TtyReporter(process.stdout, useColour(env, true))
      : new (await import('../report/plain.js')).PlainReporter(logStream, useColour(env, Boolean(logStream.isTTY)));
  const reporter = env.GITLAB_CI === 'true' ? new (await import('../report/gitlab.js')).GitlabCiReporter(terminal, logStream) : terminal;
  if (!session.githubActions) return reporter;
  const [{ GithubActionsReporter }, { manifestLocator }] = await Promise.all([import('../report/github.js'), import('../manifests/locate.js')]);
  // Annotations are read from either stream; stderr keeps stdout clean for --output json.
  // Annotations point at the manifest line of the failing object, relative to the checkout.
  const locate = manifests ? manifestLocator(manifests.filenames, manifests.recursive, env.GITHUB_WORKSPACE || process.cwd()) : undefined;
  return new GithubActionsReporter(reporter, process.stderr, env.GITHUB_STEP_SUMMARY || undefined, undefined, locate);
}

async function main(argv: string[]): Promise<void> {
  keepWorkingWithoutReaders();
  const session: Session = {
    json: wantsJsonOutput(argv.slice(2)),
    githubActions: process.env.GITHUB_ACTIONS === 'true',
    redactor: new Redactor(),
    cancel: new AbortController(),
  };
  handleInterrupts(session);
  try {
    await buildProgram(session).parseAsync(argv);
  } catch (error) {
    process.exitCode = await fail(session, error);
  }
}

await main(process.argv);
