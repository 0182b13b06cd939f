// The TTL-after-finished controller: a finished Job with ttlSecondsAfterFinished is deleted, with
// its pods, that long after it finished; kubectl wait --for=delete sees it go.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { jobYaml, kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const withTtl = (yaml: string, seconds: number) =>
  yaml.replace('spec:\n', `spec:\n  ttlSecondsAfterFinished: ${seconds}\n`);

describe('TTL-after-finished controller', () => {
  it('deletes a Job and its pods ttlSecondsAfterFinished after it completed', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${withTtl(jobYaml('report', 'busybox:1.36', { runSeconds: 1 }), 30)}---\n${jobYaml('kept', 'busybox:1.36', { runSeconds: 1 })}`,
    );
    const complete = await kubectl(cluster, [
      'wait',
      '--for=condition=complete',
      'job/report',
      'job/kept',
      '--timeout=20s',
    ]);
    expect(complete.exitCode, complete.stderr).toBe(0);
    const finishedAt = Date.parse(
      (
        cluster.store.get('Job', 'default', 'report')!.status.conditions as {
          type: string;
          lastTransitionTime: string;
        }[]
      ).find((c) => c.type === 'Complete')!.lastTransitionTime,
    );
    expect(cluster.store.list('Pod', 'default', 'job-name=report')).toHaveLength(1);

    const gone = await kubectl(cluster, ['wait', '--for=delete', 'job/report', '--timeout=20s']);
    expect(gone.exitCode, gone.stderr).toBe(0);
    // Not before its time: 30 simulated seconds after the Complete condition.
    expect(cluster.clock.now().getTime() - finishedAt).toBeGreaterThanOrEqual(30_000);
    expect(cluster.store.list('Pod', 'default', 'job-name=report')).toEqual([]);
    expect(cluster.store.get('Job', 'default', 'kept')).toBeDefined();
  });
});
