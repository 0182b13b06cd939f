// `kguard completion bash|zsh`, loaded into the real shells: what Tab offers after each word.
import { execSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const KGUARD = fileURLToPath(new URL('../../bin/kguard', import.meta.url));
const has = (shell: string) => {
  try {
    execSync(`command -v ${shell}`, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// CI installs zsh and fish (.ci/run), so there these tests always run: a missing shell fails them.
const inCi = process.env.CI === 'true';
const hasZsh = inCi || has('zsh');
const hasFish = inCi || has('fish');

let dir: string;
let bashScript: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-completion-'));
  // A kubectl that knows two namespaces and two contexts, for the values kguard asks it for.
  await writeFile(
    join(dir, 'kubectl'),
    '#!/bin/sh\ncase "$*" in\n  "get namespaces -o name") printf "namespace/default\\nnamespace/shop\\n" ;;\n  "--context prod get namespaces -o name") printf "namespace/prod-only\\n" ;;\n  "config get-contexts -o name") printf "kind-dev\\nprod\\n" ;;\nesac\n',
  );
  await chmod(join(dir, 'kubectl'), 0o755);
  await writeFile(join(dir, 'web.yaml'), '');
  bashScript = (await execa(KGUARD, ['completion', 'bash'])).stdout;
  await writeFile(join(dir, 'kguard.bash'), bashScript);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What bash completes for the words typed so far (the last one is being completed). */
async function bashComplete(...words: string[]): Promise<string[]> {
  const script = `source ./kguard.bash; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _kguard; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = await execa('bash', ['-c', script], { cwd: dir, env: { PATH: `${dir}:${process.env.PATH ?? ''}` } });
  return result.stdout.split('\n').filter(Boolean);
}

describe('kguard completion bash', () => {
  it('registers for kguard and kubectl-rollout_guard', async () => {
    const result = await execa('bash', ['-c', 'source ./kguard.bash; complete -p kguard kubectl-rollout_guard'], {
      cwd: dir,
    });
    expect(result.stdout).toBe(
      'complete -o default -F _kguard kguard\ncomplete -o default -F _kguard kubectl-rollout_guard',
    );
  });

  it('completes commands, flags and flag values', async () => {
    expect(await bashComplete('kguard', 'ap')).toEqual(['apply']);
    expect(await bashComplete('kguard', 'apply', '--roll')).toEqual(['--rollback-timeout', '--rollback']);
    expect(await bashComplete('kguard', 'apply', '--rollback', 'f')).toEqual(['failed']);
    expect(await bashComplete('kguard', 'apply', '-o', '')).toEqual(['text', 'json']);
    expect(await bashComplete('kguard', 'apply', '--dry-run', '--keep-c')).toEqual(['--keep-created']);
    expect(await bashComplete('kguard', 'apply', '-f', 'we')).toEqual(['web.yaml']);
    expect(await bashComplete('kguard', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('asks kubectl for namespaces and contexts', async () => {
    expect(await bashComplete('kguard', 'apply', '-n', '')).toEqual(['default', 'shop']);
    expect(await bashComplete('kguard', 'apply', '--context', 'p')).toEqual(['prod']);
  });

  it('asks for the namespaces of the context typed earlier on the line', async () => {
    expect(await bashComplete('kguard', 'apply', '--context', 'prod', '-n', '')).toEqual(['prod-only']);
    // bash splits --context=prod at the =.
    expect(await bashComplete('kguard', 'apply', '--context', '=', 'prod', '--namespace', '')).toEqual(['prod-only']);
  });

  it('leaves the words after -- to the default completion', async () => {
    expect(await bashComplete('kguard', 'apply', '-f', 'web.yaml', '--', '--')).toEqual([]);
  });
});

describe('kguard completion zsh', () => {
  it.skipIf(!hasZsh)('loads into zsh and registers _kguard for kguard and kubectl-rollout_guard', async () => {
    await writeFile(join(dir, '_kguard'), (await execa(KGUARD, ['completion', 'zsh'])).stdout);
    expect((await execa('zsh', ['-n', '_kguard'], { cwd: dir, reject: false })).exitCode).toBe(0);
    const result = await execa(
      'zsh',
      [
        '-fc',
        'autoload -Uz compinit && compinit -u -d ./zcompdump; source ./_kguard; print -r -- $_comps[kguard] $_comps[kubectl-rollout_guard]',
      ],
      { cwd: dir },
    );
    expect(result.stdout).toBe('_kguard _kguard');
  });
});

/** What fish offers for the command line so far (its last word is being completed), candidates only. */
async function fishComplete(line: string): Promise<string[]> {
  const result = await execa(
    'fish',
    ['--no-config', '-c', `source ./kguard.fish; complete -C ${JSON.stringify(line)}`],
    {
      cwd: dir,
      env: { PATH: `${dir}:${process.env.PATH ?? ''}` },
    },
  );
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((candidate) => candidate.split('\t')[0]!);
}

describe('kguard completion fish', () => {
  beforeAll(async () => {
    await writeFile(join(dir, 'kguard.fish'), (await execa(KGUARD, ['completion', 'fish'])).stdout);
  });

  it.skipIf(!hasFish)('completes commands, flags, their values and files', async () => {
    expect(await fishComplete('kguard ap')).toEqual(['apply']);
    expect(await fishComplete('kguard apply --roll')).toEqual(
      expect.arrayContaining(['--rollback', '--rollback-timeout']),
    );
    expect(await fishComplete('kguard apply --rollback f')).toEqual(['failed']);
    expect(await fishComplete('kguard apply -f we')).toEqual(['web.yaml']);
    expect(await fishComplete('kguard apply --pru')).toEqual(['--prune', '--prune-allowlist']);
    expect(await fishComplete('kguard completion ')).toEqual(['bash', 'zsh', 'fish'].sort());
    expect(await fishComplete('kubectl-rollout_guard status --con')).toEqual(['--context', '--contexts']);
  });

  it.skipIf(!hasFish)('asks kubectl for namespaces, of the context typed earlier on the line', async () => {
    expect(await fishComplete('kguard apply -n ')).toEqual(['default', 'shop']);
    expect(await fishComplete('kguard apply --context prod -n ')).toEqual(['prod-only']);
    expect(await fishComplete('kguard apply --context=prod --namespace ')).toEqual(['prod-only']);
    expect(await fishComplete('kguard apply --context p')).toEqual(['prod']);
  });

  it.skipIf(!hasFish)('leaves the words after -- to file completion', async () => {
    expect(await fishComplete('kguard apply -f web.yaml -- we')).toEqual(['web.yaml']);
  });
});

describe('kguard completion', () => {
  it('refuses a shell it has no script for, with exit 1', async () => {
    const result = await execa(KGUARD, ['completion', 'tcsh'], { reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.");
  });
});
