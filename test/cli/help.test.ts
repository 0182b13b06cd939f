// --help says the exit codes and the environment; the codes are the README's table, docs/output.md's and errors.ts's.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { applyHelp, EXIT_CODES } from '../../src/cli/help.js';
import { ExitCode } from '../../src/errors.js';

describe('--help', () => {
  it('lists the same exit codes as the README table, docs/output.md and errors.ts (70: internal error)', async () => {
    /** The codes of the table under a page's `## Exit codes` heading, in order. */
    const tableCodes = async (page: string) => {
      const text = await readFile(new URL(`../../${page}`, import.meta.url), 'utf8');
      const start = text.indexOf('## Exit codes');
      const table = text.slice(start, text.indexOf('\n## ', start + 1));
      return [...table.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    };
    const helpCodes = EXIT_CODES.map(([code]) => code);
    expect(helpCodes).toEqual(await tableCodes('README.md'));
    expect(helpCodes).toEqual(await tableCodes('docs/output.md'));
    expect(helpCodes).toEqual([...Object.values(ExitCode)].sort((a, b) => a - b));
  });

  it('shows examples, the exit codes and the environment variables kguard reads', () => {
    const text = applyHelp('kubectl rollout-guard');
    expect(text).toContain('  kubectl rollout-guard apply -f k8s/ -l app=web --prune');
    expect(text).toMatch(/Exit codes:\n {2}0 {3}healthy/);
    for (const name of ['KGUARD_KUBECTL', 'KUBECONFIG', 'GITHUB_ACTIONS', 'GITLAB_CI', 'NO_COLOR'])
      expect(text).toContain(name);
  });
});
