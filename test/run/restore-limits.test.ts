// Before the apply: what a restore could not put back, or would put back by delete and create,
// from the pre-apply copies and the server dry run's objects (fixtures as the API returns them).
import { describe, expect, it } from 'vitest';
import { objectKey, refOf, type KubeObject } from '../../src/objects/model.js';
import { restoreLimits } from '../../src/run/apply/before-write/restore-limits.js';
import { fixture } from '../fixtures/load.js';

const claim = fixture('claims/bound');
const grown: KubeObject = {
  ...claim,
  spec: { ...(claim.spec as object), resources: { requests: { storage: '5Gi' } } },
};
const settings = fixture('configmaps/settings');
const job = fixture('jobs/complete');

const understood = (current: KubeObject[], wouldBe: KubeObject[], pruned: KubeObject[] = []) => ({
  refs: wouldBe.map(refOf),
  pruned: pruned.map(refOf),
  server: { ok: true as const, objects: wouldBe, pruned, warnings: '' },
  current: new Map(current.map((object) => [objectKey(refOf(object)), object])),
});

describe('restoreLimits', () => {
  it('names a claim whose storage request grows, a ConfigMap made immutable and a pruned Job that completed', () => {
    const limits = restoreLimits(
      understood([claim, settings], [grown, fixture('configmaps/settings-immutable')], [job]),
    );
    expect(limits.map(({ object, how }) => `${object.kind}/${object.name}: ${how}`)).toEqual([
      'PersistentVolumeClaim/data: cannot-restore',
      'ConfigMap/settings: delete-and-create',
      'Job/migrate: finished-job',
    ]);
    expect(limits[0]!.detail).toMatch(/^its storage request cannot go back from 5Gi to 1Gi/);
  });

  it('says nothing about what a restore puts back with a plain write, nor without the server dry run', () => {
    expect(restoreLimits(understood([claim, settings], [claim, { ...settings, data: { mode: 'slow' } }]))).toEqual([]);
    expect(
      restoreLimits({ ...understood([claim], [grown]), server: { ok: false, stderr: 'refused', timedOut: false } }),
    ).toEqual([]);
  });
});
