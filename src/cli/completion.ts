// `kguard completion bash|zsh`: shell completion scripts generated from the commander program
// itself, so every command and flag (and each flag's choices) completes without a second list
// to keep in step. Namespaces and contexts are asked of kubectl when the user presses Tab.
import type { Command, Option } from 'commander';

/** What one flag's value completes to. */
type ValueKind = 'none' | 'files' | 'namespaces' | 'contexts' | 'choices' | 'any';

interface FlagSpec {
  names: string[];
  description: string;
  value: ValueKind;
  choices: string[];
  /** --dry-run[=strategy]: the value may be left out. */
  optionalValue: boolean;
}

interface CommandSpec {
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
const CHECKED_VALUES: Record<string, string[]> = { '--output': ['text', 'json'], '--dry-run': ['server', 'client', 'none'] };

/** Flags whose value is a kubectl name the cluster or the kubeconfig knows. */
const CLUSTER_VALUES: Record<string, ValueKind> = { '--namespace': 'namespaces', '--context': 'contexts' };

export function completionSpec(program: Command): CompletionSpec {
  return {
    program: program.name(),
    commands: program.commands.map((command) => ({
      name: command.name(),
      description: command.description(),
      flags: [...command.options.filter((option) => !option.hidden).map(flagSpec), { names: ['-h', '--help'], description: 'display help', value: 'none', choices: [], optionalValue: false }],
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

const KUBECTL_VALUES: Record<'namespaces' | 'contexts', string> = {
  namespaces: `kubectl get namespaces -o name 2>/dev/null | sed 's|^namespace/||'`,
  contexts: 'kubectl config get-contexts -o name 2>/dev/null',
};

export function bashCompletion(spec: CompletionSpec): string {
  const fn = `_${spec.program.replace(/[^a-z0-9]/gi, '_')}`;
  const commandCases = spec.commands.map((command) => {
    const valueCases = command.flags
      .filter((flag) => flag.value !== 'none')
      .map((flag) => `        ${flag.names.join('|')}) ${bashValues(flag)}${flag.value === 'choices' ? ' ;;' : '; return ;;'}`);
    const words = command.flags.flatMap((flag) => flag.names).join(' ');
    return [
      `    ${command.name})`,
      '      case "$prev" in',
      ...valueCases,
      '      esac',
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${words}" -- "$cur"))`,
      ...(command.argumentChoices.length > 0 ? [`      else COMPREPLY=($(compgen -W "${command.argumentChoices.join(' ')}" -- "$cur"))`] : []),
      '      fi',
      '      return ;;',
    ].join('\n');
  });
  return `# bash completion for kguard (and kubectl-guard). Load it now with
#   source <(kguard completion bash)
# or for every shell: kguard completion bash > ~/.local/share/bash-completion/completions/kguard
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  # After --, the words are kubectl apply's: leave them to the default (file) completion.
  for ((i = 1; i < COMP_CWORD; i++)); do [[ "\${COMP_WORDS[i]}" == "--" ]] && return; done
  case "$command" in
    "")
      COMPREPLY=($(compgen -W "${[...spec.commands.map((command) => command.name), 'help', '--version', '--help'].join(' ')}" -- "$cur"))
      return ;;
${commandCases.join('\n')}
  esac
}
complete -o default -F ${fn} kguard kubectl-guard
`;
}

function bashValues(flag: FlagSpec): string {
  switch (flag.value) {
    case 'choices':
      // A word starting with - is the next flag (--dry-run's value may be left out).
      return `[[ "$cur" != -* ]] && COMPREPLY=($(compgen -W "${flag.choices.join(' ')}" -- "$cur")) && return`;
    case 'files':
      return 'COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null';
    case 'namespaces':
    case 'contexts':
      return `COMPREPLY=($(compgen -W "$(${KUBECTL_VALUES[flag.value]})" -- "$cur"))`;
    default:
      return 'COMPREPLY=()';
  }
}

export function zshCompletion(spec: CompletionSpec): string {
  const fn = `_${spec.program.replace(/[^a-z0-9]/gi, '_')}`;
  const described = spec.commands.map((command) => `    ${zshQuote(`${command.name}:${command.description}`)}`);
  const commandCases = spec.commands.map((command) => {
    const specs = command.flags.map((flag) => `        ${zshFlag(flag)}`);
    const lines = [...specs, ...command.positional.map((spec) => `        ${zshQuote(spec)}`)];
    return [`    ${command.name})`, `      _arguments -s -S \\`, ...lines.map((line, index) => (index < lines.length - 1 ? `${line} \\` : line)), '      ;;'].join('\n');
  });
  return `#compdef kguard kubectl-guard
# zsh completion for kguard (and kubectl-guard). Load it now with
#   source <(kguard completion zsh)
# or for every shell: kguard completion zsh > "\${fpath[1]}/_kguard"
${fn}_namespaces() {
  local -a values
  values=(\${(f)"$(${KUBECTL_VALUES.namespaces})"})
  compadd -a values
}
${fn}_contexts() {
  local -a values
  values=(\${(f)"$(${KUBECTL_VALUES.contexts})"})
  compadd -a values
}
${fn}() {
  local -a commands
  commands=(
${described.join('\n')}
    'help:display help for a command'
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'kguard command' commands
    return
  fi
  case "$words[2]" in
${commandCases.join('\n')}
  esac
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} kguard kubectl-guard
fi
`;

  function zshFlag(flag: FlagSpec): string {
    const description = flag.description.replace(/[[\]:'\\]/g, ' ').replace(/\s+/g, ' ').trim();
    // -f is repeatable; the others exclude their other spelling once given.
    const group = flag.names.length > 1 ? `{${flag.names.join(',')}}` : flag.names[0]!;
    const head = flag.names.includes('--filename') ? `'*'${group}` : flag.names.length > 1 ? `'(${flag.names.join(' ')})'${group}` : group;
    return `${head}${zshQuote(`[${description}]${zshValue(flag)}`)}`;
  }

  function zshValue(flag: FlagSpec): string {
    switch (flag.value) {
      case 'none':
        return '';
      case 'choices':
        return `${flag.optionalValue ? '::' : ':'}${flag.names.at(-1)!.replace(/^-+/, '')}:(${flag.choices.join(' ')})`;
      case 'files':
        return ':file:_files';
      case 'namespaces':
      case 'contexts':
        return `:${flag.value}:${fn}_${flag.value}`;
      default:
        return ':value: ';
    }
  }
}

function zshQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const spec = completionSpec(program);
  return shell === 'bash' ? bashCompletion(spec) : zshCompletion(spec);
}
