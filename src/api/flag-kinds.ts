// How a flag's value is read, from the command line and from the library, into the typed option;
// and the shape of a row of the flag table (flags.ts).
import { parseDuration } from '../duration.js';
import { InputError } from '../errors.js';
import type { RollbackMode } from '../model/result.js';

/** A duration: milliseconds, or a Go-style string as on the command line ("90s", "5m", "1m30s"). */
export type Duration = number | string;

/**
 * How a flag's value is read: from the command line (what commander gives: a string, the
 * strings of a repeatable flag, true for a switch) and from the library (a typed value), into the
 * typed option. `said` is the flag as its user wrote it (`--lock-timeout`, or `lockTimeout`).
 */
export interface Kind<Cli, Library, Typed> {
  fromCli(value: Cli, said: string): Typed;
  fromLibrary(value: Library, said: string): Typed;
}

const same = <T>(value: T): T => value;

export const SWITCH: Kind<boolean, boolean, boolean> = { fromCli: same, fromLibrary: same };
export const TEXT: Kind<string, string, string> = { fromCli: same, fromLibrary: same };
export const TEXTS: Kind<string[], readonly string[], string[]> = { fromCli: same, fromLibrary: (value) => [...value] };
export const DURATION: Kind<string, Duration, number> = {
  fromCli: parseDuration,
  fromLibrary: (value, said) => (typeof value === 'string' ? parseDuration(value, said) : value),
};

/** A whole number: the command line's text is checked here; the library's number by resolveApplyOptions. */
export function wholeNumber(what: (said: string) => string): Kind<string, number, number> {
  return {
    fromCli: (value, said) => {
      if (!/^\d+$/.test(value.trim()))
        throw new InputError(`${said} ${JSON.stringify(value)} is not a number of ${what(said)}`);
      return Number(value.trim());
    },
    fromLibrary: same,
  };
}

/** One of a few words; commander checks the command line's against the row's choices. */
export function oneOf<T extends string>(): Kind<string, T, T> {
  return { fromCli: (value) => value as T, fromLibrary: same };
}

/** --contexts a,b,c on the command line; an array in the library. */
export const CONTEXTS: Kind<string, readonly string[], string[]> = {
  fromCli: (value) => value.split(','),
  fromLibrary: (value) => [...value],
};

/** --dry-run alone is the server's; `none` is no preview. */
export const DRY_RUN: Kind<boolean | string, 'client' | 'server', 'client' | 'server' | undefined> = {
  fromCli: (value) => {
    if (value === false || value === 'none') return undefined;
    if (value === true || value === 'server') return 'server';
    if (value === 'client') return 'client';
    throw new InputError(`--dry-run=${value} is not one of none, client, server.`);
  },
  fromLibrary: same,
};

/** --rollback MODE, and --no-rollback (commander's false). */
export const ROLLBACK: Kind<boolean | string, RollbackMode, RollbackMode> = {
  fromCli: (value) => {
    if (value === false) return 'none';
    if (value === true) return 'all';
    if (value === 'all' || value === 'failed' || value === 'none') return value;
    throw new InputError(`--rollback ${JSON.stringify(value)} is not one of all, failed, none.`);
  },
  fromLibrary: same,
};

/** --run-label: one line of printable text, at most 253 characters (it is written in the journal and on each event). */
export function runLabelOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const label = text.trim();
  if (label === '' || label.length > 253 || /[\u0000-\u001f\u007f]/.test(label))
    throw new InputError(
      `--run-label ${JSON.stringify(text)}: give one line of 1 to 253 printable characters, e.g. --run-label "$SR_DEPLOYMENT_ID" or --run-label "$GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT".`,
    );
  return label;
}

export const RUN_LABEL: Kind<string, string, string | undefined> = { fromCli: runLabelOf, fromLibrary: runLabelOf };

/**
 * One flag. `name` is its field in the library and, unless `attribute` says otherwise,
 * commander's name for its value.
 */
export interface Flag {
  name: string;
  /** As commander takes it and --help shows it: `-f, --filename <file|dir|url|->`. */
  syntax: string;
  help: string;
  kind: Kind<never, never, unknown>;
  /**
   * Where the library takes it: absent, in `apply()` and `applyFleet()`; `fleet`, in
   * `applyFleet()` only (it feeds the fleet's plan); under another row's field (alias); or not at
   * all, with the reason (the CLI entry reads it).
   */
  library?: 'fleet' | { alias: string } | { cliOnly: string };
  /** commander's name for the value, when not `name` (`--filename` for `files`). */
  attribute?: string;
  /**
   * The typed option (GuardInput) it sets: by default its name, for a row the library takes;
   * false when the edge reads it itself (a file).
   */
  option?: string | false;
  /** What commander gives when the flag is absent, shown by --help. */
  default?: string | readonly string[];
  choices?: readonly string[];
  /** Repeatable: each one adds to the list. */
  repeatable?: boolean;
  /** Accepted, not shown by --help (an old name). */
  hidden?: boolean;
}

export const cliOnly = (reason: string) => ({ cliOnly: reason });

/** The flag as a user of the command line writes it: `--lock-timeout`. */
export function longFlag(row: Pick<Flag, 'syntax'>): string {
  return /--[a-z][-a-z]*/.exec(row.syntax)?.[0] ?? row.syntax;
}

/** commander's name for the row's value: `--lock-timeout` → lockTimeout, `--no-journal` → journal. */
export function attributeOf(row: Flag): string {
  return row.attribute ?? row.name;
}

/** The typed option the row sets, if any. */
export function optionOf(row: Flag): string | undefined {
  if (row.option === false) return undefined;
  return row.option ?? (row.library === undefined ? row.name : undefined);
}
