// Command-line values → ApplyOptions. Pure, so every rule here is tested without a process.
import { InputError } from '../errors.js';
import type { RollbackMode } from '../rollback/plan.js';
import type { ApplyOptions } from '../run/apply.js';
import { splitPassThrough } from './passthrough.js';

export interface RawApplyOptions {
  filename: string[];
  context?: string;
  kubeconfig?: string;
  /** --dry-run: true for the bare flag, or the strategy. */
  dryRun?: boolean | string;
  keepCreated?: boolean;
  recursive?: boolean;
  kustomize?: string;
  namespace?: string;
  serverSide?: boolean;
  fieldManager?: string;
  timeout: string;
  rollbackTimeout?: string;
  pollInterval: string;
  settle: string;
  /** --log-lines: how many of a failing container's last lines to print. */
  logLines?: string;
  /** Commander's --no-rollback: false when given. */
  rollback: boolean | string;
  output: string;
}

export type OutputMode = 'text' | 'json';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style durations as kubectl takes them: 300ms, 90s, 5m, 1m30s; a bare number is seconds. */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== trimmed) {
    throw new InputError(`${flag} ${JSON.stringify(text)} is not a duration. Use forms like 90s, 5m or 1m30s.`);
  }
  return parts.reduce((total, part) => total + Number(part[1]) * (UNITS[part[2] as string] ?? 0), 0);
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
  return {
    manifests: { filenames: raw.filename, recursive: raw.recursive ?? false, kustomize: raw.kustomize },
    namespace: raw.namespace ?? passThrough.namespace,
    applyArgs: [...new Set(applyArgs)],
    selectionArgs: passThrough.selection,
    dryRun: parseDryRun(raw.dryRun) ?? passThrough.dryRun,
    connectionArgs: [...new Set(connectionArgs)],
    timeoutMs,
    rollbackTimeoutMs,
    pollIntervalMs,
    settleMs: parseDuration(raw.settle, '--settle'),
    rollback: parseRollbackMode(raw.rollback),
    keepCreated: raw.keepCreated ?? false,
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
