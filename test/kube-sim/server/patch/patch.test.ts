/* eslint-disable @typescript-eslint/no-explicit-any -- results are inspected as free-form JSON */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../json.js';
import { applyPatch } from './index.js';

const deploymentSpec = {
  spec: {
    template: {
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.25',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
          { name: 'sidecar', image: 'envoy:1' },
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      },
    },
  },
} as JsonValue;

describe('strategic merge patch', () => {
  it('merges containers by name, keeping fields the patch does not mention', () => {
    const result = applyPatch('strategic', deploymentSpec, {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
            containers: [{ name: 'web', image: 'nginx:1.26' }],
          },
        },
      },
    }) as any;
    const containers = result.spec.template.spec.containers;
    expect(containers).toHaveLength(2);
    expect(containers[0]).toMatchObject({ name: 'web', image: 'nginx:1.26', ports: [{ containerPort: 80 }] });
    expect(containers[0].env).toHaveLength(2);
    expect(containers[1]).toEqual({ name: 'sidecar', image: 'envoy:1' });
  });

  it('merges env by name and ports by containerPort, and deletes with null and $patch: delete', () => {
    const result = applyPatch('strategic', deploymentSpec, {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'web',
                env: [
                  { name: 'B', value: '3' },
                  { name: 'A', $patch: 'delete' },
                ],
                ports: [{ containerPort: 443 }],
              },
              { name: 'sidecar', $patch: 'delete' },
            ],
            volumes: null,
          },
        },
      },
    }) as any;
    const spec = result.spec.template.spec;
    expect(spec.containers.map((c: { name: string }) => c.name)).toEqual(['web']);
    expect(spec.containers[0].env).toEqual([{ name: 'B', value: '3' }]);
    expect(spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }]);
    expect(spec.volumes).toBeUndefined();
  });

  it('orders a merged list by $setElementOrder', () => {
    const result = applyPatch('strategic', deploymentSpec, {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }],
            containers: [{ name: 'web', image: 'x' }],
          },
        },
      },
    }) as any;
    expect(result.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['sidecar', 'web']);
  });

  it('replaces a list element set with $patch: replace and honours $retainKeys', () => {
    const target = {
      spec: {
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
        containers: [{ name: 'a' }, { name: 'b' }],
      },
    };
    const result = applyPatch('strategic', target, {
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
        containers: [{ name: 'c' }, { $patch: 'replace' }],
      },
    }) as any;
    expect(result.spec.strategy).toEqual({ type: 'Recreate' });
    expect(result.spec.containers).toEqual([{ name: 'c' }]);
  });

  it('merges Service ports by port and replaces lists without a merge key', () => {
    const target = { spec: { ports: [{ port: 80, targetPort: 8080 }], tolerations: [{ key: 'a' }] } };
    const result = applyPatch('strategic', target, {
      spec: { ports: [{ port: 80, name: 'http' }], tolerations: [{ key: 'b' }] },
    }) as any;
    expect(result.spec.ports).toEqual([{ port: 80, targetPort: 8080, name: 'http' }]);
    expect(result.spec.tolerations).toEqual([{ key: 'b' }]);
  });
});

describe('JSON merge patch', () => {
  it('merges maps, deletes null members and replaces lists', () => {
    const result = applyPatch('merge', { a: { b: 1, c: 2 }, list: [1, 2] }, { a: { b: null, d: 3 }, list: [3] });
    expect(result).toEqual({ a: { c: 2, d: 3 }, list: [3] });
  });
});

describe('JSON patch', () => {
  it('applies add, replace, remove and test like rollout undo sends them', () => {
    const target = {
      metadata: { annotations: { a: '1' }, labels: { x: 'y' } },
      spec: { template: { old: true }, list: [1, 3] },
    };
    const result = applyPatch('json', target, [
      { op: 'test', path: '/metadata/labels/x', value: 'y' },
      { op: 'replace', path: '/spec/template', value: { new: true } },
      { op: 'replace', path: '/metadata/annotations', value: { b: '2' } },
      { op: 'add', path: '/spec/list/1', value: 2 },
      { op: 'add', path: '/metadata/labels/a~1b', value: 'z' },
      { op: 'remove', path: '/metadata/labels/x' },
    ]);
    expect(result).toEqual({
      metadata: { annotations: { b: '2' }, labels: { 'a/b': 'z' } },
      spec: { template: { new: true }, list: [1, 2, 3] },
    });
  });

  it('rejects a failed test and a replace of a missing path with 422', () => {
    expect(() => applyPatch('json', { a: 1 }, [{ op: 'test', path: '/a', value: 2 }])).toThrow(/test failed/);
    expect(() => applyPatch('json', { a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toThrow(/missing value/);
  });
});
