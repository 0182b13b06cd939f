// An object written twice in one apply (manifests/understand.ts differingDuplicates).
import { describe, expect, it } from 'vitest';
import { differingDuplicates } from '../../src/manifests/understand.js';
import type { KubeObject } from '../../src/objects/model.js';

// As kubectl's client dry run prints them (-o json): namespace resolved, last-applied added.
const deployment = (image: string, replicas = 2): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
  },
});
const service: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: { ports: [{ port: 80 }] },
};

describe('differingDuplicates', () => {
  it('names an object written twice with different contents, and the fields that differ', () => {
    expect(differingDuplicates([deployment('nginx:1.25'), service, deployment('nginx:1.26', 3)])).toEqual([
      {
        ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
        paths: expect.arrayContaining(['spec.replicas']),
      },
    ]);
  });

  it('lets identical copies and namesakes of other kinds pass', () => {
    expect(differingDuplicates([deployment('nginx:1.25'), deployment('nginx:1.25'), service])).toEqual([]);
  });
});
