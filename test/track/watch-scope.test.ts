import { describe, expect, it } from 'vitest';
import { labelSelectorString, watchQueries } from '../../src/track/watch-scope.js';
import { fixture } from '../fixtures/load.js';
import { deployment } from '../fixtures/load.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const api = { ...web, name: 'api' };
const deploymentReads = ['deployments.apps', 'replicasets.apps', 'pods'];

describe('watchQueries', () => {
  it('watches a Deployment by name and its ReplicaSets and pods by its selector', () => {
    expect(watchQueries([{ workload: web, reads: deploymentReads, selector: 'app=web' }])).toEqual([
      { namespace: 'shop', type: 'deployments.apps', fieldSelector: 'metadata.name=web' },
      { namespace: 'shop', type: 'replicasets.apps', labelSelector: 'app=web' },
      { namespace: 'shop', type: 'pods', labelSelector: 'app=web' },
    ]);
  });

  it('shares one watch per namespace and type: names cannot be OR-ed, app=a and app=b can', () => {
    const queries = watchQueries([
      { workload: web, reads: deploymentReads, selector: 'app=web' },
      { workload: api, reads: deploymentReads, selector: 'app=api' },
      { workload: { ...web, namespace: 'other' }, reads: deploymentReads, selector: 'app=web' },
    ]);
    expect(queries.filter((query) => query.namespace === 'shop')).toEqual([
      { namespace: 'shop', type: 'deployments.apps' },
      { namespace: 'shop', type: 'replicasets.apps', labelSelector: 'app in (api,web)' },
      { namespace: 'shop', type: 'pods', labelSelector: 'app in (api,web)' },
    ]);
    expect(queries.filter((query) => query.namespace === 'other')).toHaveLength(3);
  });

  it("watches every Ingress of the namespace for an Ingress, judged with its class's other Ingresses", () => {
    const ingress = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web' };
    expect(watchQueries([{ workload: ingress, reads: ['ingresses.networking.k8s.io'], siblings: true }])).toEqual([
      { namespace: 'shop', type: 'ingresses.networking.k8s.io' },
    ]);
    expect(watchQueries([{ workload: ingress, reads: ['ingresses.networking.k8s.io'] }])).toEqual([
      { namespace: 'shop', type: 'ingresses.networking.k8s.io', fieldSelector: 'metadata.name=web' },
    ]);
  });

  it('takes the whole type when selectors cannot be combined or there is none', () => {
    const queries = watchQueries([
      { workload: web, reads: deploymentReads, selector: 'app=web,tier=front' },
      { workload: api, reads: deploymentReads, selector: 'app=api' },
    ]);
    expect(queries.find((query) => query.type === 'pods')).toEqual({ namespace: 'shop', type: 'pods' });
    const bare = watchQueries([
      { workload: { apiVersion: 'v1', kind: 'Pod', namespace: 'shop', name: 'one-off' }, reads: ['pods'] },
    ]);
    expect(bare).toEqual([{ namespace: 'shop', type: 'pods', fieldSelector: 'metadata.name=one-off' }]);
  });

  it('watches a custom resource by name under its KIND.VERSION.GROUP type', () => {
    const certificate = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', namespace: 'shop', name: 'web-tls' };
    expect(watchQueries([{ workload: certificate, reads: ['Certificate.v1.cert-manager.io'] }])).toEqual([
      { namespace: 'shop', type: 'Certificate.v1.cert-manager.io', fieldSelector: 'metadata.name=web-tls' },
    ]);
  });
});

describe('labelSelectorString', () => {
  it('writes matchLabels and every matchExpressions operator as the labelSelector parameter', () => {
    expect(labelSelectorString(deployment('complete').spec?.selector)).toBe('app=web');
    const job = fixture<{ spec: { selector: { matchLabels: Record<string, string> } } }>('jobs/running');
    expect(labelSelectorString(job.spec.selector)).toMatch(/^batch\.kubernetes\.io\/controller-uid=/);
    expect(
      labelSelectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'edge'] },
          { key: 'track', operator: 'NotIn', values: ['canary'] },
          { key: 'team', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('!legacy,app=web,team,tier in (edge,front),track notin (canary)');
  });

  it('has no selector for an empty one, which selects everything', () => {
    expect(labelSelectorString({})).toBeUndefined();
    expect(labelSelectorString(undefined)).toBeUndefined();
  });
});
