// The pipeline's error paths, one line each: the in-memory cluster (fake-kubectl.ts) with one
// capability failing the way the real kubectl fails (failing-kubectl.ts).
import { describe, expect, it } from 'vitest';
import { KubectlError } from '../../src/errors.js';
import type { Kubectl } from '../../src/kubectl/types.js';
import { runApply } from '../../src/run/apply/apply.js';
import { exitCodeFor } from '../../src/run/apply/result.js';
import { fakeCluster } from './fake-kubectl.js';
import { type Failure, failingKubectl } from './failing-kubectl.js';
import { configAfter, configBefore, depsFor, doomedPod, options } from './pipeline-fixtures.js';

/** A run that changes a ConfigMap and creates a Pod that cannot pull its image, with `failures`. */
async function doomedRun(failures: Partial<Record<keyof Kubectl, Failure>>) {
  const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
  const kubectl = failingKubectl(cluster.kubectl, failures);
  const run = runApply(options, depsFor({ kubectl }));
  return { cluster, run };
}

const writes = (calls: readonly string[]) =>
  calls.filter((call) => ['apply', 'replace', 'create', 'deleteExact'].includes(call));

describe('runApply when kubectl fails', () => {
  it('a refused server dry run applies nothing', async () => {
    const { cluster, run } = await doomedRun({ dryRun: 'forbidden' });
    await expect(run).rejects.toThrow(/forbidden/);
    expect(writes(cluster.calls)).toEqual([]);
  });

  it('an unreachable API server at the apply stops the run with kubectl error, nothing to restore', async () => {
    const { cluster, run } = await doomedRun({ apply: 'unreachable' });
    await expect(run).rejects.toBeInstanceOf(KubectlError);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
  });

  it('a restore write the API server forbids ends exit 4, with that object "restore failed"', async () => {
    const { run } = await doomedRun({ replace: 'forbidden' });
    const result = await run;
    expect(exitCodeFor(result)).toBe(4);
    expect(result.objects.find((object) => object.ref.kind === 'ConfigMap')?.restore?.status).toBe('failed');
  });

  it('a created object the restore cannot delete ends exit 4, the other object still restored', async () => {
    const { cluster, run } = await doomedRun({ deleteExact: 'forbidden' });
    const result = await run;
    expect(exitCodeFor(result)).toBe(4);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
    expect(result.objects.find((object) => object.ref.kind === 'Pod')?.restore?.status).toBe('failed');
  });
});
