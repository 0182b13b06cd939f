// The CLI entry: wires options, kubectl, the clock and a reporter together, and is the only place
// that, with exits.ts, turns results and errors into exit codes and exits.
// Only what parsing the command line needs is loaded up front: `--version`, `--help` and a bad
// command line never load the pipeline, kubectl's adapter, the reporters, ora or chalk; each
// command imports what it uses when it runs.
import { isChangeKind } from '../objects/compare.js';
import { CommanderError, type Command } from 'commander';
import { InputError, KubectlError } from '../errors.js';
import { credentialValues } from '../kubectl/passthrough.js';
import type { ManifestInput } from '../model/options.js';
import type { Reporter } from '../model/events.js';
import { Redactor } from '../report/safety/redact.js';
import { sanitizeDeep, sanitizeText } from '../report/safety/sanitize.js';
import {
  canAnimate,
  missingKubeconfig,
  programName,
  readStdin,
  unusableTempDirectory,
  useColour,
} from '../api/environment.js';
import {
  parseOutputMode,
  toApplyOptions,
  toFleetPlan,
  wantsDiff,
  wantsJsonOutput,
  type RawApplyOptions,
} from './options.js';
import type { FleetPlan } from '../model/fleet.js';
import type { GuardedApplyOptions } from '../model/options.js';
import { explainUnknownOption, kubectlHabits, takeKubectlFlags } from './kubectl-options.js';
import { buildProgram } from './program.js';
import { dotenvWhileRunning, workspace, writeDotenv, writeFleetJunit, writeJunit } from './ci-files.js';
import { cannotWrite } from './events-output.js';
import type { Session } from './session.js';
import { readAnalysis, readFleetFile, readHealthRules } from '../api/input-files.js';
import { fail, handleInterrupts } from './exits.js';
import { setHeapPolicy } from './heap.js';

/** The command line's words after the program, with the native kubectl flags taken out (kubectl-options.ts). */
function buildCli(
  session: Session,
  argv: readonly string[],
): { program: Command; words: string[]; explain(message: string): string } {
  const name = programName(argv[1]);
  // kubectl's `-o=json`, `-n=shop`, `-v=4` and `-v6`, read as kubectl reads them (kubectl-options.ts).
  const habits = kubectlHabits(argv.slice(2));
  for (const note of habits.notes) process.stderr.write(`kguard: note: ${note}\n`);
  const typed = habits.words;
  // A --token typed anywhere on the line is never printed, usage errors included.
  for (const value of credentialValues(typed)) session.redactor.addValue(value);
  session.diffPreview = wantsDiff(typed);
  const { rest, kubectlArgs } = takeKubectlFlags(typed);
  session.kubectlFlags = kubectlArgs;
  const program = buildProgram(name, typed, {
    apply: async (raw, passThrough) => {
      process.exitCode = await runCommand(raw, passThrough, session);
    },
    journal: async (command, run, raw) => {
      const { journalCommand } = await import('./commands/journal-commands.js');
      setVerbosity(session, raw);
      process.exitCode = await journalCommand(command, run, raw, { session, makeReporter, fail });
    },
    history: async (command, run, raw) => {
      const { historyCommand } = await import('./commands/history-commands.js');
      setVerbosity(session, raw);
      process.exitCode = await historyCommand(command, run, raw, { session, makeReporter, fail });
    },
    completion: async (shell, root) => {
      const { completionScript } = await import('./completion/completion.js');
      process.stdout.write(completionScript(root, shell));
    },
    kubectlFlag: (arg) => session.kubectlFlags.push(arg),
  });
  const apply = program.commands.find((command) => command.name() === 'apply')!;
  // An unknown option of apply is most often a kubectl apply flag: say where it goes, on the
  // terminal (commander prints it) and in the JSON report alike.
  const explain = (message: string) => sanitizeText(explainUsage(message, name, typed, apply), session.redactor);
  apply.configureOutput({ outputError: (text, write) => write(`${explain(text.trim())}\n`) });
  return { program, words: rest, explain };
}

/** Commander's usage error, with the corrected command when it is an unknown option of apply. */
function explainUsage(message: string, name: string, typed: readonly string[], apply: Command): string {
  if (typed[0] !== 'apply' || !/unknown option/.test(message)) return message;
  const known = (flag: string) => {
    const option = apply.options.find((candidate) => candidate.short === flag || candidate.long === flag);
    return option ? { takesValue: option.required || option.optional } : undefined;
  };
  return `error: ${explainUnknownOption(message.replace(/^error: /, ''), name, typed, known)}`;
}

function setVerbosity(session: Session, raw: { verbose?: boolean; quiet?: boolean }): void {
  if (raw.verbose && raw.quiet)
    throw new InputError('-v (--verbose) and -q (--quiet) contradict each other; give one of them.');
  session.verbosity = raw.verbose ? 'verbose' : raw.quiet ? 'quiet' : 'normal';
}

async function runCommand(raw: RawApplyOptions, passThrough: string[], session: Session): Promise<number> {
  // What the early server dry run needs is loaded while the command line is checked.
  const earlyParts = raw.confirm || raw.fleet !== undefined ? undefined : loadEarlyParts();
  earlyParts?.catch(() => undefined);
  try {
    const outputMode = parseOutputMode(raw.output ?? 'text');
    session.json = outputMode === 'json';
    session.logToStderr = session.json;
    session.junitFile = raw.junit;
    session.dotenvFile = raw.dotenv;
    await writeDotenv(session, 'running');
    setVerbosity(session, raw);
    if (raw.events !== undefined) {
      const [{ openEventLines }, { EventStreamReporter }] = await Promise.all([
        import('./events-output.js'),
        import('../report/events.js'),
      ]);
      const lines = openEventLines(raw.events, session.json);
      session.events = new EventStreamReporter(lines.write);
      session.logToStderr = session.json || lines.toStdout;
    }
    if (raw.healthRules !== undefined) raw.healthRulesFile = await readHealthRules(raw.healthRules);
    if (raw.analysis !== undefined) raw.analysisFile = await readAnalysis(raw.analysis, session.redactor);
    if (raw.fleet !== undefined) raw.fleetFile = await readFleetFile(raw.fleet);
    const options = toApplyOptions(raw, [...session.kubectlFlags, ...passThrough]);
    // A big apply keeps V8's heap small (cli/heap.ts); a small one starts faster without.
    await setHeapPolicy(options.manifests);
    const plan = toFleetPlan(raw);
    session.manifests = options.manifests;
    if (raw.confirm && !raw.yes && !(await confirmed(options, session))) {
      throw new InputError('not applied: the answer was not yes. Nothing was changed.');
    }
    // Said before the pipeline is even loaded (guardedApply checks it again for the library; a
    // fleet checks each cluster's, which its fleet file may give).
    const missing = plan ? undefined : missingKubeconfig(options.connectionArgs, process.env);
    if (missing) throw new InputError(missing);
    session.finished = false;
    if (plan) return await runFleet(options, plan, session);
    // The run's target, channel and server dry run start now, while the pipeline's modules load (kubectl/early-start.ts).
    const early = earlyParts && (await startEarly(options, session, await earlyParts));
    const { report, exitCode } = await (async () => {
      const { guardedApply } = await import('../api/apply.js');
      return guardedApply(options, {
        ...(await runDeps(options, session)),
        onRecorder: (recorder) => (session.recorder = recorder),
        onResult: () => (session.finished = true),
        early,
      });
    })().finally(() => early?.stop());
    if (session.json) await writeReport(report);
    await Promise.all([writeJunit(session, report), writeDotenv(session, report.outcome, exitCode)]);
    return exitCode;
  } catch (error) {
    session.recorder?.close();
    return fail(session, error);
  }
}

/** The modules of the early start, execa's included: once they are loaded it spawns at once. */
async function loadEarlyParts() {
  const [early, exec, parse, channel] = await Promise.all([
    import('../kubectl/early-start.js'),
    import('../kubectl/process/exec.js').then(async (exec) => {
      await exec.readyToSpawn();
      return exec;
    }),
    import('../kubectl/output/parse.js'),
    import('../kubectl/channel/api-channel.js'),
  ]);
  return { early, exec, parse, channel };
}

/** The early start of an apply of local files (kubectl/early-start.ts); undefined when the run must start its own. */
async function startEarly(
  options: GuardedApplyOptions,
  session: Session,
  { early, exec, parse, channel }: Awaited<ReturnType<typeof loadEarlyParts>>,
) {
  if (options.dryRun || options.manifests.kustomize !== undefined) return undefined;
  const { applyRequest, requestTimeoutOf } = parse;
  return early.startEarly(
    {
      binary: kubectlBinary(),
      connectionArgs: options.connectionArgs,
      request: applyRequest(options, options.manifests),
      requestTimeout: requestTimeoutOf(options.requestTimeoutMs),
      env: process.env,
      signal: session.cancel.signal,
    },
    exec.execProcess,
    () => channel.apiChannel(exec.execProcess, exec.streamProcess, kubectlBinary(), exec.backgroundProcess),
  );
}

const kubectlBinary = () => process.env.KGUARD_KUBECTL || 'kubectl';

/** What an apply and a fleet take from the session: its redactor, reporter, cancel signal and kubectl. */
async function runDeps(options: GuardedApplyOptions, session: Session) {
  return {
    redactor: session.redactor,
    reporter: await makeReporter(session, options.manifests),
    signal: session.cancel.signal,
    readStdin,
    kubectlBinary: kubectlBinary(),
    env: process.env,
    traceKubectl: session.verbosity === 'verbose',
  };
}

/** A fleet: each cluster's run reports as a single run does; then one line per cluster, and the fleet's report. */
async function runFleet(options: GuardedApplyOptions, plan: FleetPlan, session: Session): Promise<number> {
  const [{ guardedFleetApply }, { fleetLines }] = await Promise.all([
    import('../api/fleet.js'),
    import('../report/fleet.js'),
  ]);
  const { report, exitCode } = await guardedFleetApply(options, plan, await runDeps(options, session));
  session.finished = true;
  // The reporter is closed: the fleet's closing lines are the CLI's, as an error's are.
  const log = session.logToStderr ? process.stderr : process.stdout;
  log.write(
    `${fleetLines(report)
      .map((line) => sanitizeText(line, session.redactor))
      .join('\n')}\n`,
  );
  if (session.json) await writeReport(sanitizeDeep(report, session.redactor));
  await Promise.all([writeFleetJunit(session, report), writeDotenv(session, report.outcome, exitCode)]);
  return exitCode;
}

/**
 * --confirm: the preview (a server dry run with kubectl diff) on the terminal, then the question.
 * A preview in which nothing would change needs no answer.
 */
async function confirmed(options: GuardedApplyOptions, session: Session): Promise<boolean> {
  const output = session.logToStderr ? process.stderr : process.stdout;
  const [{ askYesNo, requireTerminal }, { guardedApply }] = await Promise.all([
    import('./confirm.js'),
    import('../api/apply.js'),
  ]);
  requireTerminal(Boolean(process.stdin.isTTY), Boolean(output.isTTY));
  const { report } = await guardedApply(
    { ...options, dryRun: 'server', diff: true },
    {
      redactor: session.redactor,
      reporter: await makeReporter({ ...session, githubActions: false, events: undefined }, options.manifests),
      signal: session.cancel.signal,
      readStdin,
      kubectlBinary: kubectlBinary(),
      env: process.env,
      onRecorder: (recorder) => (session.recorder = recorder),
      quietEnd: true,
    },
  );
  if (report.objects.every((object) => !isChangeKind(object.change))) return true;
  return askYesNo('Apply these changes? [y/N] ', process.stdin, output);
}

/**
 * A reader that goes away (`kguard apply -f x | head -2`) makes the next write fail with EPIPE,
 * and an unhandled stream error would end kguard in the middle of a watch or a restore. The
 * output is lost; the run, the restore and the exit code are not.
 */
function keepWorkingWithoutReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

/**
 * The JSON report on stdout, waited for: a write that fails otherwise than for a reader gone
 * (stdout on a full disk: ENOSPC) loses the report, and says so on stderr.
 */
function writeReport(report: unknown): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`, (error?: NodeJS.ErrnoException | null) => {
      if (error && error.code !== 'EPIPE')
        process.stderr.write(`kguard: ${cannotWrite('the JSON report to stdout', error)}\n`);
      resolve();
    });
  });
}

/** The reporter for this terminal or CI system; only its own module is loaded (ora for a terminal). */
async function makeReporter(session: Session, manifests?: ManifestInput): Promise<Reporter> {
  const env = process.env;
  const logStream = session.json || session.logToStderr ? process.stderr : process.stdout;
  const [{ VerbosityFilter }, { systemClock }, reporterModule] = await Promise.all([
    import('../report/verbosity.js'),
    import('../clock.js'),
    logStream === process.stdout && canAnimate(process.stdout, env)
      ? import('../report/tty.js')
      : import('../report/plain.js'),
  ]);
  const screen =
    'TtyReporter' in reporterModule
      ? new reporterModule.TtyReporter(process.stdout, useColour(env, true))
      : reporterModule.plainLines(logStream, useColour(env, Boolean(logStream.isTTY)), systemClock);
  const terminal = session.verbosity === 'normal' ? screen : new VerbosityFilter(screen, session.verbosity);
  const reporter =
    env.GITLAB_CI === 'true'
      ? new (await import('../report/ci/gitlab.js')).GitlabCiReporter(terminal, logStream)
      : terminal;
  const ci = session.githubActions ? await githubReporter(reporter, manifests) : reporter;
  const { alongside } = await import('../report/events.js');
  const withEvents = session.events ? alongside(ci, session.events) : ci;
  return session.dotenvFile ? alongside(withEvents, dotenvWhileRunning(session)) : withEvents;
}

async function githubReporter(reporter: Reporter, manifests: ManifestInput | undefined): Promise<Reporter> {
  const env = process.env;
  const [{ GithubActionsReporter }, { manifestLocator }] = await Promise.all([
    import('../report/ci/github.js'),
    import('../manifests/locate.js'),
  ]);
  // Annotations are read from either stream; stderr keeps stdout clean for --output json.
  // Annotations point at the manifest line of the failing object, relative to the checkout.
  const locate = manifests ? manifestLocator(manifests.filenames, manifests.recursive, workspace()) : undefined;
  return new GithubActionsReporter(reporter, process.stderr, env.GITHUB_STEP_SUMMARY || undefined, undefined, locate);
}

/** Candidates for the words typed after `kubectl rollout-guard`; namespaces and contexts from kubectl, which may take 5 s at most. */
async function printCompletions(program: Command, words: string[]): Promise<void> {
  const [{ completeWords, completionOutput }, { completionSpec, KUBECTL_VALUES }, { execFileSync }] = await Promise.all(
    [import('./completion/complete-words.js'), import('./completion/completion-spec.js'), import('node:child_process')],
  );
  const list = (kind: 'namespaces' | 'contexts', contextArgs: string[]) => {
    try {
      const command = KUBECTL_VALUES[kind](contextArgs.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' '));
      return execFileSync('sh', ['-c', command], {
        encoding: 'utf8',
        timeout: 5000,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .split('\n')
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  process.stdout.write(completionOutput(completeWords(completionSpec(program), words, list)));
}

async function main(argv: string[]): Promise<void> {
  keepWorkingWithoutReaders();
  const session: Session = {
    json: wantsJsonOutput(argv.slice(2)),
    githubActions: process.env.GITHUB_ACTIONS === 'true',
    redactor: new Redactor(),
    cancel: new AbortController(),
    kubectlFlags: [],
    verbosity: 'normal',
  };
  // kubectl_complete-rollout_guard: `kubectl rollout-guard <TAB>` asks for candidates, cobra's way.
  if (argv[2] === '__complete') {
    await printCompletions(buildCli(session, [argv[0] ?? 'node', argv[1] ?? 'kguard']).program, argv.slice(3));
    return;
  }
  handleInterrupts(session);
  let explain = (message: string) => message;
  try {
    const cli = buildCli(session, argv);
    explain = cli.explain;
    // A command that runs kubectl needs a temporary directory (its proxy's socket): said first, exit 2.
    const asksHelp = argv.length <= 2 || argv.slice(2).some((arg) => /^(-h|--help|-V|--version|help)$/.test(arg));
    const temp = asksHelp ? undefined : unusableTempDirectory();
    if (temp) throw new KubectlError(temp);
    await cli.program.parseAsync(cli.words, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && error.code === 'commander.unknownOption')
      error.message = explain(error.message);
    process.exitCode = await fail(session, error);
  }
}

await main(process.argv);
