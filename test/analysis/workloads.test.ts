// {{ workloads }}: the changed workloads, else the workloads the apply holds (kinds that run pods,
// custom resources judged by a health rule or kstatus); none held refuses a query that names them.
import { describe, expect, it } from 'vitest';
import { analysisWorkloads, heldWorkloads, namelessWorkloadQueries } from '../../src/analysis/workloads.js';

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name, namespace: 'shop' });

describe('heldWorkloads', () => {
  it('names what runs pods and custom resources, once each, not configuration, Services or what --prune deletes', () => {
    const refs = [
      ref('v1', 'ConfigMap', 'web-config'),
      ref('apps/v1', 'Deployment', 'web'),
      ref('v1', 'Service', 'web'),
      ref('batch/v1', 'Job', 'migrate'),
      ref('argoproj.io/v1alpha1', 'Rollout', 'api'),
      ref('rbac.authorization.k8s.io/v1', 'Role', 'reader'),
      ref('apps/v1', 'StatefulSet', 'old-db'),
    ];
    expect(heldWorkloads(refs, [ref('apps/v1', 'StatefulSet', 'old-db')])).toEqual(['web', 'migrate', 'api']);
    expect(
      heldWorkloads([ref('v1', 'ConfigMap', 'a'), ref('v1', 'Secret', 'b'), ref('v1', 'Service', 'c')], []),
    ).toEqual([]);
  });
});

describe('analysisWorkloads', () => {
  it('keeps the changed ones; falls back to the held ones only when none changed', () => {
    expect(analysisWorkloads(['api'], ['web', 'api'])).toEqual(['api']);
    expect(analysisWorkloads([], ['web', 'api'])).toEqual(['web', 'api']);
  });
});

describe('namelessWorkloadQueries', () => {
  const metrics = [
    { name: 'errors', query: 'sum(rate(x{deployment=~"{{ workloads }}"}[1m]))' },
    { name: 'first', query: 'x{deployment="{{workload}}"}' },
    { name: 'all', query: 'sum(x{namespace="{{ namespace }}"})' },
  ];
  it('finds the queries naming {{ workloads }} or {{ workload }} when the apply holds no workload, none otherwise', () => {
    expect(namelessWorkloadQueries(metrics, []).map((check) => check.name)).toEqual(['errors', 'first']);
    expect(namelessWorkloadQueries(metrics, ['web'])).toEqual([]);
  });
});
