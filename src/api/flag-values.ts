// The types every edge takes, derived from the flag table (flags.ts), and the readers that turn
// the command line's values or the library's fields into typed options, each by its row's kind.
import type { AnalysisConfig } from '../model/analysis.js';
import type { HealthRules } from '../model/health-rules.js';
import { APPLY_FLAGS } from './flags.js';
import { attributeOf, type Flag, type Kind, longFlag, optionOf } from './flag-kinds.js';

export type { Duration } from './flag-kinds.js';

type Row = (typeof APPLY_FLAGS)[number];
type CliOf<R> = R extends { kind: Kind<infer Cli, infer _Library, infer _Typed> } ? Cli : never;
type LibraryOf<R> = R extends { kind: Kind<infer _Cli, infer Library, infer _Typed> } ? Library : never;
type TypedOf<R> = R extends { kind: Kind<infer _Cli, infer _Library, infer Typed> } ? Exclude<Typed, undefined> : never;
type OptionOf<R> = R extends { option: infer O }
  ? O extends string
    ? O
    : never
  : R extends { library: unknown }
    ? never
    : R extends { name: infer N extends string }
      ? N
      : never;
type AttributeOf<R> = R extends { attribute: infer A extends string }
  ? A
  : R extends { name: infer N extends string }
    ? N
    : never;

/** The command line's values as commander gives them: strings, lists for repeatable flags, booleans for switches. */
export type CliValues = { [R in Row as AttributeOf<R>]?: CliOf<R> };

/** The library's fields of every flag with `library` in `Where` (apply(): run; applyFleet(): run and fleet). */
export type LibraryFlags<Where extends 'run' | 'fleet'> = {
  [R in Row as (R extends { library: infer L } ? L : 'run') extends Where ? R['name'] : never]?: LibraryOf<R>;
};

/** A guarded apply as typed values, from either edge: durations in milliseconds, files not yet read. */
export type TypedFlags = { [R in Row as OptionOf<R>]?: TypedOf<R> };

/** The command line's values, each read by its row, as typed options (every row with an option). */
export function typedFromCli(values: CliValues): TypedFlags {
  const typed: Record<string, unknown> = {};
  for (const row of APPLY_FLAGS as readonly Flag[]) {
    const option = optionOf(row);
    const value = (values as Record<string, unknown>)[attributeOf(row)];
    if (option !== undefined && value !== undefined) typed[option] = row.kind.fromCli(value as never, longFlag(row));
  }
  return typed as TypedFlags;
}

/** The library's fields, each read by its row, as typed options (the rows the library takes). */
export function typedFromLibrary(input: LibraryFlags<'run'>): TypedFlags {
  const typed: Record<string, unknown> = {};
  for (const row of APPLY_FLAGS as readonly Flag[]) {
    const option = optionOf(row);
    const value = (input as Record<string, unknown>)[row.name];
    if (row.library === undefined && option !== undefined && value !== undefined)
      typed[option] = row.kind.fromLibrary(value as never, row.name);
  }
  return typed as TypedFlags;
}

/** The fleet's fields (contexts, canary, fleetFile, fleetRollback) from the command line, read by their rows. */
export function fleetFromCli(values: CliValues): LibraryFlags<'fleet'> {
  const fleet: Record<string, unknown> = {};
  for (const row of APPLY_FLAGS as readonly Flag[]) {
    const value = (values as Record<string, unknown>)[attributeOf(row)];
    if (row.library === 'fleet' && value !== undefined)
      fleet[row.name] = row.kind.fromCli(value as never, longFlag(row));
  }
  return fleet as LibraryFlags<'fleet'>;
}

/** What reaches resolveApplyOptions beside the flags: the files the edge read, and kubectl's own flags. */
export interface GuardInput extends Omit<TypedFlags, 'filenames'> {
  filenames: readonly string[];
  /** Health rules for custom resources over the built-in table (--health-rules FILE, read and checked at the edge). */
  healthRules?: HealthRules;
  /** Prometheus queries that judge the release (--analysis FILE, read and its queries checked at the edge). */
  analysis?: AnalysisConfig;
  /** More `kubectl apply` flags, as after `--` on the command line. */
  kubectlArgs?: readonly string[];
}
