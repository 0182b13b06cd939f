// `kubectl rollout-guard <TAB>`: the candidates kubectl_complete-rollout_guard answers, in cobra's
// protocol, from the same program as the shell scripts.
import { describe, expect, it } from 'vitest';
import { completeWords, completionOutput, DIRECTIVE } from '../../src/cli/completion/complete-words.js';
import { completionSpec } from '../../src/cli/completion/completion-spec.js';
import { buildProgram } from '../../src/cli/program.js';

const spec = completionSpec(
  buildProgram('kubectl rollout-guard', [], {
    apply: async () => {},
    journal: async () => {},
    history: async () => {},
    completion: async () => {},
    kubectlFlag: () => {},
  }),
);
const asked: Array<[string, string[]]> = [];
const list = (kind: 'namespaces' | 'contexts', contextArgs: string[]) => {
  asked.push([kind, contextArgs]);
  return kind === 'contexts'
    ? ['kind-dev', 'prod']
    : contextArgs.includes('prod')
      ? ['prod-only']
      : ['default', 'shop'];
};
const values = (...words: string[]) => completeWords(spec, words, list).candidates.map((candidate) => candidate.value);

describe('completeWords', () => {
  it('completes the commands, with their descriptions, and no file names', () => {
    const completion = completeWords(spec, ['ap'], list);
    expect(completion).toEqual({
      candidates: [{ value: 'apply', description: expect.stringMatching(/^apply manifests/) }],
      directive: DIRECTIVE.noFileComp,
    });
    expect(values('')).toEqual(
      expect.arrayContaining(['apply', 'status', 'rollback', 'history', 'undo', 'completion', 'version', 'help']),
    );
  });

  it("completes a command's flags, kubectl's native ones included", () => {
    expect(values('apply', '--roll')).toEqual(['--rollback-timeout', '--rollback']);
    expect(values('apply', '--pru')).toEqual(['--prune', '--prune-allowlist']);
    expect(values('status', '--to')).toEqual(['--token']);
  });

  it("completes a flag's value: choices, kubectl's namespaces of the context typed earlier, files left to the shell", () => {
    expect(values('apply', '--rollback', 'f')).toEqual(['failed']);
    expect(values('apply', '-n', '')).toEqual(['default', 'shop']);
    expect(values('apply', '--context', 'prod', '-n', '')).toEqual(['prod-only']);
    expect(values('apply', '--context=prod', '--namespace', 'p')).toEqual(['prod-only']);
    expect(asked.at(-1)).toEqual(['namespaces', ['--context', 'prod']]);
    expect(values('apply', '--context', 'p')).toEqual(['prod']);
    expect(completeWords(spec, ['apply', '-f', 'we'], list)).toEqual({ candidates: [], directive: DIRECTIVE.default });
    expect(completeWords(spec, ['apply', '-f', 'x.yaml', '--', '--'], list)).toEqual({
      candidates: [],
      directive: DIRECTIVE.default,
    });
  });

  it("writes cobra's protocol: value, tab, description; then the directive", () => {
    expect(
      completionOutput({
        candidates: [{ value: 'apply', description: 'apply  manifests' }, { value: 'x' }],
        directive: 4,
      }),
    ).toBe('apply\tapply manifests\nx\n:4\n');
  });
});
