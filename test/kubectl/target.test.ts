import { describe, expect, it } from 'vitest';
import { notKubectl, pinnedArgs, targetOf } from '../../src/kubectl/target.js';

// What `kubectl config view --minify -o json` prints (kubectl 1.32 against kube-sim's kubeconfig).
const minified = JSON.stringify({
  kind: 'Config',
  apiVersion: 'v1',
  preferences: {},
  clusters: [{ name: 'prod-eu', cluster: { server: 'https://10.0.0.1:6443' } }],
  users: [{ name: 'deployer', user: { token: 'REDACTED' } }],
  contexts: [{ name: 'prod', context: { cluster: 'prod-eu', user: 'deployer', namespace: 'shop' } }],
  'current-context': 'prod',
});

describe('targetOf', () => {
  it('reads the current context, its cluster, user and namespace', () => {
    expect(targetOf(minified)).toEqual({ context: 'prod', cluster: 'prod-eu', user: 'deployer', namespace: 'shop' });
  });
  it('is undefined without a context (kubectl in a pod, with its service account)', () => {
    expect(targetOf(JSON.stringify({ kind: 'Config', contexts: null, 'current-context': '' }))).toBeUndefined();
    expect(targetOf('not json')).toBeUndefined();
  });
});

describe('pinnedArgs', () => {
  const target = { context: 'prod', cluster: 'prod-eu', user: 'deployer', namespace: 'shop' };
  it('pins context, cluster and user on every call', () => {
    expect(pinnedArgs([], target)).toEqual(['--context=prod', '--cluster=prod-eu', '--user=deployer']);
  });
  it('keeps what the command line names itself', () => {
    expect(pinnedArgs(['--context=staging', '--server=https://x', '--token=t'], target)).toEqual([
      '--context=staging',
      '--server=https://x',
      '--token=t',
    ]);
  });
});

describe('notKubectl', () => {
  const minified = JSON.stringify({ kind: 'Config', apiVersion: 'v1', 'current-context': 'ci', contexts: [] });

  it("takes kubectl's answers: a kubeconfig, or its own error line (no context, as kubectl 1.31 prints it)", () => {
    expect(notKubectl({ exitCode: 0, stdout: minified, stderr: '' }, '/opt/kubectl-1.31')).toBeUndefined();
    expect(
      notKubectl(
        { exitCode: 1, stdout: '', stderr: 'error: current-context must exist in order to minify\n' },
        'kubectl',
      ),
    ).toBeUndefined();
  });

  it('names a KGUARD_KUBECTL path that does not exist', () => {
    expect(notKubectl({ exitCode: -1, stdout: '', stderr: '', spawnError: 'ENOENT' }, '/nonexistent/kubectl')).toBe(
      'KGUARD_KUBECTL=/nonexistent/kubectl could not be started (ENOENT: no such file). Next: set KGUARD_KUBECTL to the path of kubectl (kubectl version --client), or unset it to use kubectl from PATH; nothing was applied.',
    );
  });

  it('says a binary that is not kubectl is not, instead of blaming the manifests', () => {
    expect(notKubectl({ exitCode: 1, stdout: '', stderr: '' }, '/bin/false')).toMatch(
      /^KGUARD_KUBECTL=\/bin\/false does not answer as kubectl does: `config view --minify -o json` exited 1 and printed nothing\./,
    );
    expect(
      notKubectl(
        {
          exitCode: 2,
          stdout: '',
          stderr: "python3: can't open file '/work/config': [Errno 2] No such file or directory\n",
        },
        'python3',
      ),
    ).toContain(`printed "python3: can't open file '/work/config'`);
    expect(notKubectl({ exitCode: 0, stdout: 'config', stderr: '' }, '/usr/bin/printf')).toContain('exited 0');
  });
});
