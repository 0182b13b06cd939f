// Command-line values → ApplyOptions. Pure, so every rule here is tested without a process.
import { ExitCode, InputError } from '../errors.js';
import { type CliValues, fleetFromCli, typedFromCli } from '../api/flag-values.js';
import { resolveApplyOptions } from '../api/options.js';
import { fleetWaves, parseFleetRollback, planWaves } from '../run/fleet/fleet.js';
import type { FleetPlan } from '../model/fleet.js';
import type { GuardedApplyOptions } from '../model/options.js';
import type { HealthRules } from '../model/health-rules.js';
import type { AnalysisConfig } from '../model/analysis.js';

/**
 * The command line's values as commander gives them, one per flag of api/flags.ts, and what the
 * CLI entry adds: the files it read for --fleet, --health-rules and --analysis, and every --rollback and
 * --no-rollback as typed, in order (both write `rollback`, so commander alone would let the last
 * one win; a contradiction must be refused instead).
 */
export type RawApplyOptions = CliValues & {
  fleetFile?: Pick<FleetPlan, 'waves' | 'overrides' | 'source'>;
  healthRulesFile?: HealthRules;
  analysisFile?: AnalysisConfig;
  rollbackFlags?: string[];
};

export { runLabelOf } from '../api/flag-kinds.js';

export type OutputMode = 'text' | 'json';

/** --no-rollback and --rollback all|failed say opposite things: refuse rather than let the last one win. */
export function checkRollbackFlags(flags: readonly string[]): void {
  const modes = new Set(flags.map((flag) => (flag === '--no-rollback' ? 'none' : flag.replace(/^--rollback[ =]/, ''))));
  if (modes.size > 1) {
    throw new InputError(
      `${[...new Set(flags)].join(' and ')} contradict each other; give one of --rollback all|failed|none (--no-rollback is --rollback none).`,
    );
  }
}

export function parseOutputMode(value: string): OutputMode {
  if (value === 'text' || value === 'json') return value;
  throw new InputError(`--output ${JSON.stringify(value)} is not supported; use text or json.`);
}

/** The command line's strings, parsed at the edge by their rows (api/flags.ts), into the options the library builds too. */
export function toApplyOptions(raw: RawApplyOptions, passThroughArgs: readonly string[]): GuardedApplyOptions {
  checkRollbackFlags(raw.rollbackFlags ?? []);
  const { filenames = [], insecureRegistries, ...typed } = typedFromCli(raw);
  return resolveApplyOptions({
    ...typed,
    filenames,
    ...(insecureRegistries?.length ? { insecureRegistries } : {}),
    healthRules: raw.healthRules === undefined ? undefined : raw.healthRulesFile,
    analysis: raw.analysis === undefined ? undefined : raw.analysisFile,
    kubectlArgs: passThroughArgs,
  });
}

/**
 * Whether the command line asks for --output json, read before commander parses it: a usage
 * error must still answer in JSON. Only kguard's own flags count (before `--`); the last wins, as
 * for commander.
 */
export function wantsJsonOutput(argv: readonly string[]): boolean {
  let json = false;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--') break;
    const inline = /^(?:--output=|-o=?)(.+)$/.exec(arg)?.[1];
    if (inline !== undefined) json = inline === 'json';
    else if (arg === '-o' || arg === '--output') json = argv[index + 1] === 'json';
  }
  return json;
}

/** `kguard apply … --diff` (before `--`): a preview whose exit codes are `kubectl diff`'s. */
export function wantsDiff(argv: readonly string[]): boolean {
  if (argv[0] !== 'apply') return false;
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return own.includes('--diff');
}

/**
 * `kubectl diff` exits 0 for no differences, 1 for differences and more than 1 for an error
 * (kubectl/pkg/cmd/diff/diff.go). kguard's input and usage errors are 1 elsewhere; with --diff
 * they are 2, so a script can tell "would change" from "could not tell". Other codes stand.
 */
export function diffPreviewExitCode(exitCode: number): number {
  return exitCode === ExitCode.InputError ? ExitCode.ClusterError : exitCode;
}

/** --fleet FILE, or --contexts and --canary, as the fleet's waves; undefined for a single-cluster apply. */
export function toFleetPlan(
  raw: Pick<
    RawApplyOptions,
    'contexts' | 'canary' | 'fleetRollback' | 'fleet' | 'fleetFile' | 'confirm' | 'diff' | 'context'
  >,
): FleetPlan | undefined {
  if (raw.contexts === undefined && raw.canary === undefined && raw.fleet === undefined) {
    if (raw.fleetRollback !== undefined && raw.fleetRollback !== 'all')
      throw new InputError('--fleet-rollback is for a fleet: give --contexts (and --canary) or --fleet FILE.');
    return undefined;
  }
  if (raw.fleet !== undefined && (raw.contexts !== undefined || raw.canary !== undefined)) {
    throw new InputError(
      `--fleet ${raw.fleet} names the fleet's contexts, and so do --contexts and --canary: give one of them.`,
    );
  }
  if (raw.confirm || raw.diff)
    throw new InputError(
      '--confirm and --diff preview one cluster; a fleet (--contexts, --canary, --fleet) does not take them yet. Preview each context with --context.',
    );
  const fleet = fleetFromCli(raw);
  const rollback = parseFleetRollback(fleet.fleetRollback ?? 'all');
  if (raw.fleet !== undefined) {
    if (raw.fleetFile === undefined) throw new Error('the CLI entry parses --fleet FILE before toFleetPlan');
    return { ...raw.fleetFile, rollback };
  }
  return { waves: planWaves(fleetWaves(fleet.contexts ?? [], fleet.canary)), rollback };
}
