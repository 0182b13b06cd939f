// The flag table (src/api/flags.ts): every option of `kguard apply` is a library option, or is
// named as the CLI's alone with the reason; and a flag read from the command line and the same
// field given to the library make the same options.
import { describe, expect, it } from 'vitest';
import {
  CONTEXTS,
  DRY_RUN,
  DURATION,
  type Flag,
  ROLLBACK,
  RUN_LABEL,
  SWITCH,
  TEXT,
  TEXTS,
} from '../../src/api/flag-kinds.js';
import { typedFromCli, typedFromLibrary } from '../../src/api/flag-values.js';
import { APPLY_FLAGS } from '../../src/api/flags.js';
import { resolveApplyOptions } from '../../src/api/options.js';
import { KUBECTL_HELP_GROUP } from '../../src/cli/kubectl-options.js';
import { buildProgram } from '../../src/cli/program.js';
import { toApplyOptions } from '../../src/cli/options.js';
import { InputError } from '../../src/errors.js';
import { apply } from '../../src/index.js';

const rows: readonly Flag[] = APPLY_FLAGS;

function applyCommand() {
  const handlers = {
    apply: async () => undefined,
    journal: async () => undefined,
    history: async () => undefined,
    completion: async () => undefined,
    kubectlFlag: () => undefined,
  };
  const program = buildProgram('kguard', [], handlers);
  const apply = program.commands.find((command) => command.name() === 'apply');
  if (!apply) throw new Error('no apply command');
  return apply;
}

/** A value of the row's kind as typed on the command line, and the same as a library field. */
function sample(row: Flag): { cli: unknown; library: unknown } {
  if (row.choices) return { cli: row.choices[1], library: row.choices[1] };
  const kind: unknown = row.kind;
  if (kind === SWITCH) return { cli: true, library: true };
  if (kind === TEXT || kind === RUN_LABEL) return { cli: 'shop', library: 'shop' };
  if (kind === TEXTS) return { cli: ['a.yaml', 'b.yaml'], library: ['a.yaml', 'b.yaml'] };
  if (kind === DURATION) return { cli: '90s', library: 90_000 };
  if (kind === DRY_RUN) return { cli: 'client', library: 'client' };
  if (kind === ROLLBACK) return { cli: 'failed', library: 'failed' };
  if (kind === CONTEXTS) return { cli: 'a,b', library: ['a', 'b'] };
  return { cli: '3', library: 3 }; // a whole number
}

describe('the flag table', () => {
  it('names every option of kguard apply: a library field, the fleet, an alias, or the CLI alone with its reason', () => {
    const unnamed: string[] = [];
    for (const option of applyCommand().options) {
      // kubectl's own flags reach the library as kubectlArgs, as after -- on the command line.
      if (option.helpGroupHeading === KUBECTL_HELP_GROUP) continue;
      const row = rows.find((candidate) => candidate.syntax === option.flags);
      const library = row?.library;
      const named =
        row !== undefined &&
        (library === undefined ||
          library === 'fleet' ||
          ('alias' in library && library.alias !== '') ||
          ('cliOnly' in library && library.cliOnly.length > 10));
      if (!named) unnamed.push(option.flags);
    }
    expect(unnamed).toEqual([]);
    expect(
      rows.filter((row) => typeof row.library === 'object' && 'cliOnly' in row.library).map((row) => row.name),
    ).toEqual(['output', 'junit', 'dotenv', 'events', 'diff', 'confirm', 'yes', 'verbose', 'quiet']);
  });

  it('takes the seven options the library lacked before it: the health rules, the image check, the graces, the request timeout, the run label', () => {
    const library = new Set(rows.filter((row) => row.library === undefined).map((row) => row.name));
    for (const name of [
      'healthRules',
      'imageCheck',
      'insecureRegistries',
      'readinessGrace',
      'statusGrace',
      'requestTimeout',
      'runLabel',
    ])
      expect(library).toContain(name);
  });

  it('reads each flag the library takes from the command line and from the library into the same typed option', () => {
    for (const row of rows.filter((candidate) => candidate.library === undefined && candidate.option !== false)) {
      const { cli, library } = sample(row);
      const fromCli = typedFromCli({ [row.attribute ?? row.name]: cli });
      expect(Object.keys(fromCli), row.syntax).toHaveLength(1);
      expect(typedFromLibrary({ [row.name]: library }), row.syntax).toEqual(fromCli);
    }
  });

  it('resolves the same options from `kguard apply` flags and from the library fields they name', () => {
    const cli = toApplyOptions(
      {
        filename: ['web.yaml'],
        timeout: '2m',
        pollInterval: '2s',
        rollback: 'failed',
        output: 'text',
        requestTimeout: '45s',
        readinessGrace: '1m',
        statusGrace: '10s',
        imageCheck: 'off',
        insecureRegistry: ['registry.local:5000'],
        runLabel: ' deploy-7 ',
        history: '3',
      },
      [],
    );
    const library = resolveApplyOptions(
      typedFromLibrary({
        files: ['web.yaml'],
        timeout: '2m',
        rollback: 'failed',
        requestTimeout: 45_000,
        readinessGrace: '1m',
        statusGrace: 10_000,
        imageCheck: 'off',
        insecureRegistries: ['registry.local:5000'],
        runLabel: ' deploy-7 ',
        history: 3,
      }) as Parameters<typeof resolveApplyOptions>[0],
    );
    expect(library).toEqual(cli);
    expect(library).toMatchObject({
      requestTimeoutMs: 45_000,
      readinessGraceMs: 60_000,
      statusGraceMs: 10_000,
      imageCheck: 'off',
      insecureRegistries: ['registry.local:5000'],
      runLabel: 'deploy-7',
    });
  });

  it('refuses a bad value the same way from either edge, naming the flag as its user wrote it', () => {
    expect(() => typedFromCli({ runLabel: '' })).toThrow(InputError);
    expect(() => typedFromLibrary({ runLabel: '' })).toThrow(/--run-label "": give one line/);
    expect(() => typedFromCli({ statusGrace: 'soon' })).toThrow(/--status-grace/);
    expect(() => typedFromLibrary({ statusGrace: 'soon' })).toThrow(/statusGrace/);
  });

  it("reaches apply()'s options: a health rules file is read as --health-rules reads it, a request timeout checked as --request-timeout", async () => {
    await expect(apply({ files: ['web.yaml'], healthRules: '/nonexistent/rules.yaml' })).rejects.toThrow(
      /--health-rules \/nonexistent\/rules.yaml: cannot read it \(ENOENT\)/,
    );
    await expect(apply({ files: ['web.yaml'], requestTimeout: 1500 })).rejects.toThrow(
      /--request-timeout "1.5s" is not a whole number of seconds/,
    );
    await expect(apply({ files: ['web.yaml'], runLabel: 'two\nlines' })).rejects.toBeInstanceOf(InputError);
  });
});
