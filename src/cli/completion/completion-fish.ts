// `kguard completion fish`: the fish completion script, from the same spec as the bash and zsh
// ones (completion-spec.ts). fish completes by rules (`complete -c kguard -n CONDITION ...`): one
// rule per flag of each command, conditioned on that command being on the line; file names only
// where a flag takes a file, and after `--` (kubectl apply's own flags and their values).
import { KUBECTL_VALUES, type CompletionSpec, type FlagSpec } from './completion-spec.js';

export function fishCompletion(spec: CompletionSpec): string {
  const fn = `__${spec.program.replace(/[^a-z0-9]/gi, '_')}`;
  const commands = spec.commands.map(
    (command) =>
      `complete -c $program -n ${fn}_needs_command -a ${fishQuote(command.name)} -d ${fishQuote(oneLine(command.description))}`,
  );
  const flags = spec.commands.flatMap((command) => {
    const when = `-n ${fishQuote(`${fn}_using_command ${command.name}; and not ${fn}_after_dashdash`)}`;
    const rules = command.flags.map(
      (flag) => `complete -c $program ${when} ${names(flag)} ${values(flag)}-d ${fishQuote(oneLine(flag.description))}`,
    );
    const positional =
      command.argumentChoices.length > 0
        ? [`complete -c $program ${when} -a ${fishQuote(command.argumentChoices.join(' '))}`]
        : [];
    return [...rules, ...positional];
  });
  return `# fish completion for kguard (and kubectl-rollout_guard). Load it now with
#   kguard completion fish | source
# or for every shell: kguard completion fish > ~/.config/fish/completions/kguard.fish
# (and a copy named kubectl-rollout_guard.fish for the plugin's name).

# The command (apply, status...) is the first word that is not a flag.
function ${fn}_command
    for word in (commandline -opc)[2..-1]
        switch $word
            case '-*'
            case '*'
                echo $word
                return 0
        end
    end
    return 1
end
function ${fn}_needs_command
    not ${fn}_command >/dev/null
end
function ${fn}_using_command
    test (${fn}_command) = "$argv[1]"
end
# After --, the words are kubectl apply's: files, as kubectl completes them.
function ${fn}_after_dashdash
    contains -- -- (commandline -opc)
end
# The context typed earlier on the line, as kubectl's flags (--context prod, or --context=prod).
function ${fn}_context
    set -l words (commandline -opc)
    for i in (seq (count $words))
        switch $words[$i]
            case '--context=*'
                printf '%s\\n' --context (string replace -- --context= '' $words[$i])
            case --context
                if test $i -lt (count $words)
                    printf '%s\\n' --context $words[(math $i + 1)]
                end
        end
    end
end
function ${fn}_namespaces
    ${KUBECTL_VALUES.namespaces(`(${fn}_context)`)}
end
function ${fn}_contexts
    ${KUBECTL_VALUES.contexts('')}
end

for program in kguard kubectl-rollout_guard
    complete -c $program -e
    complete -c $program -f
    complete -c $program -n ${fn}_after_dashdash -F
    complete -c $program -n ${fn}_needs_command -a help -d 'display help for a command'
    complete -c $program -n ${fn}_needs_command -s V -l version -d 'output the version number'
    ${commands.join('\n    ')}
    ${flags.join('\n    ')}
end
`;

  function values(flag: FlagSpec): string {
    switch (flag.value) {
      case 'none':
        return '';
      case 'choices':
        // --dry-run's value may be left out: fish then offers it only after =.
        return `${flag.optionalValue ? '' : '-x '}-a ${fishQuote(flag.choices.join(' '))} `;
      case 'files':
        return '-r -F ';
      case 'namespaces':
      case 'contexts':
        return `-x -a ${fishQuote(`(${fn}_${flag.value})`)} `;
      default:
        return '-x ';
    }
  }
}

/** fish's -s (a one-letter flag), -l (a long one), or -o (an old-style long one with one dash). */
function names(flag: FlagSpec): string {
  return flag.names
    .map((name) =>
      /^-[^-]$/.test(name)
        ? `-s ${name.slice(1)}`
        : name.startsWith('--')
          ? `-l ${name.slice(2)}`
          : `-o ${name.slice(1)}`,
    )
    .join(' ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
