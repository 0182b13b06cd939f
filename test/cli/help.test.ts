// --help says the exit codes and the environment; the codes are the README's table and errors.ts's.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { applyHelp, EXIT_CODES } from '../../src/cli/help.js';
import { ExitCode } from '../../src/errors.js';

describe('--help', () => {
  it('lists the same exit codes as the README table and errors.ts (70: internal error)', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('### Exit codes'), readme.indexOf('### Output'));
    const readmeCodes = [...table.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const helpCodes = EXIT_CODES.map(([code]) => code);
    expect(helpCodes).toEqual(readmeCodes);
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
