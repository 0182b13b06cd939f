// Field ownership (metadata.managedFields) and conditional writes through the real kubectl:
// client-side and server-side apply, apply conflicts, restoring an object and its owners with
// two PUTs, and deletes with uid / resourceVersion preconditions.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { deploymentYaml, kubectl } from './testing/kubectl.js';
import type { KubeObject } from './types.js';

let cluster: Cluster;
const scratch = mkdtempSync(join(tmpdir(), 'kube-sim-managed-'));

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
});

afterAll(async () => {
  await cluster?.stop();
});

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  subresource?: string;
}

/** What kguard will read: `kubectl get -o json --show-managed-fields`. */
async function getWithManagedFields(resource: string): Promise<KubeObject> {
  const result = await kubectl(cluster, ['get', resource, '-o', 'json', '--show-managed-fields']);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as KubeObject;
}

function entries(obj: KubeObject): Entry[] {
  return (obj.metadata.managedFields ?? []) as Entry[];
}

function owner(obj: KubeObject, manager: string): Entry | undefined {
  return entries(obj).find((entry) => entry.manager === manager);
}

const containerKey = (name: string) => `k:{"name":"${name}"}`;

describe('managedFields', () => {
  it('client-side apply is an Update by kubectl-client-side-apply owning every field it created, defaults included', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('csa', 'nginx:1.25'));
    const hidden = JSON.parse((await kubectl(cluster, ['get', 'deploy/csa', '-o', 'json'])).stdout) as KubeObject;
    expect(hidden.metadata.managedFields).toBeUndefined(); // kubectl strips them without --show-managed-fields

    const deployment = await getWithManagedFields('deploy/csa');
    expect(entries(deployment)).toHaveLength(1);
    const entry = owner(deployment, 'kubectl-client-side-apply')!;
    expect(entry).toMatchObject({
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      time: expect.stringMatching(/Z$/),
    });
    expect(entry.fieldsV1['f:metadata']).toEqual({
      'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
      'f:labels': { '.': {}, 'f:app': {} },
    });
    const spec = entry.fieldsV1['f:spec'];
    expect(spec).toMatchObject({
      'f:replicas': {},
      'f:selector': {},
      'f:revisionHistoryLimit': {},
      'f:progressDeadlineSeconds': {},
    });
    expect(spec['f:strategy']).toEqual({
      'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} },
      'f:type': {},
    });
    const container = spec['f:template']['f:spec']['f:containers'][containerKey('csa')];
    expect(container).toMatchObject({
      '.': {},
      'f:image': {},
      'f:name': {},
      'f:imagePullPolicy': {},
      'f:resources': {},
    });
    expect(container['f:ports']).toEqual({
      '.': {},
      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
    });
    expect(JSON.stringify(entry.fieldsV1)).not.toContain('f:status');
  });

  it('server-side apply is an Apply by kubectl owning exactly the applied fields', async () => {
    const result = await kubectl(cluster, ['apply', '--server-side', '-f', '-'], deploymentYaml('ssa', 'nginx:1.25'));
    expect(result).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/ssa serverside-applied' });
    const deployment = await getWithManagedFields('deploy/ssa');
    expect(entries(deployment).map((entry) => [entry.manager, entry.operation])).toEqual([['kubectl', 'Apply']]);
    const spec = owner(deployment, 'kubectl')!.fieldsV1['f:spec'];
    expect(spec['f:revisionHistoryLimit']).toBeUndefined(); // defaulted, so nobody's
    expect(spec['f:template']['f:spec']['f:containers'][containerKey('ssa')]).toMatchObject({
      '.': {},
      'f:image': {},
      'f:name': {},
    });
    expect(deployment.spec.revisionHistoryLimit).toBe(10);
  });

  it("refuses an apply that changes another manager's field with the real 409, and --force-conflicts takes it over", async () => {
    await kubectl(
      cluster,
      ['apply', '--server-side', '--field-manager=team-a', '-f', '-'],
      deploymentYaml('shared', 'nginx:1.25', { replicas: 2 }),
    );
    const refused = await kubectl(
      cluster,
      ['apply', '--server-side', '-f', '-'],
      deploymentYaml('shared', 'nginx:1.25', { replicas: 3 }),
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.split('\n').slice(0, 2)).toEqual([
      'error: Apply failed with 1 conflict: conflict with "team-a": .spec.replicas',
      'Please review the fields above--they currently have other managers. Here',
    ]);
    expect(cluster.store.get('Deployment', 'default', 'shared')?.spec.replicas).toBe(2);

    const forced = await kubectl(
      cluster,
      ['apply', '--server-side', '--force-conflicts', '-f', '-'],
      deploymentYaml('shared', 'nginx:1.25', { replicas: 3 }),
    );
    expect(forced).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/shared serverside-applied' });
    const deployment = await getWithManagedFields('deploy/shared');
    expect(deployment.spec.replicas).toBe(3);
    expect(owner(deployment, 'kubectl')!.fieldsV1['f:spec']['f:replicas']).toEqual({});
    expect(owner(deployment, 'team-a')!.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
    // Same value, no conflict: both own the image.
    expect(
      owner(deployment, 'team-a')!.fieldsV1['f:spec']['f:template']['f:spec']['f:containers'][containerKey('shared')][
        'f:image'
      ],
    ).toEqual({});
  });

  it('a PUT carrying managedFields starts from them and gives the writer only what it changed', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('reset', 'nginx:1.25'));
    const live = await getWithManagedFields('deploy/reset');
    writeFileSync(
      join(scratch, 'reset.json'),
      JSON.stringify({ ...live, metadata: { ...live.metadata, managedFields: [] } }),
    );
    expect((await kubectl(cluster, ['replace', '-f', join(scratch, 'reset.json')])).exitCode).toBe(0);
    // `managedFields: []` resets them (fieldmanager.go isResetManagedFields). The only value that
    // changed is the last-applied annotation, which kubectl replace rewrites when it exists.
    const managedFields = cluster.store.get('Deployment', 'default', 'reset')?.metadata.managedFields as Entry[];
    expect(managedFields.map((entry) => entry.manager)).toEqual(['kubectl-replace']);
    expect(managedFields[0]!.fieldsV1).toEqual({
      'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    });
  });
});

describe('restoring a pre-apply copy with kubectl replace --raw', () => {
  it('puts back values with the first PUT and the exact managedFields with the second', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('restore', 'nginx:1.25'));
    const snapshot = await getWithManagedFields('deploy/restore');
    const rawPath = '/apis/apps/v1/namespaces/default/deployments/restore';

    // A bad rollout by two other managers.
    await kubectl(cluster, ['patch', 'deploy/restore', '--type', 'merge', '-p', '{"spec":{"replicas":4}}']);
    await kubectl(cluster, ['set', 'image', 'deploy/restore', 'restore=nginx:9.98']);
    const broken = await getWithManagedFields('deploy/restore');
    expect(
      entries(broken)
        .map((entry) => entry.manager)
        .sort(),
    ).toEqual(['kubectl-client-side-apply', 'kubectl-patch', 'kubectl-set']);

    // PUT 1: the snapshot, conditional on the live resourceVersion.
    const first = join(scratch, 'restore-1.json');
    writeFileSync(
      first,
      JSON.stringify({
        ...snapshot,
        metadata: { ...snapshot.metadata, resourceVersion: broken.metadata.resourceVersion },
      }),
    );
    // `replace --raw` PUTs the file as it is: plain `replace -f` rewrites an existing last-applied
    // annotation from the file (resourceVersion included), so the copy would not come back exactly.
    const put1 = await kubectl(cluster, ['replace', '--raw', rawPath, '-f', first]);
    expect(put1.stderr).toBe('');
    const afterPut1 = JSON.parse(put1.stdout) as KubeObject;
    expect(afterPut1.spec).toEqual(snapshot.spec);
    // No fieldManager parameter on a raw PUT: the manager comes from the User-Agent.
    expect(
      entries(afterPut1)
        .map((entry) => entry.manager)
        .sort(),
    ).toEqual(['kubectl', 'kubectl-client-side-apply']);
    expect(owner(afterPut1, 'kubectl')!.fieldsV1['f:spec']).toMatchObject({ 'f:replicas': {} });

    // PUT 2: the same copy again, conditional on PUT 1's resourceVersion: values equal, so the owners are the snapshot's.
    const second = join(scratch, 'restore-2.json');
    writeFileSync(
      second,
      JSON.stringify({
        ...snapshot,
        metadata: { ...snapshot.metadata, resourceVersion: afterPut1.metadata.resourceVersion },
      }),
    );
    const put2 = await kubectl(cluster, ['replace', '--raw', rawPath, '-f', second]);
    expect(put2.stderr).toBe('');
    const restored = JSON.parse(put2.stdout) as KubeObject;
    expect(restored.metadata.managedFields).toEqual(snapshot.metadata.managedFields); // times included
    expect(restored.spec).toEqual(snapshot.spec);
    expect(Number(restored.metadata.resourceVersion)).toBeGreaterThan(Number(afterPut1.metadata.resourceVersion));
  });

  it('refuses a PUT with a stale resourceVersion or another uid with the real 409 texts', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('guarded', 'nginx:1.25'));
    const live = await getWithManagedFields('deploy/guarded');
    const stale = join(scratch, 'stale.json');
    writeFileSync(stale, JSON.stringify({ ...live, metadata: { ...live.metadata, resourceVersion: '1' } }));
    const staleResult = await kubectl(cluster, ['replace', '-f', stale]);
    expect(staleResult).toMatchObject({ exitCode: 1 });
    expect(staleResult.stderr).toBe(
      `Error from server (Conflict): error when replacing "${stale}": Operation cannot be fulfilled on deployments.apps "guarded": the object has been modified; please apply your changes to the latest version and try again`,
    );

    const otherUid = join(scratch, 'other-uid.json');
    writeFileSync(
      otherUid,
      JSON.stringify({ ...live, metadata: { ...live.metadata, uid: '00000000-0000-0000-0000-000000000000' } }),
    );
    const uidResult = await kubectl(cluster, ['replace', '-f', otherUid]);
    expect(uidResult.exitCode).toBe(1);
    expect(uidResult.stderr).toBe(
      `Error from server (Conflict): error when replacing "${otherUid}": Operation cannot be fulfilled on deployments.apps "guarded": StorageError: invalid object, Code: 4, Key: /registry/deployments/default/guarded, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ${live.metadata.uid}`,
    );
  });
});

describe('kubectl delete --raw with DeleteOptions preconditions', () => {
  const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
  const options = (preconditions: object) => JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions });

  it('refuses a uid or resourceVersion that does not match, from stdin (-f -) or a file', async () => {
    await kubectl(cluster, ['create', 'configmap', 'guarded', '--from-literal=a=b']);
    const live = cluster.store.get('ConfigMap', 'default', 'guarded')!;

    const wrongUid = await kubectl(
      cluster,
      ['delete', '--raw', path('guarded'), '-f', '-'],
      options({ uid: 'not-the-uid' }),
    );
    expect(wrongUid.exitCode).toBe(1);
    expect(wrongUid.stderr).toBe(
      `Error from server (Conflict): Operation cannot be fulfilled on ConfigMap "guarded": the UID in the precondition (not-the-uid) does not match the UID in record (${live.metadata.uid}). The object might have been deleted and then recreated`,
    );

    const file = join(scratch, 'delete-options.json');
    writeFileSync(file, options({ uid: live.metadata.uid, resourceVersion: '1' }));
    const wrongVersion = await kubectl(cluster, ['delete', '--raw', path('guarded'), '-f', file]);
    expect(wrongVersion.exitCode).toBe(1);
    expect(wrongVersion.stderr).toBe(
      `Error from server (Conflict): Operation cannot be fulfilled on ConfigMap "guarded": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${live.metadata.resourceVersion}). The object might have been modified`,
    );
    expect(cluster.store.get('ConfigMap', 'default', 'guarded')).toBeDefined();
  });

  it('deletes when both match', async () => {
    await kubectl(cluster, ['create', 'configmap', 'matching', '--from-literal=a=b']);
    const live = cluster.store.get('ConfigMap', 'default', 'matching')!;
    const result = await kubectl(
      cluster,
      ['delete', '--raw', path('matching'), '-f', '-'],
      options({ uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion }),
    );
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'matching', kind: 'configmaps', uid: live.metadata.uid },
    });
    expect(cluster.store.get('ConfigMap', 'default', 'matching')).toBeUndefined();
  });
});
