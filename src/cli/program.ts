// kguard's command line as a commander program: commands, flags, help. It parses and hands the
// strings to the handlers main.ts passes in; building it starts nothing, so tests (the flag
// table against kubectl's, completion) read it without running a command.
import { Argument, Command, Option } from 'commander';
import { InputError } from '../errors.js';
import { formatDuration } from '../duration.js';
import { DEFAULTS } from '../model/options.js';
import { kguardVersion, runtimeVersion } from '../version.js';
import { applyHelp } from './help.js';
import type { HistoryCommandOptions } from './commands/history-commands.js';
import type { JournalCommandOptions, RunCommandName } from './commands/journal-commands.js';
import { booleanKubectlFlags, kubectlOptions } from './kubectl-options.js';
import type { RawApplyOptions } from './options.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export interface ProgramHandlers {
  apply(raw: RawApplyOptions, passThrough: string[]): Promise<void>;
  journal(name: RunCommandName, run: string | undefined, raw: JournalCommandOptions): Promise<void>;
  history(name: 'history' | 'undo', run: string | undefined, raw: HistoryCommandOptions): Promise<void>;
  completion(shell: Shell, program: Command): Promise<void>;
  /** A native kubectl flag that commander parsed itself (in a group of short flags: -Rl app=web). */
  kubectlFlag(arg: string): void;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** -v and -q, on every command that runs kubectl. */
function verbosityOptions(command: Command): Command {
  return command
    .option(
      '-v, --verbose',
      "also print every kubectl command kguard runs, with its duration and exit (credentials masked); kubectl's own -v goes after --",
    )
    .option('-q, --quiet', 'print only the verdict lines and what a person must do');
}

function withKubectlOptions(command: Command, handlers: ProgramHandlers): Command {
  for (const option of kubectlOptions(command.name(), handlers.kubectlFlag)) command.addOption(option);
  for (const long of booleanKubectlFlags(command.name()))
    command.on(`option:${long.slice(2)}`, () => handlers.kubectlFlag(long));
  return command;
}

export function buildProgram(name: string, words: readonly string[], handlers: ProgramHandlers): Command {
  const program = new Command(name)
    .description(
      'kubectl apply that watches the new rollout, explains failing pods and rolls back to the exact prior revision',
    )
    .version(kguardVersion(), '-V, --version')
    .addHelpText('after', () => applyHelp(name))
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
    .option(
      '--contexts <names>',
      'a fleet: apply to these kubeconfig contexts (comma-separated), one wave each, in order; a wave must be healthy before the next starts',
    )
    .option(
      '--canary <context>',
      'a fleet: apply to this context first, then to the other --contexts in one parallel wave',
    )
    .option(
      '--fleet <file>',
      "a fleet from a file (YAML or JSON, schema/fleet.schema.json): waves of contexts, each wave's parallel and bake, per-context namespace, kubeconfig and kubectl flags",
    )
    .addOption(
      new Option(
        '--fleet-rollback <mode>',
        'when a cluster of a fleet fails: restore every cluster this run changed (all), only the failed one (failed), or none',
      )
        .choices(['all', 'failed', 'none'])
        .default('all'),
    )
    .option('--kubeconfig <path>', 'kubeconfig file to use')
    .option('--server-side', 'use server-side apply')
    .option(
      '--dry-run [strategy]',
      'preview: say what would be created, changed or left alone; nothing changes (server, client)',
    )
    .option(
      '--keep-created',
      'when restoring, keep objects this apply created (they are reported with their delete command)',
    )
    .option('--field-manager <name>', 'field manager name for the apply')
    .option(
      '--no-journal',
      'do not journal the run in the cluster nor lease its objects (a killed run cannot be rolled back by kguard rollback)',
    )
    .option(
      '--lock-timeout <duration>',
      'how long to wait for objects another kguard run holds',
      formatDuration(DEFAULTS.lockTimeoutMs),
    )
    .option(
      '--journal-namespace <namespace>',
      "where cluster-scoped objects are journalled and leased (each namespace's objects are journalled in it)",
      DEFAULTS.journalNamespace,
    )
    .option(
      '--timeout <duration>',
      "how long each rollout may take to become healthy (kubectl's own --timeout goes after --)",
      formatDuration(DEFAULTS.timeoutMs),
    )
    .option('--rollback-timeout <duration>', 'how long a rollback may take (default: --timeout)')
    .option(
      '--poll-interval <duration>',
      'longest time between two looks at a rollout (watching), or between polls (--poll)',
      formatDuration(DEFAULTS.pollIntervalMs),
    )
    .option('--poll', 'poll the rollouts every --poll-interval instead of watching them')
    .option(
      '--verify <command>',
      'after every changed workload is healthy, run this shell command; any exit but 0 restores the apply (repeatable)',
      collect,
      [],
    )
    .option(
      '--verify-job <file>',
      'after the rollout, run this Job in the cluster (like helm test); failed or late restores the apply (repeatable)',
      collect,
      [],
    )
    .option(
      '--verify-timeout <duration>',
      'how long each --verify command or --verify-job may take',
      formatDuration(DEFAULTS.verifyTimeoutMs),
    )
    .option('--keep-verify', 'keep the --verify-job Jobs instead of deleting them')
    .option(
      '--bake <duration>',
      'after healthy and verified, keep watching this long: a restart, a pod leaving Ready or an eviction restores the apply',
    )
    .option('--verify-interval <duration>', 'during --bake, run the --verify commands again this often')
    .addOption(new Option('--settle <duration>', 'the old name of --bake').hideHelp())
    .option(
      '--history <n>',
      'keep the records of this many successful runs per namespace, for kguard history and undo (0 keeps none)',
      String(DEFAULTS.history),
    )
    .option(
      '--concurrency <n>',
      'how many kubectl processes may run at once (watch streams aside)',
      String(DEFAULTS.concurrency),
    )
    .option(
      '--request-timeout <duration>',
      "kubectl's deadline for each API request (kubectl --request-timeout)",
      formatDuration(DEFAULTS.requestTimeoutMs),
    )
    .option(
      '--readiness-grace <duration>',
      "a new pod that runs but is never Ready (its readiness probe fails) fails the rollout after this long, with the probe's last failure",
      formatDuration(DEFAULTS.readinessGraceMs),
    )
    .option(
      '--status-grace <duration>',
      "a custom resource whose kind has a status subresource waits this long for its controller's first status, then kstatus judges it without one",
      formatDuration(DEFAULTS.statusGraceMs),
    )
    .addOption(
      new Option(
        '--image-check <mode>',
        "before the apply, ask each changed image's registry (with the pods' pull credentials) whether it exists: a missing one refuses the run, an unreachable registry is said and passed",
      )
        .choices(['on', 'off'])
        .default(DEFAULTS.imageCheck),
    )
    .option(
      '--insecure-registry <host>',
      'ask this registry (host[:port]) over plain HTTP, as loopback registries are (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--health-rules <file>',
      'health rules for custom resources (JSON or YAML, schema/health-rules.schema.json), over the built-in table',
    )
    .option(
      '--analysis <file>',
      'Prometheus queries that judge the release during --bake (YAML or JSON, schema/analysis.schema.json)',
    )
    .option(
      '--log-lines <n>',
      "how many of a failing container's last lines to print (the JSON report has up to 50)",
      String(DEFAULTS.logLines),
    )
    .addOption(
      new Option(
        '--rollback <mode>',
        'on failure restore every object the apply changed (all), only failing ones (failed), or none',
      )
        .choices(['all', 'failed', 'none'])
        .default('all'),
    )
    .option('--no-rollback', 'never roll back (same as --rollback none)')
    .addOption(
      new Option('-o, --output <format>', 'text, or json: one report on stdout, logs on stderr').default('text'),
    )
    .option('--junit <file>', 'also write a JUnit XML report to FILE: one test case per object of the apply')
    .option(
      '--dotenv <file>',
      'also write KGUARD_OUTCOME and KGUARD_EXIT_CODE to FILE (GitLab artifacts:reports:dotenv); KGUARD_OUTCOME=running while the run runs',
    )
    .option(
      '--run-label <text>',
      "a name for this run from the CD tool that runs it (PipeCD's $SR_DEPLOYMENT_ID, a CI run id): kept in the journal, history, events and report; kguard rollback --run-label TEXT finds the run",
    )
    .option(
      '--events <file|->',
      'write every event as one line of JSON as it happens (NDJSON, schema/events.schema.json); - writes them to stdout and the log to stderr',
    )
    .option(
      '--diff',
      'preview with kubectl diff for every object the apply would create or change; nothing changes. exits 0 when nothing would change, 1 when something would, 2 or more on an error (input, usage, cluster), as kubectl diff',
    )
    .option('--confirm', 'on a terminal: preview with --diff, then ask before applying')
    .option('-y, --yes', 'answer yes to --confirm (apply without asking)')
    .argument('[kubectl-args...]', 'after --: more kubectl apply flags, passed to kubectl apply')
    .addHelpText('after', () => applyHelp(name))
    .action(async (kubectlArgs: string[], raw: RawApplyOptions) => {
      if (kubectlArgs.length > 0 && !words.includes('--')) {
        throw new InputError(
          `unexpected argument ${JSON.stringify(kubectlArgs[0])}: name manifests with -f, and put kubectl apply flags after --.`,
        );
      }
      await handlers.apply({ ...raw, rollbackFlags }, kubectlArgs);
    });
  verbosityOptions(apply);
  withKubectlOptions(apply, handlers);
  // Both flags write `rollback`; seeing each one lets a contradiction be refused (options.ts).
  apply.on('option:rollback', (mode: string) => rollbackFlags.push(`--rollback ${mode}`));
  apply.on('option:no-rollback', () => rollbackFlags.push('--no-rollback'));
  const journalOptions = (command: Command) =>
    withKubectlOptions(
      verbosityOptions(
        command
          .option(
            '-n, --namespace <namespace>',
            'look for journals and Leases in this namespace only (default: all namespaces)',
          )
          .option('--context <name>', 'kubeconfig context to use')
          .option('--kubeconfig <path>', 'kubeconfig file to use')
          .addOption(new Option('-o, --output <format>', 'text, or json').default('text')),
      ),
      handlers,
    );
  const runAction = (command: RunCommandName) => (run: string | undefined, raw: JournalCommandOptions) =>
    handlers.journal(command, run, raw);
  journalOptions(
    program
      .command('rollback')
      .description(
        "restore a run that could not finish itself, from its journal in the cluster (someone else's change still wins)",
      )
      .argument(
        '[run]',
        'the run to restore (kguard status lists them); default: the only unfinished run that is not running',
      ),
  )
    .option('--rollback-timeout <duration>', 'how long the restore may take', formatDuration(DEFAULTS.timeoutMs))
    .option(
      '--force',
      'restore the run even while it runs, without asking it to stop (by default a live run is asked, through its Lease, to restore and exit 130)',
    )
    .option(
      '--run-label <text>',
      'the run started with this --run-label (nothing to do, exit 0, when none is unfinished)',
    )
    .option(
      '--contexts <names>',
      'a fleet run (RUN is its fleet-… id): restore its run in each of these contexts (comma-separated)',
    )
    .action(runAction('rollback'));
  journalOptions(
    program
      .command('status')
      .description('list kguard runs in the cluster: running, dead or finished, with what is left to do'),
  )
    .option('--contexts <names>', "these contexts' runs (comma-separated): each fleet run with one line per cluster")
    .action(async (raw: JournalCommandOptions) => runAction('status')(undefined, raw));
  const byRunId = (command: 'unlock' | 'forget', description: string, force: string) =>
    journalOptions(
      program
        .command(command)
        .description(description)
        .argument('<run>', `the run to ${command} (kguard status lists them)`),
    )
      .option('--force', force)
      .action(runAction(command));
  byRunId(
    'unlock',
    'release the Leases of a run that died before it wrote its journal, so other runs may change its objects',
    'release them even if the run looks alive or left a journal',
  );
  byRunId(
    'forget',
    'dismiss a run on purpose: remove its journal and Leases and leave its objects as they are',
    'forget it even if it looks alive',
  );
  const historyAction = (command: 'history' | 'undo') => (run: string | undefined, raw: HistoryCommandOptions) =>
    handlers.history(command, run, raw);
  const historyOptions = (command: Command) =>
    withKubectlOptions(
      verbosityOptions(
        command
          .option(
            '-n, --namespace <namespace>',
            'look for history records in this namespace only (default: all namespaces)',
          )
          .option('--context <name>', 'kubeconfig context to use')
          .option('--kubeconfig <path>', 'kubeconfig file to use')
          .addOption(new Option('-o, --output <format>', 'text, or json').default('text')),
      ),
      handlers,
    );
  historyOptions(
    program
      .command('history')
      .description('list the successful runs kept in the cluster (--history): when, who, what they changed'),
  ).action(async (raw: HistoryCommandOptions) => historyAction('history')(undefined, raw));
  historyOptions(
    program
      .command('undo')
      .description(
        "put back the state from before a successful run, from its history record (someone else's change since still wins)",
      )
      .argument('[run]', 'the run to undo (kguard history lists them); default: the newest kept'),
  )
    .option('--dry-run', 'say what would change, with the differences kubectl diff style; change nothing')
    .option(
      '--rollback-timeout <duration>',
      'how long the restore and the restored workloads may take',
      formatDuration(DEFAULTS.timeoutMs),
    )
    .action(historyAction('undo'));
  program
    .command('completion')
    .description(
      'print the shell completion script: source <(kguard completion bash), or kguard completion fish | source',
    )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: Shell) => handlers.completion(shell, program));
  program
    .command('version')
    .description("print kguard's version and the runtime it runs on (--version: the version alone)")
    .action(() => {
      process.stdout.write(`${kguardVersion()} (${runtimeVersion()})\n`);
    });
  return program;
}
