// The options of a guarded apply, checked once. The CLI parses its strings at its edge and the
// library passes typed values, each read by its flag's row (flags.ts); both build the options
// here, with the defaults of model/options.ts.
import { InputError } from '../errors.js';
import { splitPassThrough } from '../kubectl/passthrough.js';
import { DEFAULTS, type GuardedApplyOptions } from '../model/options.js';
import type { GuardInput } from './flag-values.js';

export type { GuardInput } from './flag-values.js';

export function resolveApplyOptions(input: GuardInput): GuardedApplyOptions {
  const timeoutMs = input.timeoutMs ?? DEFAULTS.timeoutMs;
  const pollIntervalMs = input.pollIntervalMs ?? DEFAULTS.pollIntervalMs;
  if (timeoutMs <= 0) throw new InputError('--timeout must be longer than 0s.');
  if (pollIntervalMs < 100) throw new InputError('--poll-interval must be at least 100ms, to spare the API server.');
  const rollbackTimeoutMs = input.rollbackTimeoutMs ?? timeoutMs;
  if (rollbackTimeoutMs <= 0) throw new InputError('--rollback-timeout must be longer than 0s.');
  const verification = resolveVerification(input);
  const logLines = input.logLines ?? DEFAULTS.logLines;
  if (!Number.isInteger(logLines) || logLines < 0)
    throw new InputError(
      `--log-lines ${JSON.stringify(String(logLines))} is not a number of lines; use 0 or more, e.g. --log-lines 20.`,
    );
  const requestTimeoutMs = input.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  if (!(requestTimeoutMs >= 1000) || requestTimeoutMs % 1000 !== 0) {
    throw new InputError(
      `--request-timeout ${JSON.stringify(`${requestTimeoutMs / 1000}s`)} is not a whole number of seconds; use e.g. --request-timeout 30s.`,
    );
  }
  const history = input.history ?? DEFAULTS.history;
  if (!Number.isInteger(history) || history < 0)
    throw new InputError(
      `--history ${JSON.stringify(String(history))} is not a number of runs; use 0 or more, e.g. --history 10 (0 keeps none).`,
    );
  const concurrency = input.concurrency ?? DEFAULTS.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InputError(
      `--concurrency ${JSON.stringify(String(concurrency))} is not a number of processes; use 1 or more, e.g. --concurrency 8.`,
    );
  const passThrough = splitPassThrough(input.kubectlArgs ?? []);
  if (
    input.namespace !== undefined &&
    passThrough.namespace !== undefined &&
    input.namespace !== passThrough.namespace
  ) {
    throw new InputError(
      `-n ${input.namespace} and -n ${passThrough.namespace} after -- contradict each other; give the namespace once, before --.`,
    );
  }
  const connectionArgs = [
    ...(input.kubeconfig ? [`--kubeconfig=${input.kubeconfig}`] : []),
    ...(input.context ? [`--context=${input.context}`] : []),
    ...passThrough.connection,
  ];
  for (const flag of ['--kubeconfig', '--context']) {
    const values = new Set(connectionArgs.filter((arg) => arg.startsWith(`${flag}=`)));
    if (values.size > 1)
      throw new InputError(`${[...values].join(' and ')} contradict each other; give ${flag} once, before --.`);
  }
  const applyArgs = [
    ...(input.serverSide ? ['--server-side'] : []),
    ...(input.fieldManager ? [`--field-manager=${input.fieldManager}`] : []),
    ...passThrough.apply,
  ];
  const dryRun = input.dryRun ?? passThrough.dryRun;
  if (input.diff && dryRun === 'client')
    throw new InputError(
      '--diff shows what the API server would make of the apply; --dry-run=client asks it nothing. Drop one of them.',
    );
  if (input.confirm && dryRun)
    throw new InputError(
      '--confirm asks before applying, and --dry-run applies nothing: drop one of them (--diff alone previews).',
    );
  return {
    manifests: { filenames: [...input.filenames], recursive: input.recursive ?? false, kustomize: input.kustomize },
    namespace: input.namespace ?? passThrough.namespace,
    applyArgs: [...new Set(applyArgs)],
    selectionArgs: passThrough.selection,
    dryRun: input.diff ? 'server' : dryRun,
    diff: input.diff ?? false,
    connectionArgs: [...new Set(connectionArgs)],
    timeoutMs,
    rollbackTimeoutMs,
    pollIntervalMs,
    ...verification,
    history,
    poll: input.poll ?? false,
    rollback: input.rollback ?? DEFAULTS.rollback,
    keepCreated: input.keepCreated ?? false,
    journal: input.journal ?? true,
    ...(input.runLabel ? { runLabel: input.runLabel } : {}),
    lockTimeoutMs: input.lockTimeoutMs ?? DEFAULTS.lockTimeoutMs,
    journalNamespace: journalNamespaceOf(input.journalNamespace),
    logLines,
    concurrency,
    requestTimeoutMs,
    readinessGraceMs: input.readinessGraceMs ?? DEFAULTS.readinessGraceMs,
    statusGraceMs: input.statusGraceMs ?? DEFAULTS.statusGraceMs,
    imageCheck: input.imageCheck ?? DEFAULTS.imageCheck,
    insecureRegistries: input.insecureRegistries ?? [],
    ...(input.healthRules ? { healthRules: input.healthRules } : {}),
    ...(input.analysis ? { analysis: input.analysis } : {}),
  };
}

/** A namespace name (an RFC 1123 label), or the default: checked before anything is read. */
function journalNamespaceOf(namespace: string | undefined): string {
  if (namespace === undefined) return DEFAULTS.journalNamespace;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63) {
    throw new InputError(
      `--journal-namespace ${JSON.stringify(namespace)}: not a namespace name (lower case letters, digits and '-', at most 63). Pass the namespace where kguard may journal and lease cluster-scoped objects.`,
    );
  }
  return namespace;
}

/**
 * --verify, --verify-job, --bake and their companions. --settle asked the same question as --bake
 * (does the rollout stay healthy for a while after it became healthy?) and is its old name.
 */
function resolveVerification(
  input: GuardInput,
): Pick<
  GuardedApplyOptions,
  'verifyCommands' | 'verifyJobs' | 'verifyTimeoutMs' | 'keepVerify' | 'bakeMs' | 'verifyIntervalMs'
> {
  if (input.settleMs !== undefined && input.bakeMs !== undefined && input.settleMs !== input.bakeMs) {
    throw new InputError('--settle is the old name of --bake, and the two give different durations; give --bake once.');
  }
  const bakeMs = input.bakeMs ?? input.settleMs ?? DEFAULTS.bakeMs;
  if (bakeMs < 0) throw new InputError('--bake cannot be negative.');
  const verifyTimeoutMs = input.verifyTimeoutMs ?? DEFAULTS.verifyTimeoutMs;
  if (verifyTimeoutMs <= 0) throw new InputError('--verify-timeout must be longer than 0s.');
  const verifyCommands = [...(input.verifyCommands ?? [])];
  if (verifyCommands.some((command) => command.trim() === ''))
    throw new InputError('--verify needs a command, e.g. --verify "curl -fsS http://web/healthz".');
  const verifyJobs = [...(input.verifyJobs ?? [])];
  if (verifyJobs.some((file) => file.trim() === ''))
    throw new InputError('--verify-job needs a file with a Job manifest, e.g. --verify-job smoke-test.yaml.');
  const verifyIntervalMs = input.verifyIntervalMs ?? DEFAULTS.verifyIntervalMs;
  if (verifyIntervalMs < 0) throw new InputError('--verify-interval cannot be negative.');
  if (verifyIntervalMs > 0 && bakeMs === 0)
    throw new InputError(
      '--verify-interval runs the --verify commands again during the bake: give --bake too, e.g. --bake 5m --verify-interval 30s.',
    );
  if (verifyIntervalMs > 0 && verifyCommands.length === 0)
    throw new InputError(
      '--verify-interval runs the --verify commands again during the bake, and none is given: add --verify CMD.',
    );
  return {
    verifyCommands,
    verifyJobs,
    verifyTimeoutMs,
    keepVerify: input.keepVerify ?? false,
    bakeMs,
    verifyIntervalMs,
  };
}
