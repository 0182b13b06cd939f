// What the simulator's tests do around their clusters under vitest (kept apart from
// testing/kubectl.ts, which the demo and the bench load too).
import { afterEach, expect } from 'vitest';
import type { Cluster } from '../cluster.js';
import { kubectl } from './kubectl.js';

/** The cluster a test started, stopped when the test ends (Cluster.stop is idempotent): `stopAfterEach(() => cluster)`. */
export function stopAfterEach(started: () => Cluster | undefined): void {
  afterEach(async () => {
    await started()?.stop();
  });
}

/** `kubectl apply -f -` of `yaml`, which must succeed. */
export async function applied(cluster: Cluster, yaml: string): Promise<void> {
  const result = await kubectl(cluster, ['apply', '-f', '-'], yaml);
  expect(result.exitCode, result.stderr).toBe(0);
}
