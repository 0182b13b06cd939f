// An aggregated APIService registered but unavailable (external.metrics.k8s.io with its adapter
// down), with the real kubectl 1.32:
// - a server serving aggregated discovery lists the group version Stale with no resources;
//   kubectl 1.32 leaves it out without a word (its memory cache keeps only the versions of each
//   group, and a stale one is not among them): api-resources exits 0;
// - without aggregated discovery (a server before 1.27, or a proxy), kubectl asks
//   /apis/external.metrics.k8s.io/v1beta1 itself, gets 503 and fails api-resources with the
//   well-known text; other commands log memcache errors and go on.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { deploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const UNAVAILABLE = 'external.metrics.k8s.io/v1beta1: the server is currently unable to handle the request';
// klog's line for the failed group: kubectl 1.32 wraps it as an "Unhandled Error", 1.29 prints it bare.
const MEMCACHE_LINE =
  /^E\d{4} [\d:.]+\s+\d+ memcache\.go:\d+\] (?:"Unhandled Error" err="couldn't get resource list for external\.metrics\.k8s\.io\/v1beta1: the server is currently unable to handle the request"|couldn't get resource list for external\.metrics\.k8s\.io\/v1beta1: the server is currently unable to handle the request)$/;

describe('an unavailable aggregated APIService', () => {
  it('legacy discovery: api-resources exits 1 with the real error, get deploy works with memcache errors, the group version answers 503', async () => {
    cluster = await startCluster({
      controllers: false,
      scenario: { apiServices: ['v1beta1.external.metrics.k8s.io'], aggregatedDiscovery: false },
    });
    const applied = await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'));
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout).toBe('deployment.apps/web created');

    const resources = await kubectl(cluster, ['api-resources']);
    expect(resources.exitCode).toBe(1);
    const lines = resources.stderr.split('\n');
    expect(lines.at(-1)).toBe(`error: unable to retrieve the complete list of server APIs: ${UNAVAILABLE}`);
    for (const line of lines.slice(0, -1)) expect(line).toMatch(MEMCACHE_LINE);
    expect(resources.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);

    const get = await kubectl(cluster, ['get', 'deploy', '-o', 'name']);
    expect(get.exitCode).toBe(0);
    expect(get.stdout).toBe('deployment.apps/web');
    expect(get.stderr.split('\n').every((line) => MEMCACHE_LINE.test(line))).toBe(true);

    const raw = await kubectl(cluster, ['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1']);
    expect(raw.exitCode).toBe(1);
    expect(raw.stderr).toBe(
      'Error from server (ServiceUnavailable): the server is currently unable to handle the request',
    );
    const response = await fetch(`${cluster.url}/apis/external.metrics.k8s.io/v1beta1`);
    expect(response.status).toBe(503);
    expect(await response.text()).toBe('service unavailable\n');
    expect(
      cluster.requests.some(
        (request) => request.url.startsWith('/apis/external.metrics.k8s.io/v1beta1') && request.status === 503,
      ),
    ).toBe(true);
  });

  it('aggregated discovery: the group version is Stale without resources, and kubectl 1.32 drops it silently', async () => {
    cluster = await startCluster({
      controllers: false,
      scenario: { apiServices: ['v1beta1.external.metrics.k8s.io'] },
    });
    const document = (await (
      await fetch(`${cluster.url}/apis`, {
        headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
      })
    ).json()) as { items: { metadata: { name: string }; versions: unknown[] }[] };
    expect(document.items.find((item) => item.metadata.name === 'external.metrics.k8s.io')?.versions).toEqual([
      { version: 'v1beta1', freshness: 'Stale' },
    ]);

    const resources = await kubectl(cluster, ['api-resources']);
    expect(resources.exitCode, resources.stderr).toBe(0);
    expect(resources.stderr).toBe('');
    expect(resources.stdout).not.toContain('external.metrics.k8s.io');
    const get = await kubectl(cluster, ['get', 'deploy']);
    expect(get.exitCode).toBe(0);
    expect(get.stderr).toBe('No resources found in default namespace.');
    // kubectl never asks the group version itself.
    expect(cluster.requests.some((request) => request.url.includes('external.metrics'))).toBe(false);
  });

  it('registers the APIService as the available controller leaves it', async () => {
    cluster = await startCluster({
      controllers: false,
      scenario: {
        apiServices: [
          { name: 'v1beta1.metrics.k8s.io', service: { namespace: 'kube-system', name: 'metrics-server' } },
        ],
      },
    });
    const shown = await kubectl(cluster, [
      'get',
      'apiservice',
      'v1beta1.metrics.k8s.io',
      '-o',
      'jsonpath={.status.conditions[0].reason}: {.status.conditions[0].message}',
    ]);
    expect(shown.stdout).toBe(
      'MissingEndpoints: endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"',
    );
  });
});
