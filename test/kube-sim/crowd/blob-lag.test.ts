// A registry still replicating after a push: the tag resolves but a layer blob is not there yet
// (containerd: `failed to copy: httpReadSeeker: failed open: could not fetch content descriptor
// … from remote: not found`); after `blobNotFoundPulls` attempts the pull succeeds.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { deploymentYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

describe('a layer blob not replicated yet', () => {
  it("fails the first pulls with containerd's blob text, then pulls", async () => {
    cluster = await startCluster({
      timeScale: 40,
      scenario: { registry: { 'registry.example.com/shop/web:2': { blobNotFoundPulls: 2 } } },
    });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      deploymentYaml('web', 'registry.example.com/shop/web:2', { replicas: 1 }),
    );
    const rollout = await kubectl(cluster, ['rollout', 'status', 'deployment/web', '--timeout=20s']);
    expect(rollout.exitCode, rollout.stderr).toBe(0);
    const events = JSON.parse(
      (await kubectl(cluster, ['get', 'events', '--field-selector', 'reason=Failed', '-o', 'json'])).stdout,
    ) as { items: { message: string; count: number }[] };
    const failure = events.items.find((event) => event.message.startsWith('Failed to pull image'));
    expect(failure?.message).toMatch(
      /^Failed to pull image "registry\.example\.com\/shop\/web:2": failed to pull and unpack image "registry\.example\.com\/shop\/web:2": failed to copy: httpReadSeeker: failed open: could not fetch content descriptor sha256:[0-9a-f]{64} \(application\/vnd\.oci\.image\.layer\.v1\.tar\+gzip\) from remote: not found$/,
    );
    expect(failure?.count).toBe(2);
  });
});
