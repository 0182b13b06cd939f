import { describe, expect, it } from 'vitest';
import { InputError, KubectlError } from '../../src/errors.js';
import { Kubectl } from '../../src/kubectl/client.js';
import type { Exec, ExecResult } from '../../src/kubectl/exec.js';
import { deployment, kubectlStderr } from '../fixtures/load.js';

function recordingExec(answer: (args: readonly string[]) => ExecResult) {
  const calls: Array<{ file: string; args: readonly string[]; input?: string }> = [];
  const exec: Exec = async (file, args, options) => {
    calls.push({ file, args, input: options?.input });
    return answer(args);
  };
  return { exec, calls };
}

const ok = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '' });
const connection = { binary: 'kubectl', context: 'prod', kubeconfig: '/k/config', requestTimeout: '30s' };

describe('Kubectl', () => {
  it('reads a namespace in one call with context, kubeconfig and a request timeout', async () => {
    const { exec, calls } = recordingExec(() => ok(JSON.stringify({ kind: 'List', items: [deployment('complete')] })));
    const snapshot = await new Kubectl(exec, connection).workloadState('shop');
    expect(snapshot.deployments.map((item) => item.metadata.name)).toEqual(['web']);
    expect(calls).toEqual([
      {
        file: 'kubectl',
        args: ['--kubeconfig=/k/config', '--context=prod', 'get', 'deployments.apps,replicasets.apps,pods', '-n', 'shop', '-o', 'json', '--request-timeout=30s'],
        input: undefined,
      },
    ]);
  });

  it('undoes to an exact revision', async () => {
    const { exec, calls } = recordingExec(() => ok('deployment.apps/web rolled back\n'));
    const result = await new Kubectl(exec, connection).rolloutUndo('shop', 'web', 6);
    expect(result).toEqual({ ok: true, output: 'deployment.apps/web rolled back' });
    expect(calls[0]?.args).toEqual(['--kubeconfig=/k/config', '--context=prod', 'rollout', 'undo', 'deployment/web', '-n', 'shop', '--to-revision=6']);
  });

  it('passes stdin manifests and flags through to kubectl apply', async () => {
    const { exec, calls } = recordingExec(() => ok('deployment.apps/web configured\n'));
    const applied = await new Kubectl(exec, { binary: 'kubectl', requestTimeout: '30s' }).apply({
      filenames: ['-'],
      recursive: false,
      stdin: 'apiVersion: v1',
      serverSide: true,
      fieldManager: 'ci',
      passThrough: ['--prune', '-l', 'app=web'],
    });
    expect(applied).toEqual([{ resource: 'deployment.apps', name: 'web', action: 'configured' }]);
    expect(calls[0]).toEqual({
      file: 'kubectl',
      args: ['apply', '-f', '-', '--server-side', '--field-manager=ci', '--prune', '-l', 'app=web'],
      input: 'apiVersion: v1',
    });
  });

  it('turns an unreachable cluster into a KubectlError that says what to do', async () => {
    const { exec } = recordingExec(() => ({ exitCode: 1, stdout: '', stderr: kubectlStderr('get-connection-refused') }));
    const failure = new Kubectl(exec, connection).workloadState('shop');
    await expect(failure).rejects.toBeInstanceOf(KubectlError);
    await expect(failure).rejects.toThrow(/was refused.*Next: check that the cluster is up/);
  });

  it('calls manifests the API server rejects in the dry run an input error', async () => {
    const stderr = 'The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`\n';
    const { exec } = recordingExec(() => ({ exitCode: 1, stdout: '', stderr }));
    const failure = new Kubectl(exec, connection).apply({ filenames: ['a.yaml'], recursive: false, serverSide: false, passThrough: [], dryRunServer: true });
    await expect(failure).rejects.toBeInstanceOf(InputError);
  });

  it('quotes manual commands so they can be pasted into a shell', () => {
    const kubectl = new Kubectl(recordingExec(() => ok('')).exec, { ...connection, kubeconfig: '/my configs/k' });
    expect(kubectl.commandLine(['rollout', 'undo', 'deployment/web'])).toBe("kubectl '--kubeconfig=/my configs/k' --context=prod rollout undo deployment/web");
  });

  it('falls back to the in-cluster namespace when kguard runs in a pod without a kubeconfig', async () => {
    const { exec } = recordingExec(() => ({ exitCode: 1, stdout: '', stderr: kubectlStderr('no-context') }));
    const inPod = new Kubectl(exec, { binary: 'kubectl', requestTimeout: '30s', inClusterNamespace: () => 'ci-runner' });
    expect(await inPod.defaultNamespace()).toBe('ci-runner');
    const outside = new Kubectl(exec, { binary: 'kubectl', requestTimeout: '30s', inClusterNamespace: () => undefined });
    await expect(outside.defaultNamespace()).rejects.toThrow(/pick a context with --context/);
  });
});
