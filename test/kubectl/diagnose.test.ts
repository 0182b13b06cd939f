import { describe, expect, it } from 'vitest';
import { diagnoseKubectlFailure } from '../../src/kubectl/output/diagnose.js';
import { kubectlStderr } from '../fixtures/load.js';

describe('diagnoseKubectlFailure', () => {
  it('recognises an unreachable API server from what kubectl get printed', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: kubectlStderr('get-connection-refused'),
    });
    expect(failure.kind).toBe('unreachable');
    expect(failure.detail).toBe(
      'The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?',
    );
  });

  it('calls a refused apply unreachable, not invalid, although kubectl says "error validating"', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: kubectlStderr('apply-connection-refused'),
    });
    expect(failure.kind).toBe('unreachable');
  });

  it('recognises a kubeconfig without a current context', () => {
    expect(diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: kubectlStderr('no-context') }).kind).toBe(
      'no-context',
    );
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

  it('names an unknown context and says how to list the real ones', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: 'error: context "nope" does not exist\n',
    });
    expect(failure.kind).toBe('no-context');
    expect(failure.detail).toBe('context "nope" does not exist');
    expect(failure.nextStep).toMatch(/no context named nope.*kubectl config get-contexts/);
  });

  it('says a --kubeconfig file is missing instead of pointing at a context', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: 'error: stat /k/nope: no such file or directory\n',
    });
    expect(failure.nextStep).toMatch(/kubeconfig file \/k\/nope does not exist/);
  });

  it('says to create a missing namespace', () => {
    const stderr = 'Error from server (NotFound): error when creating "cm.yaml": namespaces "shop" not found\n';
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr });
    expect(failure.kind).toBe('not-found');
    expect(failure.nextStep).toMatch(/create the namespace shop first \(kubectl create namespace shop\)/);
  });

  it('names the unknown kind, its version and file, and says to install the CRD', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: kubectlStderr('apply-unknown-kind') });
    expect(failure.kind).toBe('unknown-kind');
    expect(failure.detail).toBe(
      'the cluster does not know kind Widget in version example.com/v1 (crd.yaml, Widget "a")',
    );
    expect(failure.nextStep).toMatch(/install the CustomResourceDefinition that defines Widget/);
  });

  it("strips the klog header from a kustomize error and unwraps kubectl's structured exit line", () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: kubectlStderr('kustomize-missing-resource'),
    });
    expect(failure.detail).toMatch(
      /^accumulating resources: accumulation err='accumulating resources from 'missing.yaml'/,
    );
    expect(failure.detail).not.toMatch(/E1203|run\.go|command failed/);
  });

  it('never advises a flag kguard does not have', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: 'error: context deadline exceeded\n' });
    expect(failure.kind).toBe('timeout');
    expect(failure.nextStep).not.toContain('--request-timeout');
  });

  it('quotes an unknown kubectl error instead of pointing at an error "above" that is not printed', () => {
    const failure = diagnoseKubectlFailure({ exitCode: 1, stdout: '', stderr: 'error: something new\n' });
    expect(failure.kind).toBe('other');
    expect(failure.detail).toBe('something new');
    expect(failure.nextStep).not.toMatch(/error above/);
  });
});

describe('a long list of errors (#45)', () => {
  const notFound = (index: number) => `Error from server (NotFound): configmaps "settings-${index}" not found`;

  it("5,000 NotFound errors in kubectl's aggregate ([a, b, …]) are the first three and a count, not a 480 KB line", () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: `error: [${Array.from({ length: 5000 }, (_, index) => notFound(index)).join(', ')}]\n`,
    });
    expect(failure.detail).toBe(`${notFound(0)}; ${notFound(1)}; ${notFound(2)}; and 4997 more errors like these`);
  });

  it('5,000 of them one per line, quoted once each at most: the last ones and a count', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: Array.from({ length: 5000 }, (_, index) => notFound(index)).join('\n'),
    });
    expect(failure.detail.length).toBeLessThan(400);
  });

  it('the same line printed twice (a credential plugin, once per request) is quoted once', () => {
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: 'the SSO session expired\nthe SSO session expired\nerror: something else\n',
    });
    expect(failure.detail).toBe('the SSO session expired error: something else');
  });
});
