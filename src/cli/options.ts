// Command-line values → ApplyOptions. Pure, so every rule here is tested without a process.
import { ExitCode, InputError } from '../errors.js';
import type { RollbackMode } from '../model/result.js';
import { resolveApplyOptions } from '../api/options.js';
import { parseDuration } from '../duration.js';
import { fleetWaves, parseFleetRollback, planWaves } from '../run/fleet/fleet.js';
import type { FleetPlan } from '../model/fleet.js';
import type { GuardedApplyOptions } from '../model/options.js';
import type { HealthRules } from '../model/health-rules.js';
import type { AnalysisConfig } from '../model/analysis.js';

export interface RawApplyOptions {
  filename: string[];
  context?: string;
  /** --contexts a,b,c: a fleet, one wave per context. */
  contexts?: string;
  /** --canary CONTEXT: a fleet's first wave of one. */
  canary?: string;
  fleetRollback?: string;
  /** --fleet FILE: the fleet's waves and per-context overrides. */
  fleet?: string;
  /** That file's waves and overrides, read and parsed by the CLI entry (this module stays pure). */
  fleetFile?: Pick<FleetPlan, 'waves' | 'overrides' | 'source'>;
  kubeconfig?: string;
  /** --dry-run: true for the bare flag, or the strategy. */
  dryRun?: boolean | string;
  keepCreated?: boolean;
  /** --no-journal sets it false. */
  journal?: boolean;
  lockTimeout?: string;
  journalNamespace?: string;
  recursive?: boolean;
  kustomize?: string;
  namespace?: string;
  serverSide?: boolean;
  fieldManager?: string;
  timeout: string;
  rollbackTimeout?: string;
  pollInterval: string;
  /** --poll: poll instead of watching. */
  poll?: boolean;
  /** The old name of --bake. */
  settle?: string;
  bake?: string;
  /** --verify CMD, repeatable. */
  verify?: string[];
  /** --verify-job FILE, repeatable. */
  verifyJob?: string[];
  verifyTimeout?: string;
  keepVerify?: boolean;
  verifyInterval?: string;
  /** --history N: successful runs kept per namespace. */
  history?: string;
  /** --log-lines: how many of a failing container's last lines to print. */
  logLines?: string;
  /** --concurrency: kubectl processes at once. */
  concurrency?: string;
  /** --request-timeout: kubectl's deadline for each API request. */
  requestTimeout?: string;
  /** --readiness-grace: how long a new pod may run without becoming Ready. */
  readinessGrace?: string;
  statusGrace?: string;
  /** --image-check on|off. */
  imageCheck?: string;
  /** --insecure-registry HOST, repeatable. */
  insecureRegistry?: string[];
  /** --health-rules FILE: health rules for custom resources. */
  healthRules?: string;
  /** That file's rules, read and parsed by the CLI entry (this module stays pure). */
  healthRulesFile?: HealthRules;
  /** --analysis FILE, and the analysis the CLI entry read from it. */
  analysis?: string;
  analysisFile?: AnalysisConfig;
  /** Commander's --no-rollback: false when given. */
  rollback: boolean | string;
  /**
   * Every --rollback/--no-rollback as typed, in order. Both write `rollback`, so commander alone
   * would let the last one win; a contradiction must be refused instead.
   */
  rollbackFlags?: string[];
  output: string;
  /** --diff: a server preview with kubectl diff per object. */
  diff?: boolean;
  /** --confirm: preview, then ask on the terminal before applying; --yes answers for the user. */
  confirm?: boolean;
  yes?: boolean;
  /** --junit FILE (the CLI writes it; the run does not need it). */
  junit?: string;
  /** --dotenv FILE: the outcome for later CI jobs (the CLI writes it). */
  dotenv?: string;
  /** --events FILE|-: the NDJSON event stream (the CLI writes it). */
  events?: string;
  /** --run-label TEXT */
  runLabel?: string;
  /** -v: every kubectl command too; -q: verdict lines only (the CLI's reporter). */
  verbose?: boolean;
  quiet?: boolean;
}

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

export function parseRollbackMode(value: boolean | string): RollbackMode {
  if (value === false) return 'none';
  if (value === true) return 'all';
  if (value === 'all' || value === 'failed' || value === 'none') return value;
  throw new InputError(`--rollback ${JSON.stringify(value)} is not one of all, failed, none.`);
}

export function parseOutputMode(value: string): OutputMode {
  if (value === 'text' || value === 'json') return value;
  throw new InputError(`--output ${JSON.stringify(value)} is not supported; use text or json.`);
}

/** The command line's strings, parsed at the edge, into the options the library builds too. */
export function toApplyOptions(raw: RawApplyOptions, passThroughArgs: readonly string[]): GuardedApplyOptions {
  checkRollbackFlags(raw.rollbackFlags ?? []);
  return resolveApplyOptions({
    filenames: raw.filename,
    recursive: raw.recursive,
    kustomize: raw.kustomize,
    namespace: raw.namespace,
    context: raw.context,
    kubeconfig: raw.kubeconfig,
    serverSide: raw.serverSide,
    fieldManager: raw.fieldManager,
    dryRun: parseDryRun(raw.dryRun),
    diff: raw.diff,
    confirm: raw.confirm,
    runLabel: runLabelOf(raw.runLabel),
    keepCreated: raw.keepCreated,
    journal: raw.journal,
    lockTimeoutMs: optionalDuration(raw.lockTimeout, '--lock-timeout'),
    journalNamespace: raw.journalNamespace,
    timeoutMs: parseDuration(raw.timeout, '--timeout'),
    rollbackTimeoutMs: optionalDuration(raw.rollbackTimeout, '--rollback-timeout'),
    pollIntervalMs: parseDuration(raw.pollInterval, '--poll-interval'),
    poll: raw.poll,
    settleMs: optionalDuration(raw.settle, '--settle'),
    bakeMs: optionalDuration(raw.bake, '--bake'),
    verifyCommands: raw.verify,
    verifyJobs: raw.verifyJob,
    verifyTimeoutMs: optionalDuration(raw.verifyTimeout, '--verify-timeout'),
    keepVerify: raw.keepVerify,
    verifyIntervalMs: optionalDuration(raw.verifyInterval, '--verify-interval'),
    history: raw.history === undefined ? undefined : parseHistory(raw.history),
    rollback: parseRollbackMode(raw.rollback),
    logLines: parseLogLines(raw.logLines),
    concurrency: raw.concurrency === undefined ? undefined : parseCount(raw.concurrency, '--concurrency'),
    requestTimeoutMs:
      raw.requestTimeout === undefined ? undefined : parseDuration(raw.requestTimeout, '--request-timeout'),
    kubectlArgs: passThroughArgs,
    readinessGraceMs: optionalDuration(raw.readinessGrace, '--readiness-grace'),
    statusGraceMs: optionalDuration(raw.statusGrace, '--status-grace'),
    ...(raw.imageCheck === undefined ? {} : { imageCheck: raw.imageCheck === 'off' ? 'off' : 'on' }),
    ...(raw.insecureRegistry?.length ? { insecureRegistries: raw.insecureRegistry } : {}),
    healthRules: raw.healthRules === undefined ? undefined : raw.healthRulesFile,
    ...(raw.analysisFile ? { analysis: raw.analysisFile } : {}),
  });
}

function parseHistory(value: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new InputError(
      `--history ${JSON.stringify(value)} is not a number of runs; use 0 or more, e.g. --history 10 (0 keeps none).`,
    );
  return Number(value.trim());
}

function optionalDuration(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : parseDuration(value, flag);
}

function parseLogLines(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()))
    throw new InputError(
      `--log-lines ${JSON.stringify(value)} is not a number of lines; use 0 or more, e.g. --log-lines 20.`,
    );
  return Number(value.trim());
}

function parseDryRun(value: boolean | string | undefined): 'client' | 'server' | undefined {
  if (value === undefined || value === false || value === 'none') return undefined;
  if (value === true || value === 'server') return 'server';
  if (value === 'client') return 'client';
  throw new InputError(`--dry-run=${value} is not one of none, client, server.`);
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

/** --run-label: one line of printable text, at most 253 characters (it is written in the journal and on each event). */
export function runLabelOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const label = text.trim();
  if (label === '' || label.length > 253 || /[\u0000-\u001f\u007f]/.test(label))
    throw new InputError(
      `--run-label ${JSON.stringify(text)}: give one line of 1 to 253 printable characters, e.g. --run-label "$SR_DEPLOYMENT_ID" or --run-label "$GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT".`,
    );
  return label;
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

/** A whole number on the command line; a malformed one is said as typed. */
function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim()))
    throw new InputError(
      `${flag} ${JSON.stringify(value)} is not a number of processes; use 1 or more, e.g. ${flag} 8.`,
    );
  return Number(value.trim());
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
  const rollback = parseFleetRollback(raw.fleetRollback ?? 'all');
  if (raw.fleet !== undefined) {
    if (raw.fleetFile === undefined) throw new Error('the CLI entry parses --fleet FILE before toFleetPlan');
    return { ...raw.fleetFile, rollback };
  }
  return { waves: planWaves(fleetWaves((raw.contexts ?? '').split(','), raw.canary)), rollback };
}
