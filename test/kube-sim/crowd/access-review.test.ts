// Authorization through the real kubectl: every verb is allowed until a test denies one
// (faults.deny); a denied request gets the RBAC authorizer's 403, and a SelfSubjectAccessReview
// (kubectl auth can-i, or a List of reviews created at once) says allowed: false about it.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const review = (verb: string, resource: string, namespace: string, group = '') => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: { resourceAttributes: { namespace, verb, group, resource } },
});

describe('SelfSubjectAccessReview and denied verbs', () => {
  it('allows everything by default; a denied verb is refused with 403 and reviewed as not allowed', async () => {
    cluster = await startCluster({ controllers: false });
    expect((await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps', '-n', 'default'])).stdout.trim()).toBe(
      'yes',
    );

    cluster.faults.deny('delete', 'configmaps', { namespace: 'default' });
    const canI = await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps', '-n', 'default']);
    expect(canI.stdout.trim()).toBe('no');
    expect(canI.exitCode).toBe(1);
    expect((await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps', '-n', 'other'])).stdout.trim()).toBe(
      'yes',
    );

    await kubectl(cluster, ['create', 'configmap', 'settings', '--from-literal=mode=fast']);
    const deleted = await kubectl(cluster, ['delete', 'configmap', 'settings']);
    expect(deleted.exitCode).toBe(1);
    expect(deleted.stderr).toContain(
      'Error from server (Forbidden): configmaps "settings" is forbidden: User "system:anonymous" cannot delete resource "configmaps" in API group "" in the namespace "default"',
    );

    // Several reviews in one kubectl process: a List is created item by item, each answer printed.
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [review('delete', 'configmaps', 'default'), review('update', 'deployments', 'default', 'apps')],
    };
    const created = await kubectl(
      cluster,
      ['create', '-f', '-', '-o', 'json', '--validate=false'],
      JSON.stringify(list),
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const answers = created.stdout
      .split(/\n(?=\{)/)
      .map((text) => JSON.parse(text) as { status: { allowed: boolean; reason?: string }; spec: unknown });
    expect(answers.map((answer) => answer.status.allowed)).toEqual([false, true]);
    // Empty attributes are left out, as Go's omitempty leaves them out of the real answer.
    expect(answers[0]!.spec).toEqual({
      resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'configmaps' },
    });
    expect(answers[1]!.status.reason).toMatch(/^RBAC: allowed by ClusterRoleBinding/);
    // Nothing is stored, and a review is only ever created.
    expect((await kubectl(cluster, ['get', 'selfsubjectaccessreviews'])).stderr).toContain('MethodNotAllowed');

    await cluster.faults.restore();
    expect((await kubectl(cluster, ['auth', 'can-i', 'delete', 'configmaps'])).stdout.trim()).toBe('yes');
  });
});
