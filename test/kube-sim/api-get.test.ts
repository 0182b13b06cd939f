// Discovery and reads through the real kubectl.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startCluster, type Cluster } from './cluster.js';
import { kubectl } from './testing/kubectl.js';
import type { KubeObject } from './types.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
  const { store } = cluster;
  store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  const pod = (name: string, namespace: string, labels: Record<string, string>, phase: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], nodeName: 'node-1' },
    status: { phase },
  });
  store.create(pod('get-a', 'default', { app: 'get-test', tier: 'front' }, 'Running'));
  store.create(pod('get-b', 'default', { app: 'get-test', tier: 'back' }, 'Pending'));
  store.create(pod('get-c', 'shop', { app: 'get-test', tier: 'front' }, 'Running'));
  store.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'get-config', namespace: 'default' },
    data: { key: 'value' },
  });
  store.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'get-secret', namespace: 'default' },
    type: 'Opaque',
    data: { key: 'dmFsdWU=' },
  });
  const podEvent = (name: string, uid: string, event: { reason: string; message?: string; type: string }) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.1`, namespace: 'default' },
    involvedObject: { kind: 'Pod', name, namespace: 'default', uid },
    ...event,
  });
  store.create(podEvent('get-a', 'u-1', { reason: 'Pulled', message: 'Successfully pulled image', type: 'Normal' }));
  store.create(podEvent('get-b', 'u-2', { reason: 'Failed', type: 'Warning' }));
});

afterAll(async () => {
  await cluster?.stop();
});

function names(stdout: string): string[] {
  return (JSON.parse(stdout) as { items: KubeObject[] }).items.map((item) => item.metadata.name);
}

describe('discovery and reads with kubectl', () => {
  it('serves aggregated discovery with short names, so api-resources lists every kind', async () => {
    const result = await kubectl(cluster, ['api-resources', '-o', 'wide']);
    expect(result.exitCode).toBe(0);
    for (const line of [
      /^pods\s+po\s+v1\s+true\s+Pod/m,
      /^services\s+svc\s+v1\s+true\s+Service/m,
      /^configmaps\s+cm\s+v1\s+true\s+ConfigMap/m,
      /^secrets\s+v1\s+true\s+Secret/m,
      /^events\s+ev\s+v1\s+true\s+Event/m,
      /^namespaces\s+ns\s+v1\s+false\s+Namespace/m,
      /^nodes\s+no\s+v1\s+false\s+Node/m,
      /^resourcequotas\s+quota\s+v1\s+true\s+ResourceQuota/m,
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m,
      /^replicasets\s+rs\s+apps\/v1\s+true\s+ReplicaSet/m,
      /^statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet/m,
      /^daemonsets\s+ds\s+apps\/v1\s+true\s+DaemonSet/m,
      /^serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount/m,
      /^jobs\s+batch\/v1\s+true\s+Job/m,
      /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler/m,
      /^ingresses\s+ing\s+networking.k8s.io\/v1\s+true\s+Ingress/m,
      /^clusterroles\s+rbac.authorization.k8s.io\/v1\s+false\s+ClusterRole/m,
    ]) {
      expect(result.stdout).toMatch(line);
    }
  });

  it('answers legacy discovery and v2beta1 aggregated discovery to clients that ask for them', async () => {
    const legacy = await fetch(`${cluster.url}/apis`, { headers: { Accept: 'application/json' } });
    const groups = (await legacy.json()) as {
      kind: string;
      groups: { name: string; preferredVersion: { groupVersion: string } }[];
    };
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups.map((group) => group.preferredVersion.groupVersion)).toEqual(
      expect.arrayContaining([
        'apps/v1',
        'batch/v1',
        'autoscaling/v2',
        'networking.k8s.io/v1',
        'policy/v1',
        'rbac.authorization.k8s.io/v1',
      ]),
    );
    const resources = (await (await fetch(`${cluster.url}/api/v1`)).json()) as { resources: { name: string }[] };
    expect(resources.resources.map((resource) => resource.name)).toContain('pods/log');
    const v2beta1 = await fetch(`${cluster.url}/api`, {
      headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' },
    });
    expect(v2beta1.headers.get('content-type')).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    );
    expect(await v2beta1.json()).toMatchObject({
      apiVersion: 'apidiscovery.k8s.io/v2beta1',
      items: [{ metadata: { name: '' } }],
    });
  });

  it('gets one object of each kind as JSON with the stored shape', async () => {
    const pod = await kubectl(cluster, ['get', 'po', 'get-a', '-o', 'json']);
    expect(pod.exitCode).toBe(0);
    expect(JSON.parse(pod.stdout)).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'get-a', labels: { app: 'get-test' } },
    });
    const config = await kubectl(cluster, ['get', 'cm', 'get-config', '-o', 'json']);
    expect(JSON.parse(config.stdout)).toMatchObject({ kind: 'ConfigMap', data: { key: 'value' } });
    const secret = await kubectl(cluster, ['get', 'secret', 'get-secret', '-o', 'jsonpath={.data.key}']);
    expect(secret.stdout).toBe('dmFsdWU=');
    const namespace = await kubectl(cluster, ['get', 'ns', 'shop', '-o', 'json']);
    expect(JSON.parse(namespace.stdout)).toMatchObject({ kind: 'Namespace', metadata: { name: 'shop' } });
  });

  it('lists every kind kubectl can name, empty or not', async () => {
    for (const kind of ['deploy', 'rs', 'sts', 'ds', 'svc', 'ev', 'quota', 'nodes', 'pods']) {
      const result = await kubectl(cluster, ['get', kind, '-o', 'json']);
      expect(result.exitCode, `${kind}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ kind: 'List', items: expect.any(Array) });
    }
  });

  it('prints YAML with -o yaml', async () => {
    const result = await kubectl(cluster, ['get', 'configmap', 'get-config', '-o', 'yaml']);
    expect(result.exitCode).toBe(0);
    expect(parseYaml(result.stdout)).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { key: 'value' } });
  });

  it('filters by label selector, equality and set-based', async () => {
    expect(names((await kubectl(cluster, ['get', 'pods', '-l', 'app=get-test', '-o', 'json'])).stdout)).toEqual([
      'get-a',
      'get-b',
    ]);
    expect(
      names((await kubectl(cluster, ['get', 'pods', '-l', 'app=get-test,tier!=back', '-o', 'json'])).stdout),
    ).toEqual(['get-a']);
    expect(names((await kubectl(cluster, ['get', 'pods', '-l', 'tier in (back)', '-o', 'json'])).stdout)).toEqual([
      'get-b',
    ]);
  });

  it('filters by field selector on metadata, status and involvedObject paths', async () => {
    expect(
      names((await kubectl(cluster, ['get', 'pods', '--field-selector', 'metadata.name=get-b', '-o', 'json'])).stdout),
    ).toEqual(['get-b']);
    expect(
      names(
        (await kubectl(cluster, ['get', 'pods', '--field-selector', 'status.phase!=Running', '-o', 'json'])).stdout,
      ),
    ).toEqual(['get-b']);
    const events = await kubectl(cluster, [
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=get-a,involvedObject.kind=Pod',
      '-o',
      'json',
    ]);
    expect(names(events.stdout)).toEqual(['get-a.1']);
    expect(
      names((await kubectl(cluster, ['get', 'ev', '--field-selector', 'type=Warning', '-o', 'json'])).stdout),
    ).toEqual(['get-b.1']);
  });

  it('lists across namespaces with -A and within one with -n', async () => {
    const all = await kubectl(cluster, ['get', 'pods', '-A', '-l', 'app=get-test', '-o', 'json']);
    expect(names(all.stdout)).toEqual(['get-a', 'get-b', 'get-c']);
    const shop = await kubectl(cluster, ['get', 'pods', '-n', 'shop', '-o', 'json']);
    expect(names(shop.stdout)).toEqual(['get-c']);
    const byNamespace = await kubectl(cluster, [
      'get',
      'pods',
      '-A',
      '--field-selector',
      'metadata.namespace=shop',
      '-o',
      'name',
    ]);
    expect(byNamespace.stdout.trim()).toBe('pod/get-c');
  });

  it('reports a missing object the way the real server does', async () => {
    const result = await kubectl(cluster, ['get', 'deployment', 'nope']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "nope" not found');
    const pod = await kubectl(cluster, ['get', 'pod', 'nope', '-n', 'shop']);
    expect(pod.stderr.trim()).toBe('Error from server (NotFound): pods "nope" not found');
  });
});

describe('server-side printing (kubectl get without -o)', () => {
  it('shows the real columns for pods, computed from their status', async () => {
    const result = await kubectl(cluster, ['get', 'pods', '-l', 'app=get-test']);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(lines[1]).toMatch(/^get-a\s+0\/1\s+Running\s+0\s+\d+s$/);
    expect(lines[2]).toMatch(/^get-b\s+0\/1\s+Pending\s+0\s+\d+s$/);
  });

  it('shows wide columns and namespaces with -o wide -A', async () => {
    const result = await kubectl(cluster, ['get', 'pods', '-A', '-o', 'wide', '-l', 'tier=front']);
    expect(result.stdout.split('\n')[0]).toMatch(
      /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/,
    );
    expect(result.stdout).toMatch(/\nshop\s+get-c\s+0\/1\s+Running\s+0\s+\d+s\s+<none>\s+node-1\s+<none>\s+<none>/);
  });

  it('prints events and configmaps with their columns', async () => {
    const events = await kubectl(cluster, ['get', 'events', '--field-selector', 'involvedObject.name=get-b']);
    expect(events.stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\S+\s+Warning\s+Failed\s+pod\/get-b/);
    const configMaps = await kubectl(cluster, ['get', 'cm', 'get-config']);
    expect(configMaps.stdout).toMatch(/^NAME\s+DATA\s+AGE\nget-config\s+1\s+\d+s$/);
  });
});
