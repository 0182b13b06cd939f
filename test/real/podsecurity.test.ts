// A PodSecurity refusal on a real API server (#45): the PodSecurity admission plugin (on by default
// in kube-apiserver) refuses every pod of a template that violates the namespace's enforced level.
// The refusal is final: kguard fails the rollout at once, names the policy, and does not send the
// user to a ResourceQuota the namespace does not have (before: a 30 s grace, then
// `kubectl describe resourcequota`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { realSandbox, type RealSandbox } from './harness.js';

let env: RealSandbox;
beforeAll(async () => {
  env = await realSandbox('real-podsecurity');
  const labelled = await env.kubectl([
    'label',
    'namespace',
    env.namespace,
    'pod-security.kubernetes.io/enforce=restricted',
    '--overwrite',
  ]);
  expect(labelled.exitCode, labelled.stderr).toBe(0);
});
afterAll(async () => {
  await env?.stop();
});

describe('a Deployment whose pod template violates the namespace’s PodSecurity level', () => {
  it('fails at once with the policy named, no quota step, and is restored (exit 3)', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.27'));
    const run = await env.kguard([
      'apply',
      '-f',
      file,
      '-n',
      env.namespace,
      '--timeout',
      '90s',
      '--poll-interval',
      '1s',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain(
      'the rollout cannot create its pods: the namespace\'s PodSecurity policy "restricted:latest" refuses their template',
    );
    expect(run.output).toContain('meet the "restricted:latest" Pod Security Standard');
    expect(run.output).not.toContain('resourcequota');
    expect(await env.get('deployment', 'web')).toBeUndefined();
  });
});
