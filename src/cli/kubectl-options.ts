// kubectl's own flags on kguard's command line. `kguard apply` takes the common ones before `--`
// with kubectl's meaning (the table in kubectl/flags.ts says which), parsed the way kubectl's
// pflag parses them (`--prune=false`, `--validate` alone meaning strict, `-lapp=web`), and sorted
// by the same code as the flags after `--` (kubectl/passthrough.ts). Any other unknown option is
// answered with the command that puts it after `--`. Pure.
import { Option } from 'commander';
import {
  KUBECTL_FLAGS,
  kubectlFlag,
  parseKubectlBool,
  REFUSED_AFTER_DASH_DASH,
  type KubectlFlag,
} from '../kubectl/flags.js';
import { shellQuote } from '../kubectl/output/parse.js';
import { splitFlag } from '../kubectl/passthrough.js';

export const KUBECTL_HELP_GROUP =
  'kubectl flags (as for kubectl apply; kguard uses them for every kubectl call it makes):';

/** What each command takes natively: apply every native flag, the run commands the ones that choose the cluster and who. */
export function nativeFlags(command: string | undefined): KubectlFlag[] {
  const native = KUBECTL_FLAGS.filter((flag) => flag.native);
  if (command === 'apply') return native;
  const runCommands = ['status', 'rollback', 'unlock', 'forget', 'history', 'undo'];
  if (command !== undefined && runCommands.includes(command))
    return native.filter((flag) => flag.role === 'connection');
  return [];
}

/**
 * Takes the native kubectl flags out of a command line (the words after the program name), up
 * to `--`, as pflag reads them: a value flag takes the next word whatever it is, a boolean never
 * does, an optional value only after `=`. Returns the rest for commander and the kubectl flags
 * as typed, in order, for passthrough.ts to sort.
 */
export function takeKubectlFlags(words: readonly string[]): { rest: string[]; kubectlArgs: string[] } {
  const accepted = nativeFlags(words[0]);
  const byName = new Map<string, KubectlFlag>(
    accepted.flatMap((flag) => [[flag.long, flag] as const, ...(flag.short ? [[flag.short, flag] as const] : [])]),
  );
  const rest: string[] = [];
  const kubectlArgs: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === '--') {
      rest.push(...words.slice(index));
      break;
    }
    const [name, inline] = splitFlag(word);
    const attached = isShortGroup(name) ? byName.get(name.slice(0, 2)) : undefined;
    const flag = byName.get(name);
    if (flag) {
      kubectlArgs.push(word);
      const next = words[index + 1];
      if (flag.arity === 'value' && inline === undefined && next !== undefined) {
        kubectlArgs.push(next);
        index += 1;
      }
    } else if (attached?.arity === 'value' && attached.short) {
      // pflag's `-lapp=web`: a shorthand with its value attached.
      kubectlArgs.push(`${attached.short}=${word.slice(2)}`);
    } else {
      rest.push(word);
    }
  }
  return { rest, kubectlArgs };
}

/** Commander options for the help and the completion scripts; `record` keeps what commander itself parses (`-Rl app=web`). */
export function kubectlOptions(command: string, record: (arg: string) => void): Option[] {
  return nativeFlags(command).map((flag) => {
    const placeholder = flag.native?.placeholder ?? 'value';
    const value =
      flag.arity === 'value' ? ` <${placeholder}>` : flag.arity === 'optional-value' ? ` [${placeholder}]` : '';
    const option = new Option(
      `${flag.short ? `${flag.short}, ` : ''}${flag.long}${value}`,
      flag.native?.help ?? '',
    ).helpGroup(KUBECTL_HELP_GROUP);
    if (flag.arity === 'boolean') return option;
    return option.argParser((given: string) => {
      record(`${flag.long}=${given}`);
      return given;
    });
  });
}

/** Commander's boolean kubectl options, by their event name (`option:prune`), for `record`. */
export function booleanKubectlFlags(command: string): string[] {
  return nativeFlags(command)
    .filter((flag) => flag.arity === 'boolean')
    .map((flag) => flag.long);
}

/**
 * The answer to an unknown option of `kguard apply`: kguard's own flags and the common kubectl
 * ones are listed by --help; any other kubectl apply flag goes after `--`, and the command that
 * does it is given in full. `known` tells kguard's options (and whether each takes a value).
 */
export function explainUnknownOption(
  commanderMessage: string,
  program: string,
  words: readonly string[],
  known: (name: string) => { takesValue: boolean } | undefined,
): string {
  const flag = /unknown option '([^']+)'/.exec(commanderMessage)?.[1];
  if (!flag) return commanderMessage;
  const suggestion = /\(Did you mean [^)]*\)/.exec(commanderMessage)?.[0];
  const head = `unknown option '${flag}'${suggestion ? ` ${suggestion}` : ''}`;
  const refusal = REFUSED_AFTER_DASH_DASH[splitFlag(flag)[0]];
  if (refusal) return `${head}: ${refusal}.`;
  const corrected = movedAfterDashDash(words, known);
  return (
    `${head}. kguard apply takes its own flags and kubectl's common ones (${program} apply --help lists them); ` +
    `any other kubectl apply flag goes after --:\n  ${[...program.split(' '), ...corrected].map(shellQuote).join(' ')}`
  );
}

/** The command line with every option `known` does not know (and the word it takes) moved after `--`. */
export function movedAfterDashDash(
  words: readonly string[],
  known: (name: string) => { takesValue: boolean } | undefined,
): string[] {
  const dashDash = words.indexOf('--');
  const before = dashDash === -1 ? words : words.slice(0, dashDash);
  const after = dashDash === -1 ? [] : words.slice(dashDash + 1);
  const kept: string[] = [];
  const moved: string[] = [];
  for (let index = 0; index < before.length; index += 1) {
    const word = before[index] as string;
    const next = before[index + 1];
    if (!word.startsWith('-') || word === '-') {
      kept.push(word);
      continue;
    }
    const [name, inline] = splitFlag(word);
    const exact = known(name);
    // A group of short flags (-Rf x) is commander's when its first letter is kguard's.
    const group = !exact && isShortGroup(name) ? known(name.slice(0, 2)) : undefined;
    const target = exact || group ? kept : moved;
    // A kubectl boolean takes a value only after `=` (pflag): `--openapi-patch false` means `=false`.
    const kubectlBoolean = !exact && !group && kubectlFlag(name)?.arity === 'boolean';
    if (kubectlBoolean && inline === undefined && next !== undefined && parseKubectlBool(next) !== undefined) {
      moved.push(`${name}=${next}`);
      index += 1;
      continue;
    }
    // kguard apply takes no words of its own before --: a word after an unknown flag is its value.
    const takesNext = exact
      ? exact.takesValue && inline === undefined
      : !kubectlBoolean && inline === undefined && next !== undefined && !next.startsWith('-');
    target.push(word);
    if (takesNext && next !== undefined) {
      target.push(next);
      index += 1;
    }
  }
  return [...kept, '--', ...moved, ...after];
}

/** `-lapp=web` or `-Rf`: one dash, then more than one letter. */
function isShortGroup(name: string): boolean {
  return /^-[a-zA-Z]./.test(name) && !name.startsWith('--');
}

/** kguard's own one-letter flags that take a value: pflag also reads them as `-o=json`, commander as `-o` `=json`. */
const SHORT_VALUE_FLAGS = new Set(['-f', '-k', '-n', '-o']);

/**
 * kubectl habits commander would misread, as kubectl's pflag reads them (up to `--`):
 * `-o=json` and `-n=shop` are `-o json` and `-n shop`; `-v=4`, `-v4` and `--v=4` are kubectl's log
 * level (klog's --v), not kguard's -v (--verbose): for apply it goes to kubectl apply (after `--`),
 * with a note; the run commands take no kubectl log level and say so. Pure.
 */
export function kubectlHabits(words: readonly string[]): { words: string[]; notes: string[] } {
  const dashDash = words.indexOf('--');
  const before = dashDash === -1 ? words : words.slice(0, dashDash);
  const after = dashDash === -1 ? [] : words.slice(dashDash + 1);
  const kept: string[] = [];
  const levels: string[] = [];
  const notes: string[] = [];
  for (const word of before) {
    const short = /^(-[a-zA-Z])=(.*)$/.exec(word);
    const level = /^(?:-v=?|--v=)(\d+)$/.exec(word);
    if (level) {
      levels.push(`--v=${level[1]}`);
      notes.push(
        words[0] === 'apply'
          ? `${word} is kubectl's log level: passed to kubectl apply as --v=${level[1]} (kguard's own -v, --verbose, lists every kubectl command it runs)`
          : `${word} is kubectl's log level, which kguard ${words[0] ?? ''} does not pass on; its own -v (--verbose) lists every kubectl command it runs`,
      );
    } else if (short && SHORT_VALUE_FLAGS.has(short[1]!)) kept.push(short[1]!, short[2]!);
    else kept.push(word);
  }
  const passed = words[0] === 'apply' ? levels : [];
  if (passed.length === 0 && dashDash === -1) return { words: kept, notes };
  return { words: [...kept, '--', ...passed, ...after], notes };
}
