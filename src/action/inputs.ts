// The GitHub Action's inputs (action.yml passes each as an INPUT_* variable) → kguard's command
// line. Pure, so every rule is tested without a runner.
import { InputError } from '../errors.js';

export interface ActionInputs {
  files: string[];
  kustomize?: string;
  namespace?: string;
  context?: string;
  timeout?: string;
  rollback?: string;
  serverSide: boolean;
  /** More kguard flags, split as a shell would split them (quotes kept together); may hold `-- kubectl flags`. */
  extraArgs: string[];
}

export function readInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const text = (name: string) => {
    const value = env[`INPUT_${name}`]?.trim();
    return value ? value : undefined;
  };
  return {
    // One per line or separated by spaces, as other actions take path lists.
    files: (text('FILES') ?? '').split(/\s+/).filter(Boolean),
    kustomize: text('KUSTOMIZE'),
    namespace: text('NAMESPACE'),
    context: text('CONTEXT'),
    timeout: text('TIMEOUT'),
    rollback: text('ROLLBACK'),
    serverSide: booleanInput('server-side', text('SERVER_SIDE')),
    extraArgs: splitArgs(text('EXTRA_ARGS') ?? ''),
  };
}

/** kguard apply's arguments for the inputs; the JSON report goes to stdout (the action keeps it in a file). */
export function kguardArgs(inputs: ActionInputs): string[] {
  const dashDash = inputs.extraArgs.indexOf('--');
  const flags = dashDash === -1 ? inputs.extraArgs : inputs.extraArgs.slice(0, dashDash);
  const kubectlFlags = dashDash === -1 ? [] : inputs.extraArgs.slice(dashDash);
  return [
    'apply',
    ...inputs.files.flatMap((file) => ['-f', file]),
    ...(inputs.kustomize ? ['-k', inputs.kustomize] : []),
    ...(inputs.namespace ? ['--namespace', inputs.namespace] : []),
    ...(inputs.context ? ['--context', inputs.context] : []),
    ...(inputs.timeout ? ['--timeout', inputs.timeout] : []),
    ...(inputs.rollback ? ['--rollback', inputs.rollback] : []),
    ...(inputs.serverSide ? ['--server-side'] : []),
    ...flags,
    '--output',
    'json',
    ...kubectlFlags,
  ];
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
