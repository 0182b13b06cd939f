// A kubelet whose pulls fail at the registry's token server (containerd: `failed to authorize:
// failed to fetch anonymous token: …`), transiently: the pulls succeed after `tokenFailures`
// attempts, so `kubectl rollout status` completes and the Failed events keep the real text.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { deploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

describe('pulls failing at the token server', () => {
  it('words DNS, TLS, 503 and 429 failures as containerd does, then pulls', async () => {
    cluster = await startCluster({
      timeScale: 40,
      scenario: {
        registry: {
          'nginx:1.25': { tokenServer: 'dns' },
          'ghcr.io/acme/api:1': { tokenServer: 'tls-timeout' },
          'redis:7': { tokenServer: '503', tokenFailures: 2 },
          'quay.io/org/app:3': { tokenServer: '429' },
        },
      },
    });
    const manifests = [
      deploymentYaml('web', 'nginx:1.25', { replicas: 1 }),
      deploymentYaml('api', 'ghcr.io/acme/api:1', { replicas: 1 }),
      deploymentYaml('cache', 'redis:7', { replicas: 1 }),
      deploymentYaml('app', 'quay.io/org/app:3', { replicas: 1 }),
    ];
    await kubectl(cluster, ['apply', '-f', '-'], manifests.join('---\n'));
    for (const name of ['web', 'api', 'cache', 'app']) {
      const rollout = await kubectl(cluster, ['rollout', 'status', `deployment/${name}`, '--timeout=20s']);
      expect(rollout.exitCode, `${name}: ${rollout.stderr}`).toBe(0);
    }
    const events = JSON.parse(
      (await kubectl(cluster, ['get', 'events', '--field-selector', 'reason=Failed', '-o', 'json'])).stdout,
    ) as { items: { message: string; count: number }[] };
    const pullFailures = events.items.filter((event) => event.message.startsWith('Failed to pull image'));
    const byImage = (image: string) =>
      pullFailures.find((event) => event.message.startsWith(`Failed to pull image "${image}"`));
    expect(byImage('nginx:1.25')?.message).toBe(
      'Failed to pull image "nginx:1.25": failed to pull and unpack image "docker.io/library/nginx:1.25": failed to resolve reference "docker.io/library/nginx:1.25": failed to authorize: failed to fetch anonymous token: Get "https://auth.docker.io/token?scope=repository%3Alibrary%2Fnginx%3Apull&service=registry.docker.io": dial tcp: lookup auth.docker.io on 172.18.0.1:53: no such host',
    );
    expect(byImage('ghcr.io/acme/api:1')?.message).toBe(
      'Failed to pull image "ghcr.io/acme/api:1": failed to pull and unpack image "ghcr.io/acme/api:1": failed to resolve reference "ghcr.io/acme/api:1": failed to authorize: failed to fetch anonymous token: Get "https://ghcr.io/token?scope=repository%3Aacme%2Fapi%3Apull&service=ghcr.io": net/http: TLS handshake timeout',
    );
    expect(byImage('redis:7')?.message).toBe(
      'Failed to pull image "redis:7": failed to pull and unpack image "docker.io/library/redis:7": failed to resolve reference "docker.io/library/redis:7": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fredis%3Apull&service=registry.docker.io: 503 Service Unavailable',
    );
    expect(byImage('redis:7')?.count).toBe(2);
    expect(byImage('quay.io/org/app:3')?.message).toBe(
      'Failed to pull image "quay.io/org/app:3": failed to pull and unpack image "quay.io/org/app:3": failed to resolve reference "quay.io/org/app:3": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://quay.io/token?scope=repository%3Aorg%2Fapp%3Apull&service=quay.io: 429 Too Many Requests',
    );
  });
});
