import { describe, expect, it } from 'vitest';
import { diagnoseKubectlFailure } from '../../src/kubectl/diagnose.js';
import { kubectlStderr } from '../fixtures/load.js';

describe('diagnoseKubectlFailure', () => {
  it('recognises an unreachable API server from what kubectl get printed', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: kubectlStderr('get-connection-refused') });
    expect(failure.kind).toBe('unreachable');
    expect(failure.detail).toBe('The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?');
  });

  it('calls a refused apply unreachable, not invalid, although kubectl says "error validating"', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: kubectlStderr('apply-connection-refused') });
    expect(failure.kind).toBe('unreachable');
  });

  it('recognises a kubeconfig without a current context', () => {
    expect(diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: kubectlStderr('no-context') }).kind).toBe('no-context');
  });

  it('recognises an RBAC refusal', () => {
    const stderr =
      'Error from server (Forbidden): deployments.apps "web" is forbidden: User "system:anonymous" cannot patch resource "deployments" in API group "apps" in the namespace "default"\n';
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr });
    expect(failure.kind).toBe('forbidden');
    expect(failure.nextStep).toMatch(/RBAC/);
  });

  it('says kubectl is missing when it cannot be started', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 127, stdout: '', stderr: '', spawnError: 'ENOENT' });
    expect(failure.kind).toBe('missing-binary');
    expect(failure.nextStep).toMatch(/install kubectl/);
  });
});
