// Whose field is it: others' writes to fields this apply left alone are a crowded cluster's normal
// life and are kept; a write to a field this apply changed is someone else's change that wins.
import { describe, expect, it } from 'vitest';
import { changeSinceApply, differingPaths, fieldsOfApply, fieldName, keepingOthers } from '../../src/objects/owners.js';
import type { KubeObject } from '../../src/objects/model.js';

function deployment(image: string, replicas: number, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', uid: 'd-1', resourceVersion: '10', ...extra },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}

describe('changeSinceApply with the fields of the apply', () => {
  const before = deployment('nginx:1.25', 3);
  const applied = deployment('nginx:1.26', 3);
  const ours = fieldsOfApply(before, applied);

  it('knows the apply changed the image and nothing else', () => {
    expect(ours.map(fieldName)).toEqual(['spec.template.spec.containers[0].image']);
  });

  it('lets an HPA scale through /scale while it watches: not a conflict', () => {
    expect(changeSinceApply(applied, deployment('nginx:1.26', 7), ours)).toBeUndefined();
  });

  it("calls a change to the image it applied someone else's change", () => {
    expect(changeSinceApply(applied, deployment('nginx:1.27', 3), ours)).toMatchObject({
      state: 'conflict',
      detail: 'someone else changed spec.template.spec.containers[0].image after kguard applied it',
    });
  });

  it('without the fields of the apply, every change counts (the strict reading)', () => {
    expect(changeSinceApply(applied, deployment('nginx:1.26', 7))?.state).toBe('conflict');
  });

  it('a restore reverts the image and keeps the replicas the HPA wrote since', () => {
    const live = deployment('nginx:1.26', 7);
    const target = keepingOthers(before, applied, live, ours) as unknown as {
      spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
    };
    expect(target.spec.replicas).toBe(7);
    expect(target.spec.template.spec.containers[0]?.image).toBe('nginx:1.25');
  });
});

describe('an object the apply created', () => {
  // A PersistentVolumeClaim as `kubectl apply` (client-side) creates it: its manifest is in last-applied.
  const manifest = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'shop' },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '1Gi' } } },
  };
  const applied: KubeObject = {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      uid: 'c-1',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(manifest) },
      finalizers: ['kubernetes.io/pvc-protection'],
    },
    spec: { ...manifest.spec, volumeMode: 'Filesystem' },
  };

  it('tolerates the PV binder: volumeName and its pv.kubernetes.io annotations (pv_controller.go)', () => {
    const bound: KubeObject = {
      ...applied,
      metadata: {
        ...applied.metadata,
        annotations: {
          ...applied.metadata.annotations,
          'pv.kubernetes.io/bind-completed': 'yes',
          'pv.kubernetes.io/bound-by-controller': 'yes',
          'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path',
        },
      },
      spec: { ...(applied['spec'] as object), volumeName: 'pvc-c-1' },
    };
    expect(changeSinceApply(applied, bound, fieldsOfApply(undefined, applied))).toBeUndefined();
  });

  it('still calls a change to a field of its manifest a conflict', () => {
    const resized: KubeObject = {
      ...applied,
      spec: { ...(applied['spec'] as object), resources: { requests: { storage: '5Gi' } } },
    };
    expect(changeSinceApply(applied, resized, fieldsOfApply(undefined, applied))?.detail).toContain(
      'spec.resources.requests.storage',
    );
  });

  it("reads a server-side apply's fields from its Apply manager (fieldsV1)", () => {
    const serverSide: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web',
        namespace: 'shop',
        uid: 's-1',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'v1',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:spec': {
                'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } },
                'f:selector': {},
              },
            },
          },
        ],
      },
      spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } },
    };
    expect(fieldsOfApply(undefined, serverSide).map(fieldName)).toEqual(['spec.ports', 'spec.selector']);
    // A cloud controller adds its finalizer (service.kubernetes.io/load-balancer-cleanup): not the apply's field.
    const finalized: KubeObject = {
      ...serverSide,
      metadata: { ...serverSide.metadata, finalizers: ['service.kubernetes.io/load-balancer-cleanup'] },
    };
    expect(changeSinceApply(serverSide, finalized, fieldsOfApply(undefined, serverSide))).toBeUndefined();
  });

  it('claims the whole object when neither last-applied nor an Apply manager says what the manifest set', () => {
    const bare: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'shop', uid: 'm-1' },
      data: { a: '1' },
    };
    expect(
      changeSinceApply(
        bare,
        { ...bare, metadata: { ...bare.metadata, finalizers: ['x'] } },
        fieldsOfApply(undefined, bare),
      )?.state,
    ).toBe('conflict');
  });
});

describe('differingPaths compares as JSON', () => {
  it('is blind to the order of keys and to members that JSON leaves out', () => {
    const a = { spec: { replicas: 2, template: { labels: { app: 'web', tier: 'front' } } }, gone: undefined };
    const b = { spec: { template: { labels: { tier: 'front', app: 'web' } }, replicas: 2 } };
    expect(differingPaths(a, b)).toEqual([]);
    // An undefined item is null in JSON, as in the cluster's copy.
    expect(differingPaths({ args: ['a', undefined] }, { args: ['a', null] })).toEqual([]);
  });

  it('names each leaf that differs, and a list whose length changed as a whole', () => {
    const a = { spec: { replicas: 2, ports: [80, 443], labels: { app: 'web' } } };
    const b = { spec: { replicas: 3, ports: [80], labels: { app: 'web', extra: 'x' } } };
    expect(differingPaths(a, b)).toEqual([
      ['spec', 'labels', 'extra'],
      ['spec', 'ports'],
      ['spec', 'replicas'],
    ]);
    expect(differingPaths({ a: { b: 1 } }, { a: [1] })).toEqual([['a']]);
    expect(differingPaths({ a: 0 }, { a: false })).toEqual([['a']]);
    expect(differingPaths({ a: null }, {})).toEqual([['a']]);
  });
});
