// Command-line values → ApplyOptions. Pure, so every rule here is tested without a process.
import { InputError } from '../errors.js';
import type { RollbackMode } from '../model/result.js';
import type { ApplyOptions } from '../model/options.js';
import { splitPassThrough } from './passthrough.js';

export interface RawApplyOptions {
  filename: string[];
  context?: string;
  kubeconfig?: string;
  /** --dry-run: true for the bare flag, or the strategy. */
  dryRun?: boolean | string;
  keepCreated?: boolean;
  /** --no-journal sets it false. */
  journal?: boolean;
  lockTimeout?: string;
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
  settle: string;
  /** --log-lines: how many of a failing container's last lines to print. */
  logLines?: string;
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
}

export type OutputMode = 'text' | 'json';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest delay Node's timers take (2^31-1 ms, about 24.8 days): a longer one fires after
 * 1 ms with a TimeoutOverflowWarning (Node docs, setTimeout), which would turn a long --timeout
 * into an instant one.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Go-style durations as kubectl takes them: 300ms, 90s, 5m, 1m30s; a bare number is seconds. */
export function parseDuration(text: string, flag: string): number {
  const ms = durationMs(text.trim());
  if (ms === undefined) throw new InputError(`${flag} ${JSON.stringify(text)} is not a duration. Use forms like 90s, 5m or 1m30s.`);
  if (ms > MAX_DURATION_MS) {
    throw new InputError(`${flag} ${text} is too long: the longest duration kguard can wait is 596h (about 24.8 days).`);
  }
  return ms;
}

function durationMs(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  return parts.reduce((total, part) => total + Number(part[1]) * (UNITS[part[2] as string] ?? 0), 0);
}

/** --no-rollback and --rollback all|failed say opposite things: refuse rather than let the last one win. */
export function checkRollbackFlags(flags: readonly string[]): void {
  const modes = new Set(flags.map((flag) => (flag === '--no-rollback' ? 'none' : flag.replace(/^--rollback[ =]/, ''))));
  if (modes.size > 1) {
    throw new InputError(`${[...new Set(flags)].join(' and ')} contradict each other; give one of --rollback all|failed|none (--no-rollback is --rollback none).`);
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

/** What the CLI needs beyond the run's options: the connection flags for every kubectl call. */
export interface CliApplyOptions extends ApplyOptions {
  connectionArgs: string[];
}

export function toApplyOptions(raw: RawApplyOptions, passThroughArgs: readonly string[]): CliApplyOptions {
  const timeoutMs = parseDuration(raw.timeout, '--timeout');
  const pollIntervalMs = parseDuration(raw.pollInterval, '--poll-interval');
  if (timeoutMs <= 0) throw new InputError('--timeout must be longer than 0s.');
  checkRollbackFlags(raw.rollbackFlags ?? []);
  if (pollIntervalMs < 100) throw new InputError('--poll-interval must be at least 100ms, to spare the API server.');
  const passThrough = splitPassThrough(passThroughArgs);
  if (raw.namespace !== undefined && passThrough.namespace !== undefined && raw.namespace !== passThrough.namespace) {
    throw new InputError(`-n ${raw.namespace} and -n ${passThrough.namespace} after -- contradict each other; give the namespace once, before --.`);
  }
  const connectionArgs = [
    ...(raw.kubeconfig ? [`--kubeconfig=${raw.kubeconfig}`] : []),
    ...(raw.context ? [`--context=${raw.context}`] : []),
    ...passThrough.connection,
  ];
  for (const flag of ['--kubeconfig', '--context']) {
    const values = new Set(connectionArgs.filter((arg) => arg.startsWith(`${flag}=`)));
    if (values.size > 1) throw new InputError(`${[...values].join(' and ')} contradict each other; give ${flag} once, before --.`);
  }
  const applyArgs = [
    ...(raw.serverSide ? ['--server-side'] : []),
    ...(raw.fieldManager ? [`--field-manager=${raw.fieldManager}`] : []),
    ...passThrough.apply,
  ];
  const rollbackTimeoutMs = raw.rollbackTimeout === undefined ? timeoutMs : parseDuration(raw.rollbackTimeout, '--rollback-timeout');
  if (rollbackTimeoutMs <= 0) throw new InputError('--rollback-timeout must be longer than 0s.');
  const dryRun = parseDryRun(raw.dryRun) ?? passThrough.dryRun;
  if (raw.diff && dryRun === 'client') throw new InputError('--diff shows what the API server would make of the apply; --dry-run=client asks it nothing. Drop one of them.');
  if (raw.confirm && dryRun) throw new InputError('--confirm asks before applying, and --dry-run applies nothing: drop one of them (--diff alone previews).');
  return {
    manifests: { filenames: raw.filename, recursive: raw.recursive ?? false, kustomize: raw.kustomize },
    namespace: raw.namespace ?? passThrough.namespace,
    applyArgs: [...new Set(applyArgs)],
    selectionArgs: passThrough.selection,
    dryRun: raw.diff ? 'server' : dryRun,
    diff: raw.diff ?? false,
    connectionArgs: [...new Set(connectionArgs)],
    timeoutMs,
    rollbackTimeoutMs,
    pollIntervalMs,
    settleMs: parseDuration(raw.settle, '--settle'),
    poll: raw.poll ?? false,
    rollback: parseRollbackMode(raw.rollback),
    keepCreated: raw.keepCreated ?? false,
    journal: raw.journal ?? true,
    lockTimeoutMs: raw.lockTimeout === undefined ? 5 * 60_000 : parseDuration(raw.lockTimeout, '--lock-timeout'),
    logLines: parseLogLines(raw.logLines),
  };
}

function parseLogLines(value: string | undefined): number {
  if (value === undefined) return 5;
  if (!/^\d+$/.test(value.trim())) throw new InputError(`--log-lines ${JSON.stringify(value)} is not a number of lines; use 0 or more, e.g. --log-lines 20.`);
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
