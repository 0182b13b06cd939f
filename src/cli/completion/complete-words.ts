// `kubectl rollout-guard <TAB>`: kubectl runs kubectl_complete-rollout_guard with the words typed
// after the plugin's name (the last one being completed) and reads cobra's completion protocol
// back: one candidate per line (`value<TAB>description`), then `:<directive>`. The same spec as the
// shell scripts (completion-spec.ts) decides what completes. Pure: listing namespaces or contexts
// is the caller's (it asks kubectl).
import type { CompletionSpec, FlagSpec } from './completion-spec.js';

/** cobra's ShellCompDirective values (spf13/cobra completions.go). */
export const DIRECTIVE = { default: 0, noFileComp: 4 } as const;

export interface Completion {
  candidates: Array<{ value: string; description?: string }>;
  directive: number;
}

export type ListValues = (kind: 'namespaces' | 'contexts', contextArgs: string[]) => string[];

export function completeWords(spec: CompletionSpec, words: readonly string[], list: ListValues): Completion {
  const typed = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  // After --, the words are kubectl apply's: files, as kubectl completes them.
  if (typed.includes('--')) return { candidates: [], directive: DIRECTIVE.default };
  const commandAt = typed.findIndex((word) => !word.startsWith('-'));
  if (commandAt === -1) {
    const commands = [
      ...spec.commands.map((command) => ({ value: command.name, description: command.description })),
      { value: 'help', description: 'display help for a command' },
    ];
    return matching(commands, current);
  }
  const command = spec.commands.find((candidate) => candidate.name === typed[commandAt]);
  if (!command) return { candidates: [], directive: DIRECTIVE.noFileComp };
  const flagOf = (word: string | undefined) =>
    word === undefined ? undefined : command.flags.find((flag) => flag.names.includes(word));
  const previous = flagOf(typed.at(-1));
  if (previous && previous.value !== 'none' && !previous.optionalValue)
    return valuesOf(previous, current, contextArgs(typed), list);
  if (current.startsWith('-')) {
    const flags = command.flags.flatMap((flag) =>
      flag.names.map((name) => ({ value: name, description: flag.description })),
    );
    return matching(flags, current);
  }
  return matching(
    command.argumentChoices.map((value) => ({ value })),
    current,
  );
}

function valuesOf(flag: FlagSpec, current: string, context: string[], list: ListValues): Completion {
  switch (flag.value) {
    case 'choices':
      return matching(
        flag.choices.map((value) => ({ value })),
        current,
      );
    case 'files':
      return { candidates: [], directive: DIRECTIVE.default };
    case 'namespaces':
    case 'contexts':
      return matching(
        list(flag.value, context).map((value) => ({ value })),
        current,
      );
    default:
      return { candidates: [], directive: DIRECTIVE.noFileComp };
  }
}

/** The context typed on the line (`--context prod`, `--context=prod`), as kubectl's flags. */
function contextArgs(typed: readonly string[]): string[] {
  let context: string | undefined;
  typed.forEach((word, index) => {
    if (word.startsWith('--context=')) context = word.slice('--context='.length);
    else if (word === '--context' && typed[index + 1] !== undefined) context = typed[index + 1];
  });
  return context === undefined ? [] : ['--context', context];
}

function matching(candidates: Completion['candidates'], current: string): Completion {
  return {
    candidates: candidates.filter((candidate) => candidate.value.startsWith(current)),
    directive: DIRECTIVE.noFileComp,
  };
}

/** cobra's protocol: `value\tdescription` lines, then `:directive`. */
export function completionOutput(completion: Completion): string {
  const lines = completion.candidates.map(({ value, description }) =>
    description ? `${value}\t${description.replace(/\s+/g, ' ')}` : value,
  );
  return [...lines, `:${completion.directive}`, ''].join('\n');
}
