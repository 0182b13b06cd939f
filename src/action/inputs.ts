// The GitHub Action's inputs (the runner passes each as an INPUT_* variable) → kguard's command
// line. Pure, so every rule is tested without a runner.
import { InputError } from '../errors.js';

export interface ActionInputs {
  files: string[];
  kustomize?: string;
  namespace?: string;
  context?: string;
  /** A fleet: --contexts a,b,c, --canary C, or --fleet FILE, and --fleet-rollback. */
  contexts?: string;
  canary?: string;
  fleet?: string;
  fleetRollback?: string;
  /** A kubeconfig file's path, or the kubeconfig itself (a secret's text): see kubeconfigInput. */
  kubeconfig?: string;
  /** --dry-run: true (server), server or client; false or empty: none. */
  dryRun?: 'server' | 'client';
  diff: boolean;
  /** Where to write the JUnit report (the action writes one in RUNNER_TEMP without it). */
  junit?: string;
  timeout?: string;
  rollback?: string;
  serverSide: boolean;
  /** More kguard flags, split as a shell would split them (quotes kept together); may hold `-- kubectl flags`. */
  extraArgs: string[];
}

export function readInputs(env: NodeJS.ProcessEnv): ActionInputs {
  // The runner names each input INPUT_ + its name in capitals, hyphens kept (INPUT_SERVER-SIDE), as
  // @actions/core's getInput reads it; the underscore form is read too, for a step that sets env itself.
  const text = (name: string) => {
    const value = (env[`INPUT_${name}`] ?? env[`INPUT_${name.replace(/-/g, '_')}`])?.trim();
    return value ? value : undefined;
  };
  return {
    // One per line or separated by spaces, as other actions take path lists.
    files: (text('FILES') ?? '').split(/\s+/).filter(Boolean),
    kustomize: text('KUSTOMIZE'),
    namespace: text('NAMESPACE'),
    context: text('CONTEXT'),
    // One per line, by commas or by spaces: a list of contexts however a workflow writes it.
    contexts: listInput(text('CONTEXTS')),
    canary: text('CANARY'),
    fleet: text('FLEET'),
    fleetRollback: text('FLEET-ROLLBACK'),
    kubeconfig: text('KUBECONFIG'),
    dryRun: dryRunInput(text('DRY-RUN')),
    diff: booleanInput('diff', text('DIFF')),
    junit: text('JUNIT'),
    timeout: text('TIMEOUT'),
    rollback: text('ROLLBACK'),
    serverSide: booleanInput('server-side', text('SERVER-SIDE')),
    extraArgs: splitArgs(text('EXTRA-ARGS') ?? ''),
  };
}

/**
 * kguard apply's arguments for the inputs; the JSON report goes to stdout (the action keeps it in
 * a file). `kubeconfig` and `junit` are the files the action resolved (kubeconfigInput, and the
 * JUnit path it reports as the `junit` output).
 */
export function kguardArgs(inputs: ActionInputs, files: { kubeconfig?: string; junit: string }): string[] {
  const dashDash = inputs.extraArgs.indexOf('--');
  const flags = dashDash === -1 ? inputs.extraArgs : inputs.extraArgs.slice(0, dashDash);
  const kubectlFlags = dashDash === -1 ? [] : inputs.extraArgs.slice(dashDash);
  return [
    'apply',
    ...inputs.files.flatMap((file) => ['-f', file]),
    ...(inputs.kustomize ? ['-k', inputs.kustomize] : []),
    ...(inputs.namespace ? ['--namespace', inputs.namespace] : []),
    ...(inputs.context ? ['--context', inputs.context] : []),
    ...(inputs.contexts ? ['--contexts', inputs.contexts] : []),
    ...(inputs.canary ? ['--canary', inputs.canary] : []),
    ...(inputs.fleet ? ['--fleet', inputs.fleet] : []),
    // The default (all) is kguard's too; said only for a fleet, where it means something.
    ...(inputs.fleetRollback && (inputs.contexts || inputs.canary || inputs.fleet)
      ? ['--fleet-rollback', inputs.fleetRollback]
      : []),
    ...(files.kubeconfig ? ['--kubeconfig', files.kubeconfig] : []),
    ...(inputs.dryRun ? [`--dry-run=${inputs.dryRun}`] : []),
    ...(inputs.diff ? ['--diff'] : []),
    '--junit',
    files.junit,
    ...(inputs.timeout ? ['--timeout', inputs.timeout] : []),
    ...(inputs.rollback ? ['--rollback', inputs.rollback] : []),
    ...(inputs.serverSide ? ['--server-side'] : []),
    ...flags,
    '--output',
    'json',
    ...kubectlFlags,
  ];
}

/**
 * The secret values in a kubeconfig's text (tokens, passwords, client keys and certificates): the
 * action asks the runner to mask each one (`::add-mask::`), so no later line of the job prints it.
 */
export function kubeconfigSecrets(content: string): string[] {
  const values = [
    ...content.matchAll(
      /^\s*-?\s*(?:token|password|client-key-data|client-certificate-data|id-token|refresh-token|access-token):\s*["']?([^\s"']{4,})["']?\s*$/gm,
    ),
  ].map((match) => match[1]!);
  return [...new Set(values)];
}

/**
 * The `kubeconfig` input is a path, or the kubeconfig itself (`kubeconfig: ${{ secrets.KUBECONFIG }}`):
 * text with a newline, or that starts like a kubeconfig, is the file's content, which the action
 * writes to a private file (0600) in RUNNER_TEMP; it never reaches the log.
 */
export function kubeconfigInput(value: string | undefined): { path: string } | { content: string } | undefined {
  if (value === undefined) return undefined;
  return /\n/.test(value) ||
    /^\s*(apiVersion|kind|clusters|contexts|users|current-context)\s*:/.test(value) ||
    value.startsWith('{')
    ? { content: value }
    : { path: value };
}

function listInput(value: string | undefined): string | undefined {
  const names = (value ?? '').split(/[\s,]+/).filter(Boolean);
  return names.length > 0 ? names.join(',') : undefined;
}

function dryRunInput(value: string | undefined): 'server' | 'client' | undefined {
  if (value === undefined || ['false', 'False', 'FALSE', 'none'].includes(value)) return undefined;
  if (['true', 'True', 'TRUE', 'server'].includes(value)) return 'server';
  if (value === 'client') return 'client';
  throw new InputError(`input dry-run: ${JSON.stringify(value)} is not one of true, false, server, client.`);
}

/** The YAML 1.2 core schema booleans, as @actions/core's getBooleanInput reads them. */
function booleanInput(name: string, value: string | undefined): boolean {
  if (value === undefined || ['false', 'False', 'FALSE'].includes(value)) return false;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  throw new InputError(`input ${name}: ${JSON.stringify(value)} is not a boolean; use true or false.`);
}

/** Splits like a POSIX shell without expansions: whitespace separates, quotes group, backslash escapes. */
export function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && index + 1 < text.length) current += text[(index += 1)]!;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === '\\' && index + 1 < text.length) {
      current += text[(index += 1)]!;
      started = true;
    } else if (/\s/.test(char)) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (quote) throw new InputError(`input extra-args: unclosed ${quote} in ${JSON.stringify(text)}.`);
  if (started) args.push(current);
  return args;
}
