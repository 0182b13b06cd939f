// What the API server refuses to take back, kind by kind (src/kinds/refusals.ts), on fixtures
// shaped as the API returns them: configmaps/, claims/bound.json, jobs/.
import { describe, expect, it } from 'vitest';
import { claimPutBack } from '../../src/kinds/claim.js';
import { jobRecreate } from '../../src/kinds/workloads/job.js';
import { immutablePutBack } from '../../src/kinds/refusals.js';
import type { KubeObject } from '../../src/objects/model.js';
import { fixture } from '../fixtures/load.js';

const settings = fixture('configmaps/settings');
const immutableSettings = fixture('configmaps/settings-immutable');
const claim = fixture('claims/bound');
const grown = (size: string): KubeObject => ({
  ...claim,
  spec: { ...(claim.spec as object), resources: { requests: { storage: size } } },
});

describe('immutablePutBack (ValidateConfigMapUpdate, ValidateSecretUpdate)', () => {
  it('takes delete and create for a ConfigMap the apply made immutable: it never becomes mutable again', () => {
    expect(immutablePutBack(settings, immutableSettings)).toEqual({
      how: 'delete-and-create',
      why: expect.stringMatching(
        /^immutable: true cannot be undone by a write \(immutable: Forbidden: field is immutable when `immutable` is set\)$/,
      ),
    });
  });

  it('takes delete and create when an immutable copy would change the data, and a plain write when only metadata differs', () => {
    const before = { ...immutableSettings, data: { mode: 'fast', workers: '4' } };
    expect(immutablePutBack(before, immutableSettings)?.why).toMatch(/its data cannot change \(data: Forbidden/);
    const relabelled = { ...immutableSettings, metadata: { ...immutableSettings.metadata, labels: { team: 'a' } } };
    expect(immutablePutBack(immutableSettings, relabelled)).toBeUndefined();
    expect(immutablePutBack(settings, { ...settings, data: { mode: 'slow' } })).toBeUndefined();
  });

  it('takes delete and create for a Secret whose type the apply changed (type: field is immutable)', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls', namespace: 'shop', uid: 's' },
      type: 'Opaque',
      data: { a: 'Yg==' },
    };
    expect(immutablePutBack(secret, { ...secret, type: 'kubernetes.io/tls' })?.how).toBe('delete-and-create');
  });
});

describe('claimPutBack (ValidatePersistentVolumeClaimUpdate)', () => {
  it('cannot take a grown storage request back down, in any unit', () => {
    expect(claimPutBack(claim, grown('2Gi'))).toEqual({
      how: 'impossible',
      why: expect.stringMatching(
        /^its storage request cannot go back from 2Gi to 1Gi: the API server never lets a claim's storage request go down \(spec\.resources\.requests\.storage: Forbidden: field can not be less than status\.capacity\)/,
      ),
      fields: [['spec', 'resources', 'requests', 'storage']],
    });
    expect(claimPutBack(grown('1Gi'), grown('1100Mi'))?.how).toBe('impossible');
    expect(claimPutBack(grown('1024Mi'), claim)).toBeUndefined();
    expect(claimPutBack(grown('2Gi'), claim)).toBeUndefined();
  });
});

describe('jobRecreate (validateGeneratedSelector)', () => {
  it('never creates again a Job that had completed or failed: it would run again', () => {
    expect(jobRecreate(fixture('jobs/complete'))).toEqual({
      how: 'never',
      why: expect.stringMatching(/^it had completed before the apply/),
    });
    expect(jobRecreate(fixture('jobs/failed-backoff-limit'))).toMatchObject({
      how: 'never',
      why: expect.stringMatching(/^it had failed/),
    });
  });

  it('creates a running Job again without the selector and labels generated for its old uid', () => {
    const running = fixture('jobs/running');
    const rule = jobRecreate(running);
    if (rule.how !== 'create') throw new Error('expected a copy');
    const copy = rule.copy as KubeObject & {
      spec: {
        selector?: unknown;
        manualSelector?: unknown;
        template: { metadata: { labels: Record<string, string> } };
      };
    };
    expect(copy.spec.selector).toBeUndefined();
    expect(copy.spec.manualSelector).toBeUndefined();
    expect(copy.spec.template.metadata.labels).toEqual({
      'batch.kubernetes.io/job-name': 'migrate',
      'job-name': 'migrate',
    });
    expect(copy.metadata.labels).toEqual({ 'batch.kubernetes.io/job-name': 'migrate', 'job-name': 'migrate' });
    expect(copy.metadata).not.toHaveProperty('uid');
    expect(copy).not.toHaveProperty('status');
  });

  it('keeps a manual selector as the user wrote it', () => {
    const running = fixture('jobs/running') as KubeObject & { spec: Record<string, unknown> };
    const manual: KubeObject = { ...running, spec: { ...running.spec, manualSelector: true } };
    const rule = jobRecreate(manual);
    expect(
      rule.how === 'create' && (rule.copy as KubeObject & { spec: Record<string, unknown> }).spec['selector'],
    ).toEqual(running.spec['selector']);
  });
});
