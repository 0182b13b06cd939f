// kguard's table of kubectl flags (src/kubectl/flags.ts) against the kubectl on PATH: every flag
// kguard sorts or takes natively exists in `kubectl apply --help` or `kubectl options`, with the
// same shorthand and the same kind (boolean or value), and every option of `kguard apply` that
// shares a name with a kubectl flag either means what kubectl means or is a known exception.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { KUBECTL_FLAGS, NOT_SORTED } from '../../src/kubectl/flags.js';

interface HelpFlag {
  long: string;
  short?: string;
  boolean: boolean;
  /** kubectl apply's own (apply --help) or global (kubectl options). */
  scope: 'apply' | 'global';
}

/** `    -l, --selector='':` and `    --prune=false:` lines of kubectl's help. */
function helpFlags(text: string, scope: HelpFlag['scope']): HelpFlag[] {
  return [...text.matchAll(/^\s+(?:(-\w), )?(--[\w-]+)=(.*):$/gm)].map((match) => ({
    short: match[1],
    long: match[2] as string,
    boolean: /^(true|false)$/.test(match[3] as string),
    scope,
  }));
}

const kubectl = process.env.KGUARD_KUBECTL || 'kubectl';
const help = [
  ...helpFlags(execFileSync(kubectl, ['apply', '--help'], { encoding: 'utf8' }), 'apply'),
  ...helpFlags(execFileSync(kubectl, ['options'], { encoding: 'utf8' }), 'global'),
];
const byLong = new Map(help.map((flag) => [flag.long, flag]));
/** The minor version of that kubectl (`npm run kubectl-versions` runs this file with others). */
const minor = Number(
  (
    JSON.parse(execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8' })) as {
      clientVersion: { minor: string };
    }
  ).clientVersion.minor.replace(/\D.*$/, ''),
);

// kguard apply options named like kubectl flags that mean something else, on purpose (README).
const KGUARD_MEANING: Record<string, string> = {
  '--timeout': "kguard's rollout deadline; kubectl's delete --timeout goes after --",
  '--output': "kguard's report format; kguard reads kubectl's output itself",
  '--dry-run': 'a kguard preview, which also runs kubectl apply --dry-run',
  '--request-timeout': 'passed to every kubectl call as kubectl --request-timeout, whole seconds',
};

describe("kguard's kubectl flag table", () => {
  it('reads a plausible number of flags from the kubectl on PATH', () => {
    expect(help.filter((flag) => flag.scope === 'apply').length).toBeGreaterThan(20);
    expect(help.filter((flag) => flag.scope === 'global').length).toBeGreaterThan(20);
  });

  it.each(KUBECTL_FLAGS.map((flag) => [flag.long, flag] as const))(
    '%s is a kubectl flag with the same shorthand, kind and scope',
    (_long, flag) => {
      const real = byLong.get(flag.long);
      if (flag.since !== undefined && minor < flag.since) {
        expect(real, `${flag.long} came with kubectl 1.${flag.since}, yet kubectl 1.${minor} has it`).toBeUndefined();
        return;
      }
      expect(real, `${flag.long} is not in kubectl apply --help nor kubectl options`).toBeDefined();
      expect(real?.short).toBe(flag.short);
      expect(real?.boolean).toBe(flag.arity === 'boolean');
      expect(real?.scope).toBe(flag.scope);
    },
  );

  it('sorts every flag of kubectl apply --help and kubectl options, or says why not', () => {
    const known = new Set([...KUBECTL_FLAGS.map((flag) => flag.long), ...NOT_SORTED]);
    expect(help.map((flag) => flag.long).filter((long) => !known.has(long))).toEqual([]);
  });

  it("takes natively the flags issue 18 names, with kubectl's shorthands", () => {
    const native = KUBECTL_FLAGS.filter((flag) => flag.native).map((flag) =>
      [flag.short, flag.long].filter(Boolean).join(', '),
    );
    expect(native).toEqual(
      expect.arrayContaining([
        '-l, --selector',
        '--prune',
        '--prune-allowlist',
        '--force-conflicts',
        '--validate',
        '--overwrite',
        '--force',
        '--cascade',
        '--grace-period',
        '--as',
        '--as-group',
        '--user',
        '--cluster',
        '-s, --server',
        '--token',
        '--insecure-skip-tls-verify',
        '--certificate-authority',
      ]),
    );
  });

  it("gives kguard apply's options that share a kubectl name kubectl's shorthand and kind, or a reason they differ", () => {
    const program = buildProgram('kguard', [], {
      apply: async () => {},
      journal: async () => {},
      history: async () => {},
      completion: async () => {},
      kubectlFlag: () => {},
    });
    const apply = program.commands.find((command) => command.name() === 'apply')!;
    const differences = apply.options.flatMap((option) => {
      const real = option.long ? byLong.get(option.long) : undefined;
      if (!real || !option.long || KGUARD_MEANING[option.long]) return [];
      const boolean = !option.required && !option.optional;
      const problems = [
        ...(option.short !== undefined && option.short !== real.short
          ? [`shorthand ${option.short}, kubectl ${real.short ?? 'none'}`]
          : []),
        ...(boolean !== real.boolean
          ? [`${boolean ? 'boolean' : 'takes a value'}, kubectl's ${real.boolean ? 'is boolean' : 'takes a value'}`]
          : []),
      ];
      return problems.map((problem) => `${option.long}: ${problem}`);
    });
    expect(differences).toEqual([]);
  });

  it("keeps kubectl's -v (log level) after --, since -v before it is kguard's --verbose", () => {
    expect(byLong.get('--v')?.short).toBe('-v');
    expect(KUBECTL_FLAGS.find((flag) => flag.long === '--v')?.native).toBeUndefined();
  });
});
