import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { namespaceConflicts, parseManifests, workloadsIn } from '../../src/manifests/parse.js';

const text = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {template: {spec: {volumes: [{name: c, configMap: {name: c, defaultMode: 0644}}]}}}
---
# an empty document is skipped
---
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: api}
  - apiVersion: v1
    kind: Service
    metadata: {name: web}
`;

describe('parseManifests', () => {
  it('reads multi-document YAML and flattens Lists', () => {
    const objects = parseManifests({ origin: 'k8s/app.yaml', text });
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['Deployment/web', 'Deployment/api', 'Service/web']);
  });

  it('reads YAML the way kubectl does: 0644 is octal', () => {
    const [web] = parseManifests({ origin: 'k8s/app.yaml', text });
    expect(JSON.stringify(web)).toContain('"defaultMode":420');
  });

  it('names the file and document of invalid YAML', () => {
    const bad = { origin: 'k8s/bad.yaml', text: 'apiVersion: v1\nkind: [unclosed\n' };
    expect(() => parseManifests(bad)).toThrow(InputError);
    expect(() => parseManifests(bad)).toThrow(/k8s\/bad.yaml: document 1 is not valid YAML/);
  });

  it('refuses an object without a name', () => {
    expect(() => parseManifests({ origin: 'x.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n' })).toThrow(/metadata.name/);
  });
});

describe('workloadsIn', () => {
  it('resolves namespaces: the manifest first, then the default', () => {
    const objects = parseManifests({ origin: 'k8s/app.yaml', text });
    expect(workloadsIn(objects, 'default')).toEqual([
      { kind: 'Deployment', name: 'web', namespace: 'shop' },
      { kind: 'Deployment', name: 'api', namespace: 'default' },
    ]);
  });

  it('finds manifests that contradict --namespace', () => {
    const objects = parseManifests({ origin: 'k8s/app.yaml', text });
    expect(namespaceConflicts(objects, 'prod')).toEqual(['deployment/web (namespace shop)']);
    expect(namespaceConflicts(objects, undefined)).toEqual([]);
  });
});
