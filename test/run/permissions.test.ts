// What a restore of this apply would write, verb by verb, from the restore's own plan made as if
// everything failed (run/apply/before-write/permissions.ts), and the message naming the rules to add.
import { describe, expect, it } from 'vitest';
import type { ApiResource } from '../../src/kubectl/types.js';
import { objectKey, refOf, type KubeObject } from '../../src/objects/model.js';
import { deniedMessage, restoreAccess } from '../../src/run/apply/before-write/permissions.js';
import { fixture } from '../fixtures/load.js';

const resources = new Map<string, ApiResource>([
  ['/ConfigMap', { name: 'configmaps', namespaced: true }],
  ['apps/Deployment', { name: 'deployments', namespaced: true }],
  ['apps/StatefulSet', { name: 'statefulsets', namespaced: true }],
  ['/PersistentVolumeClaim', { name: 'persistentvolumeclaims', namespaced: true }],
  ['batch/Job', { name: 'jobs', namespaced: true }],
  ['/Namespace', { name: 'namespaces', namespaced: false }],
]);

const understood = (current: KubeObject[], wouldBe: KubeObject[], pruned: KubeObject[] = []) => ({
  refs: wouldBe.map(refOf),
  pruned: pruned.map(refOf),
  server: { ok: true as const, objects: wouldBe, pruned, warnings: '' },
  current: new Map([...current, ...pruned].map((object) => [objectKey(refOf(object)), object])),
});

const web = fixture('deployments/complete');
const newWeb: KubeObject = { ...web, spec: { ...(web.spec as object), replicas: 5 } };
const settings = fixture('configmaps/settings');
const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } };
const asked = (needed: ReturnType<typeof restoreAccess>) =>
  needed.map(({ verb, group, resource, namespace: ns }) => `${verb} ${group}/${resource} ${ns}`);

describe('restoreAccess', () => {
  it('asks update for what it puts back, delete for what the apply creates, create and update for what it prunes', () => {
    const needed = restoreAccess(
      understood([web, settings], [newWeb, fixture('claims/pending')], [settings]),
      { keepCreated: false },
      resources,
    );
    expect(asked(needed)).toEqual([
      'create /configmaps shop',
      'update /configmaps shop',
      'update apps/deployments shop',
    ]);
  });

  it('asks nothing to delete a created Namespace or claim (never deleted), nor with --keep-created', () => {
    const created = { ...fixture('claims/pending'), metadata: { name: 'fresh', namespace: 'shop' } };
    expect(
      asked(restoreAccess(understood([web], [namespace, created, newWeb]), { keepCreated: false }, resources)),
    ).toEqual(['update apps/deployments shop']);
    expect(asked(restoreAccess(understood([], [settings]), { keepCreated: true }, resources))).toEqual([]);
    expect(asked(restoreAccess(understood([], [settings]), { keepCreated: false }, resources))).toEqual([
      'delete /configmaps shop',
    ]);
  });

  it('asks delete and create for an immutable ConfigMap, nothing for a claim it cannot shrink or a finished Job it prunes', () => {
    const claim = fixture('claims/bound');
    const grown = { ...claim, spec: { ...(claim.spec as object), resources: { requests: { storage: '9Gi' } } } };
    const needed = restoreAccess(
      understood([settings, claim], [fixture('configmaps/settings-immutable'), grown], [fixture('jobs/complete')]),
      { keepCreated: false },
      resources,
    );
    expect(asked(needed)).toEqual(['delete /configmaps shop', 'create /configmaps shop', 'update /configmaps shop']);
  });

  it("asks to delete pods where a StatefulSet's restore deletes its stuck pods", () => {
    const db = fixture('statefulsets/before');
    const changed = { ...db, metadata: { ...db.metadata, labels: { changed: 'yes' } } };
    expect(asked(restoreAccess(understood([db], [changed]), { keepCreated: false }, resources))).toEqual([
      `update apps/statefulsets ${db.metadata.namespace}`,
      `delete /pods ${db.metadata.namespace}`,
    ]);
  });
});

describe('deniedMessage', () => {
  it('names each missing verb with its reason and one rule per resource and namespace', () => {
    expect(
      deniedMessage([
        {
          verb: 'delete',
          group: '',
          resource: 'configmaps',
          namespace: 'shop',
          why: 'to delete configmap/x (namespace shop), which this apply creates',
        },
        {
          verb: 'create',
          group: '',
          resource: 'configmaps',
          namespace: 'shop',
          why: 'to create configmap/y (namespace shop) again, which this apply deletes',
        },
        { verb: 'delete', group: '', resource: 'namespaces', namespace: '', why: 'to delete namespace/z' },
      ]),
    ).toBe(
      'kguard could not restore this apply if it failed: this user may not delete configmaps in namespace shop (to delete configmap/x (namespace shop), which this apply creates); ' +
        'nor create configmaps in namespace shop (to create configmap/y (namespace shop) again, which this apply deletes); nor delete namespaces (to delete namespace/z). ' +
        'Next: grant a Role in namespace shop with: apiGroups: [""], resources: ["configmaps"], verbs: ["delete", "create"]; and a ClusterRole with: apiGroups: [""], resources: ["namespaces"], verbs: ["delete"], ' +
        'or run with --rollback none to apply without a restore; nothing was applied.',
    );
  });
});
