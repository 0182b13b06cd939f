import { describe, expect, it } from 'vitest';
import { pinnedArgs, targetOf } from '../../src/kubectl/target.js';

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
