// kguard's command line as a commander program: commands, flags, help. It parses and hands the
// strings to the handlers main.ts passes in; building it starts nothing, so tests (the flag
// table against kubectl's, completion) read it without running a command.
import { Argument, Command, Option } from 'commander';
import { InputError } from '../errors.js';
import { formatDuration } from '../duration.js';
import { DEFAULTS } from '../model/options.js';
import type { Flag } from '../api/flag-kinds.js';
import { APPLY_FLAGS } from '../api/flags.js';
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

/** A repeatable flag's values, in order. */
function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** The commander options of flag rows (api/flags.ts), in the rows' order. */
function flagOptions(command: Command, rows: readonly Flag[]): Command {
  for (const row of rows) {
    const option = new Option(row.syntax, row.help);
    if (row.repeatable) option.default(row.default).argParser(collect);
    else if (row.default !== undefined) option.default(row.default);
    if (row.choices) option.choices(row.choices);
    if (row.hidden) option.hideHelp();
    command.addOption(option);
  }
  return command;
}

/** -v and -q, on every command that runs kubectl. */
function verbosityOptions(command: Command): Command {
  return flagOptions(
    command,
    APPLY_FLAGS.filter((row) => row.name === 'verbose' || row.name === 'quiet'),
  );
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
  applyCommand(program, name, words, handlers);
  runCommands(program, handlers);
  historyCommands(program, handlers);
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

/** `kguard apply`: the flag table's options, kubectl's own, and the action. */
function applyCommand(program: Command, name: string, words: readonly string[], handlers: ProgramHandlers): void {
  const rollbackFlags: string[] = [];
  const apply = flagOptions(program.command('apply'), APPLY_FLAGS)
    .description('apply manifests, watch every changed workload, restore everything the apply changed on failure')
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
  withKubectlOptions(apply, handlers);
  // Both flags write `rollback`; seeing each one lets a contradiction be refused (options.ts).
  apply.on('option:rollback', (mode: string) => rollbackFlags.push(`--rollback ${mode}`));
  apply.on('option:no-rollback', () => rollbackFlags.push('--no-rollback'));
}

/** `kguard rollback`, `status`, `unlock` and `forget`: the runs the cluster's journals and Leases show. */
function runCommands(program: Command, handlers: ProgramHandlers): void {
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
}

/** `kguard history` and `undo`: the successful runs kept in the cluster. */
function historyCommands(program: Command, handlers: ProgramHandlers): void {
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
}
