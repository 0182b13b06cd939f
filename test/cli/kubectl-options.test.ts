// kubectl's flags on kguard's command line: the native ones parse as kubectl's pflag parses them
// and mean exactly what they mean after `--` (the same sorting, passthrough.ts); any other
// unknown option is answered with the command that puts it after `--`.
import { describe, expect, it } from 'vitest';
import {
  explainUnknownOption,
  movedAfterDashDash,
  takeKubectlFlags,
  kubectlHabits,
} from '../../src/cli/kubectl-options.js';
import { toApplyOptions, type RawApplyOptions } from '../../src/cli/options.js';
import { KUBECTL_FLAGS } from '../../src/kubectl/flags.js';
import { credentialValues } from '../../src/kubectl/passthrough.js';
import { maskCredentials } from '../../src/kubectl/process/trace.js';

const raw: RawApplyOptions = {
  filename: ['k8s/'],
  timeout: '5m',
  pollInterval: '2s',
  settle: '0s',
  rollback: 'all',
  output: 'text',
};

/** The options `kguard apply <words>` builds from its native kubectl flags. */
function nativeOptions(...words: string[]) {
  const { rest, kubectlArgs } = takeKubectlFlags(['apply', '-f', 'k8s/', ...words]);
  expect(rest).toEqual(['apply', '-f', 'k8s/']);
  return toApplyOptions(raw, kubectlArgs);
}

describe('takeKubectlFlags', () => {
  it('reads values as pflag does: next word, =value, and a shorthand with its value attached', () => {
    expect(
      takeKubectlFlags(['apply', '-l', 'app=web', '--as=bot', '-lapp=api', '-s', 'https://k:6443', '-f', 'x'])
        .kubectlArgs,
    ).toEqual(['-l', 'app=web', '--as=bot', '-l=app=api', '-s', 'https://k:6443']);
  });

  it('never gives a boolean or an optional value the next word', () => {
    const { rest, kubectlArgs } = takeKubectlFlags([
      'apply',
      '--prune',
      '-f',
      'x',
      '--validate',
      '-R',
      '--cascade=orphan',
      '--overwrite=false',
    ]);
    expect(kubectlArgs).toEqual(['--prune', '--validate', '--cascade=orphan', '--overwrite=false']);
    expect(rest).toEqual(['apply', '-f', 'x', '-R']);
  });

  it('leaves what follows -- alone, and apply flags to apply (the run commands take only who and where)', () => {
    expect(takeKubectlFlags(['apply', '-f', 'x', '--', '--prune', '-l', 'a=b'])).toEqual({
      rest: ['apply', '-f', 'x', '--', '--prune', '-l', 'a=b'],
      kubectlArgs: [],
    });
    expect(takeKubectlFlags(['status', '--as', 'bot', '--prune'])).toEqual({
      rest: ['status', '--prune'],
      kubectlArgs: ['--as', 'bot'],
    });
    expect(takeKubectlFlags(['completion', '--as', 'bot']).kubectlArgs).toEqual([]);
  });
});

describe("native kubectl flags mean kubectl's", () => {
  // For each native flag, a typical value as a user types it.
  const typed: Record<string, string[]> = {
    '--selector': ['-l', 'app=web'],
    '--prune': ['--prune'],
    '--prune-allowlist': ['--prune-allowlist', 'apps/v1/Deployment'],
    '--force-conflicts': ['--force-conflicts'],
    '--validate': ['--validate=warn'],
    '--overwrite': ['--overwrite=false'],
    '--force': ['--force'],
    '--cascade': ['--cascade=orphan'],
    '--grace-period': ['--grace-period', '30'],
    '--as': ['--as', 'deployer'],
    '--as-group': ['--as-group', 'ops'],
    '--user': ['--user', 'ci'],
    '--cluster': ['--cluster', 'prod'],
    '--server': ['-s', 'https://10.0.0.1:6443'],
    '--token': ['--token', 's3cr3t'],
    '--insecure-skip-tls-verify': ['--insecure-skip-tls-verify'],
    '--certificate-authority': ['--certificate-authority', '/etc/ca.pem'],
  };

  it('covers every native flag of the table', () => {
    expect(Object.keys(typed).sort()).toEqual(
      KUBECTL_FLAGS.filter((flag) => flag.native)
        .map((flag) => flag.long)
        .sort(),
    );
  });

  it.each(Object.entries(typed))('%s before -- is the same as after it', (_long, words) => {
    expect(nativeOptions(...words)).toEqual(toApplyOptions(raw, words));
  });

  it('sends who and where to every kubectl call, the selector to the reading and the apply, the rest to the apply', () => {
    const options = nativeOptions(
      '--as',
      'deployer',
      '-s',
      'https://k:6443',
      '-l',
      'app=web',
      '--prune',
      '--grace-period',
      '30',
      '--validate',
    );
    expect(options.connectionArgs).toEqual(['--as=deployer', '--server=https://k:6443']);
    expect(options.selectionArgs).toEqual(['-l=app=web']);
    expect(options.applyArgs).toEqual(['-l=app=web', '--prune', '--grace-period=30', '--validate=strict']);
  });

  it('refuses a boolean given a word that is not true or false, as kubectl does', () => {
    expect(() => nativeOptions('--prune=yes')).toThrow(/--prune is true or false/);
  });
});

describe('unknown options', () => {
  const known = (name: string) =>
    ({
      '-f': { takesValue: true },
      '--filename': { takesValue: true },
      '-R': { takesValue: false },
      '--timeout': { takesValue: true },
      '-l': { takesValue: true },
    })[name];

  it('moves each unknown option, and the word it takes, after --', () => {
    expect(
      movedAfterDashDash(
        ['apply', '-f', 'web.yaml', '--server-dry-run', '--timeout', '2m', '--field-selector', 'a=b', '-R'],
        known,
      ),
    ).toEqual([
      'apply',
      '-f',
      'web.yaml',
      '--timeout',
      '2m',
      '-R',
      '--',
      '--server-dry-run',
      '--field-selector',
      'a=b',
    ]);
  });

  it('keeps what already follows -- after the moved flags, and writes a kubectl boolean with its = ', () => {
    expect(movedAfterDashDash(['apply', '-f', '-', '--openapi-patch', 'false', '--', '--all'], known)).toEqual([
      'apply',
      '-f',
      '-',
      '--',
      '--openapi-patch=false',
      '--all',
    ]);
  });

  it('gives the exact corrected command, shell-quoted', () => {
    const text = explainUnknownOption(
      "unknown option '--bogus'",
      'kguard',
      ['apply', '-f', 'my app.yaml', '--bogus'],
      known,
    );
    expect(text).toBe(
      "unknown option '--bogus'. kguard apply takes its own flags and kubectl's common ones (kguard apply --help lists them); any other kubectl apply flag goes after --:\n  kguard apply -f 'my app.yaml' -- --bogus",
    );
    expect(
      explainUnknownOption("unknown option '--bogus'", 'kubectl rollout-guard', ['apply', '--bogus'], known),
    ).toMatch(/\n {2}kubectl rollout-guard apply -- --bogus$/);
  });

  it("says why for a flag kguard owns, and keeps commander's suggestion", () => {
    expect(explainUnknownOption("unknown option '--wait'", 'kguard', ['apply', '--wait'], known)).toBe(
      "unknown option '--wait': kguard waits for every changed object itself.",
    );
    expect(
      explainUnknownOption("unknown option '--prun'\n(Did you mean --prune?)", 'kguard', ['apply', '--prun'], known),
    ).toMatch(/^unknown option '--prun' \(Did you mean --prune\?\)\./);
  });
});

describe('credentials', () => {
  it('are found written either way, and masked in the argv kguard prints', () => {
    expect(credentialValues(['--token', 'abc', '--password=pw', '--as', 'x'])).toEqual(['abc', 'pw']);
    expect(maskCredentials(['--token', 'abc', '--token=def', '--as=x', 'get', 'pods'])).toEqual([
      '--token',
      '[redacted]',
      '--token=[redacted]',
      '--as=x',
      'get',
      'pods',
    ]);
  });
});

describe('kubectlHabits: kubectl habits commander would misread', () => {
  it('reads -o=json and -n=shop as -o json and -n shop, as pflag does', () => {
    expect(kubectlHabits(['apply', '-f=web.yaml', '-o=json', '-n=shop'])).toEqual({
      words: ['apply', '-f', 'web.yaml', '-o', 'json', '-n', 'shop'],
      notes: [],
    });
  });

  it("passes kubectl's log level (-v=4, -v6, --v=2) to kubectl apply after --, with a note, and keeps what was after --", () => {
    const { words, notes } = kubectlHabits(['apply', '-f', 'web.yaml', '-v=4', '-v6', '--', '--server-side']);
    expect(words).toEqual(['apply', '-f', 'web.yaml', '--', '--v=4', '--v=6', '--server-side']);
    expect(notes).toEqual([
      "-v=4 is kubectl's log level: passed to kubectl apply as --v=4 (kguard's own -v, --verbose, lists every kubectl command it runs)",
      "-v6 is kubectl's log level: passed to kubectl apply as --v=6 (kguard's own -v, --verbose, lists every kubectl command it runs)",
    ]);
  });

  it("leaves kguard's own -v, -l=app=web (a kubectl flag kguard already reads) and everything after -- alone", () => {
    expect(kubectlHabits(['apply', '-v', '-l=app=web', '--', '-o=yaml'])).toEqual({
      words: ['apply', '-v', '-l=app=web', '--', '-o=yaml'],
      notes: [],
    });
  });

  it('drops a kubectl log level on a run command, saying so', () => {
    const { words, notes } = kubectlHabits(['status', '-v=6']);
    expect(words).toEqual(['status']);
    expect(notes[0]).toMatch(/kguard status does not pass on/);
  });
});
