// `kguard completion bash|zsh|fish`: shell completion scripts generated from the commander
// program itself (completion-spec.ts), so every command and flag (and each flag's choices)
// completes without a second list to keep in step. Namespaces and contexts are asked of kubectl
// when the user presses Tab; namespaces of the context typed earlier on the line, if any.
import type { Command } from 'commander';
import { fishCompletion } from './completion-fish.js';
import { completionSpec, KUBECTL_VALUES, type CompletionSpec, type FlagSpec } from './completion-spec.js';

export function bashCompletion(spec: CompletionSpec): string {
  const fn = `_${spec.program.replace(/[^a-z0-9]/gi, '_')}`;
  const commandCases = spec.commands.map((command) => {
    const valueCases = command.flags
      .filter((flag) => flag.value !== 'none')
      .map(
        (flag) =>
          `        ${flag.names.join('|')}) ${bashValues(flag)}${flag.value === 'choices' ? ' ;;' : '; return ;;'}`,
      );
    const words = command.flags.flatMap((flag) => flag.names).join(' ');
    return [
      `    ${command.name})`,
      '      case "$prev" in',
      ...valueCases,
      '      esac',
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${words}" -- "$cur"))`,
      ...(command.argumentChoices.length > 0
        ? [`      else COMPREPLY=($(compgen -W "${command.argumentChoices.join(' ')}" -- "$cur"))`]
        : []),
      '      fi',
      '      return ;;',
    ].join('\n');
  });
  return `# bash completion for kguard (and kubectl-rollout_guard). Load it now with
#   source <(kguard completion bash)
# or for every shell: kguard completion bash > ~/.local/share/bash-completion/completions/kguard
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" command="" i
  local -a context=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  # The context typed earlier on the line (--context prod, or --context=prod, which bash splits at =).
  for ((i = 1; i < COMP_CWORD - 1; i++)); do
    if [[ "\${COMP_WORDS[i]}" == --context ]]; then
      if [[ "\${COMP_WORDS[i+1]}" == "=" ]]; then context=(--context "\${COMP_WORDS[i+2]}"); else context=(--context "\${COMP_WORDS[i+1]}"); fi
    fi
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
complete -o default -F ${fn} kguard kubectl-rollout_guard
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
      return `COMPREPLY=($(compgen -W "$(${KUBECTL_VALUES[flag.value]('"${context[@]}"')})" -- "$cur"))`;
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
    return [
      `    ${command.name})`,
      `      _arguments -s -S \\`,
      ...lines.map((line, index) => (index < lines.length - 1 ? `${line} \\` : line)),
      '      ;;',
    ].join('\n');
  });
  return `#compdef kguard kubectl-rollout_guard
# zsh completion for kguard (and kubectl-rollout_guard). Load it now with
#   source <(kguard completion zsh)
# or for every shell: kguard completion zsh > "\${fpath[1]}/_kguard"
${fn}_namespaces() {
  local -a values context
  # The context typed earlier on the line, if any.
  local at=\${words[(I)--context]}
  if (( at > 0 && at < CURRENT - 1 )); then context=(--context "\${words[at+1]}"); fi
  local given=\${words[(r)--context=*]}
  [[ -n "$given" ]] && context=(--context "\${given#--context=}")
  values=(\${(f)"$(${KUBECTL_VALUES.namespaces('"${context[@]}"')})"})
  compadd -a values
}
${fn}_contexts() {
  local -a values
  values=(\${(f)"$(${KUBECTL_VALUES.contexts('')})"})
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
  compdef ${fn} kguard kubectl-rollout_guard
fi
`;

  function zshFlag(flag: FlagSpec): string {
    const description = flag.description
      .replace(/[[\]:'\\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    // -f is repeatable; the others exclude their other spelling once given.
    const group = flag.names.length > 1 ? `{${flag.names.join(',')}}` : flag.names[0]!;
    const head = flag.names.includes('--filename')
      ? `'*'${group}`
      : flag.names.length > 1
        ? `'(${flag.names.join(' ')})'${group}`
        : group;
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

export function completionScript(program: Command, shell: 'bash' | 'zsh' | 'fish'): string {
  const spec = completionSpec(program);
  return shell === 'bash' ? bashCompletion(spec) : shell === 'zsh' ? zshCompletion(spec) : fishCompletion(spec);
}
