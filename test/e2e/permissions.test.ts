// Before the apply, kguard asks the API server whether this user may do what a restore would do
// (SelfSubjectAccessReviews, one kubectl process): a missing verb refuses the run with exit 2,
// naming the rule, and nothing is applied; --rollback none applies without asking.
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';

let env: Sandbox | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const configYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: features\ndata:\n  beta: "on"\n';

async function deployed(): Promise<{ sandboxed: Sandbox; file: string }> {
  const sandboxed = (env = await sandbox());
  const first = await kubectl(sandboxed.cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'));
  expect(first.exitCode, first.stderr).toBe(0);
  const file = await sandboxed.write('next.yaml', `${configYaml}---\n${deploymentYaml('web', 'nginx:1.26')}`);
  return { sandboxed, file };
}

describe("the restore's permissions, checked before the apply", () => {
  it('refuses the run when the user may not delete what the apply creates: exit 2, the rule named, nothing applied', async () => {
    const { sandboxed, file } = await deployed();
    sandboxed.cluster.faults.deny('delete', 'configmaps', { namespace: 'default' });
    const run = await sandboxed.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toContain(
      'kguard could not restore this apply if it failed: this user may not delete configmaps in namespace default (to delete configmap/features (namespace default), which this apply creates). ' +
        'Next: grant a Role in namespace default with: apiGroups: [""], resources: ["configmaps"], verbs: ["delete"], or run with --rollback none to apply without a restore; nothing was applied.',
    );
    expect(sandboxed.cluster.store.get('ConfigMap', 'default', 'features')).toBeUndefined();
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    // No journal and no lease left behind.
    expect(
      sandboxed.cluster.store.list('Secret', 'default').filter((secret) => secret.metadata.name.startsWith('kguard-')),
    ).toEqual([]);
    expect(sandboxed.cluster.store.list('Lease', 'default')).toEqual([]);
  });

  it('names every missing verb of an update it would put back, with its Role rule', async () => {
    const { sandboxed, file } = await deployed();
    sandboxed.cluster.faults.deny('update', 'deployments', { group: 'apps' });
    const run = await sandboxed.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toContain(
      'this user may not update deployments.apps in namespace default (to put back deployment/web (namespace default))',
    );
    expect(run.output).toContain('apiGroups: ["apps"], resources: ["deployments"], verbs: ["update"]');
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
  });

  it('applies with --rollback none, which needs no restore: exit 0', async () => {
    const { sandboxed, file } = await deployed();
    sandboxed.cluster.faults.deny('delete', 'configmaps', { namespace: 'default' });
    const run = await sandboxed.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--rollback', 'none']);
    expect(run.exitCode, run.output).toBe(0);
    expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
  });

  it('costs a healthy run one kubectl process, and a run that changes nothing none', async () => {
    const { sandboxed, file } = await deployed();
    const run = await sandboxed.kguard(['apply', '-f', file, '--poll-interval', '300ms', '-o', 'json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const reviews = sandboxed.cluster.requests.filter((request) => request.url.includes('selfsubjectaccessreviews'));
    // Two questions (update deployments, delete configmaps), one kubectl create: one POST each.
    expect(reviews.map((request) => request.method)).toEqual(['POST', 'POST']);
    const again = await sandboxed.kguard(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(again.exitCode, again.output).toBe(0);
    expect(
      sandboxed.cluster.requests.filter((request) => request.url.includes('selfsubjectaccessreviews')),
    ).toHaveLength(2);
  });
});
