// What the completion scripts complete, read from the commander program: its commands, their
// flags, which values each flag takes (choices, files, namespaces, contexts) and the positional
// arguments. Shared by the bash and zsh scripts (completion.ts) and the fish one (completion-fish.ts).
import type { Command, Option } from 'commander';

/** What one flag's value completes to. */
export type ValueKind = 'none' | 'files' | 'namespaces' | 'contexts' | 'choices' | 'any';

export interface FlagSpec {
  names: string[];
  description: string;
  value: ValueKind;
  choices: string[];
  /** --dry-run[=strategy]: the value may be left out. */
  optionalValue: boolean;
}

export interface CommandSpec {
  name: string;
  description: string;
  flags: FlagSpec[];
  /** Positional arguments: their choices (completion bash|zsh), or none (apply's kubectl flags after --). */
  argumentChoices: string[];
  /** zsh _arguments specs of the positional arguments. */
  positional: string[];
}

export interface CompletionSpec {
  program: string;
  commands: CommandSpec[];
}

/** Values that options.ts checks itself (parseOutputMode, parseDryRun), so commander knows no choices for them. */
const CHECKED_VALUES: Record<string, string[]> = {
  '--output': ['text', 'json'],
  '--dry-run': ['server', 'client', 'none'],
};

/** Flags whose value is a kubectl name the cluster or the kubeconfig knows. */
const CLUSTER_VALUES: Record<string, ValueKind> = {
  '--namespace': 'namespaces',
  '--context': 'contexts',
  '--canary': 'contexts',
};

export function completionSpec(program: Command): CompletionSpec {
  return {
    program: program.name(),
    commands: program.commands.map((command) => ({
      name: command.name(),
      description: command.description(),
      flags: [
        ...command.options.filter((option) => !option.hidden).map(flagSpec),
        { names: ['-h', '--help'], description: 'display help', value: 'none', choices: [], optionalValue: false },
      ],
      argumentChoices: command.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
      positional: command.registeredArguments.map((argument, index) => {
        const label = argument.description || argument.name();
        if (argument.argChoices) return `${index + 1}:${argument.name()}:(${argument.argChoices.join(' ')})`;
        // apply's kubectl flags after --: whatever kubectl takes, files included.
        if (argument.variadic) return `*::${argument.name()}:_files`;
        return `${index + 1}::${label.replace(/[:'\\]/g, ' ')}: `;
      }),
    })),
  };
}

function flagSpec(option: Option): FlagSpec {
  const names = [option.short, option.long].filter((name): name is string => Boolean(name));
  const choices = option.argChoices ?? (option.long ? CHECKED_VALUES[option.long] : undefined) ?? [];
  const takesValue = option.required || option.optional;
  const placeholder = /<([^>]*)>|\[([^\]]*)\]/.exec(option.flags);
  const argument = (placeholder?.[1] ?? placeholder?.[2] ?? '').toLowerCase();
  let value: ValueKind = 'none';
  if (takesValue) {
    if (choices.length > 0) value = 'choices';
    // An optional value (--dry-run[=strategy]) must not keep the next flag from completing.
    else if (option.optional) value = 'none';
    else if (option.long && CLUSTER_VALUES[option.long]) value = CLUSTER_VALUES[option.long]!;
    else if (/file|dir|path/.test(argument)) value = 'files';
    else value = 'any';
  }
  return { names, description: option.description, value, choices, optionalValue: option.optional };
}

/**
 * The shell commands that list a flag's values, given how the shell writes the context flags of
 * the line so far (`"${context[@]}"` in bash): namespaces are those of the context typed earlier
 * on the line (`kguard apply --context prod -n <TAB>`), as kubectl's own completion does.
 */
export const KUBECTL_VALUES: Record<'namespaces' | 'contexts', (contextArgs: string) => string> = {
  namespaces: (contextArgs) => `kubectl ${contextArgs} get namespaces -o name 2>/dev/null | sed 's|^namespace/||'`,
  contexts: () => 'kubectl config get-contexts -o name 2>/dev/null',
};
