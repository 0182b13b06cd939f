// A run's Leases as data (src/journal/lease.ts): what one Lease lists, how big it may get, and
// when another run's Lease counts as expired.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  claimsOf,
  decodeKeys,
  encodeKeys,
  heldOf,
  LeaseObservations,
  OBJECTS_ANNOTATION,
  runLeases,
} from '../../src/journal/lease.js';
import type { KubeObject, ObjectRef } from '../../src/objects/model.js';

/** The API server's limit on all annotations of one object (apimachinery TotalAnnotationSizeLimitB). */
const ANNOTATIONS_LIMIT = 256 * 1024;

const annotationsSize = (lease: KubeObject) =>
  Object.entries(lease.metadata.annotations ?? {}).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
const keysOf = (lease: KubeObject) => decodeKeys(lease.metadata.annotations?.[OBJECTS_ANNOTATION]);

describe('the Leases of a run', () => {
  it('lists 1,000 objects of a namespace in one Lease, well within what the API server allows for annotations', () => {
    const keys = Array.from(
      { length: 1000 },
      (_, index) => `apps/Deployment/payments-production/checkout-service-worker-${index}`,
    );
    const leases = runLeases('kguard-abc-123', 'payments-production', keys, 120, new Date());
    expect(leases).toHaveLength(1);
    expect(leases[0]!.metadata.name).toBe('kguard-abc-123');
    expect(annotationsSize(leases[0]!)).toBeLessThan(ANNOTATIONS_LIMIT / 4);
    expect(keysOf(leases[0]!)).toEqual([...keys].sort());
  });

  it('keeps a short list readable and compresses a long one', () => {
    expect(encodeKeys(['/ConfigMap/shop/settings'])).toBe('["/ConfigMap/shop/settings"]');
    const long = Array.from({ length: 2000 }, (_, index) => `/ConfigMap/shop/settings-${index}`);
    expect(encodeKeys(long)).toMatch(/^gzip,base64:/);
    expect(decodeKeys(encodeKeys(long))).toEqual(long);
  });

  it('spreads objects over more Leases of the same run when one Lease cannot hold them', () => {
    // Random names do not compress: about 1.2 MB of keys.
    const keys = Array.from({ length: 20_000 }, () => `/ConfigMap/shop/${randomBytes(24).toString('hex')}`);
    const leases = runLeases('kguard-abc-123', 'shop', keys, 120, new Date());
    expect(leases.length).toBeGreaterThan(1);
    expect(leases.map((lease) => lease.metadata.name).slice(0, 3)).toEqual([
      'kguard-abc-123',
      'kguard-abc-123-2',
      'kguard-abc-123-3',
    ]);
    for (const lease of leases) expect(annotationsSize(lease)).toBeLessThan(ANNOTATIONS_LIMIT);
    expect(leases.flatMap((lease) => keysOf(lease) ?? []).sort()).toEqual([...keys].sort());
  });

  it('claims cluster-scoped objects in the home namespace', () => {
    const refs: ObjectRef[] = [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespace: '', name: 'reader' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'web', name: 'settings' },
    ];
    const claims = claimsOf(refs, 'shop');
    expect([...claims].map(([namespace, keys]) => [namespace, [...keys.keys()]])).toEqual([
      ['shop', ['rbac.authorization.k8s.io/ClusterRole//reader']],
      ['web', ['/ConfigMap/web/settings']],
    ]);
  });

  it('a Lease whose objects cannot be read holds every object this run wants there', () => {
    const wanted = claimsOf([{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' }], 'shop').get(
      'shop',
    )!;
    const [lease] = runLeases('kguard-other', 'shop', ['/ConfigMap/shop/other'], 120, new Date());
    expect(heldOf(lease!, wanted)).toEqual([]);
    const damaged = {
      ...lease!,
      metadata: { ...lease!.metadata, annotations: { [OBJECTS_ANNOTATION]: 'gzip,base64:not-gzip' } },
    };
    expect(heldOf(damaged, wanted)).toEqual([...wanted.values()]);
  });
});

describe('LeaseObservations', () => {
  const lease = (resourceVersion: string, renewTime: string): KubeObject => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'kguard-other', namespace: 'shop', uid: 'uid-1', resourceVersion },
    spec: { holderIdentity: 'kguard-other', leaseDurationSeconds: 10, renewTime },
  });

  it('expires a Lease only once this run has seen it unchanged for longer than its duration, whatever its renewTime says', () => {
    const observations = new LeaseObservations();
    // Renewed a day ago by the holder's clock: no reason to believe it, nor to distrust it.
    const old = lease('7', '2000-01-01T00:00:00.000000Z');
    observations.see(old, 1_000);
    expect(observations.expired(old, 1_000)).toBe(false);
    observations.see(old, 11_000);
    expect(observations.expired(old, 11_000)).toBe(false);
    observations.see(old, 11_001);
    expect(observations.expired(old, 11_001)).toBe(true);
  });

  it('starts counting again when the resourceVersion moves (its holder renewed it)', () => {
    const observations = new LeaseObservations();
    observations.see(lease('7', '2999-01-01T00:00:00.000000Z'), 0);
    const renewedLease = lease('8', '2999-01-01T00:00:00.000000Z');
    observations.see(renewedLease, 9_000);
    expect(observations.expired(renewedLease, 15_000)).toBe(false);
    expect(observations.expired(renewedLease, 19_001)).toBe(true);
    // A Lease never seen before is not expired, however old it looks.
    expect(new LeaseObservations().expired(renewedLease, 1e12)).toBe(false);
  });
});
