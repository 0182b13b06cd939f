// The cluster a test started, stopped when the test ends (Cluster.stop is idempotent): the
// kube-sim tests keep `let cluster: Cluster | undefined;` and call stopAfterEach(() => cluster).
import { afterEach } from 'vitest';
import type { Cluster } from '../cluster.js';

export function stopAfterEach(started: () => Cluster | undefined): void {
  afterEach(async () => {
    await started()?.stop();
  });
}
