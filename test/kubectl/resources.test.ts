// REST paths without discovery: Kubernetes' own kinds have the plurals their REST storage fixes
// (pkg/registry/<group>/<kind>/storage); any other kind's plural comes from discovery.
import { describe, expect, it } from 'vitest';
import { collectionPath, resourceTypeOf } from '../../src/kubectl/resources.js';
import { typeArg } from '../../src/objects/model.js';

describe('resourceTypeOf', () => {
  it('knows the plural of a core, an apps and an rbac kind as typeArg names them', () => {
    const configMap = resourceTypeOf(typeArg({ apiVersion: 'v1', kind: 'ConfigMap' }));
    expect(configMap).toEqual({ kind: 'ConfigMap', version: 'v1', group: '', resource: 'configmaps' });
    expect(collectionPath(configMap!, configMap!.resource!, 'shop')).toBe('/api/v1/namespaces/shop/configmaps');
    const deployment = resourceTypeOf(typeArg({ apiVersion: 'apps/v1', kind: 'Deployment' }));
    expect(collectionPath(deployment!, deployment!.resource!, 'shop')).toBe(
      '/apis/apps/v1/namespaces/shop/deployments',
    );
    const role = resourceTypeOf(typeArg({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }));
    expect(collectionPath(role!, role!.resource!, '')).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles');
  });

  it('leaves the plural of a custom kind, or of another version of a built-in one, to discovery', () => {
    expect(resourceTypeOf(typeArg({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate' }))).toEqual({
      kind: 'Certificate',
      version: 'v1',
      group: 'cert-manager.io',
    });
    expect(resourceTypeOf(typeArg({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' }))?.resource).toBe(
      undefined,
    );
  });
});
