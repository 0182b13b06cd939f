// The restore plan and the commands for a person never ask for a write the API server refuses:
// an immutable ConfigMap goes back by delete and create, a claim's grown storage request stays,
// a finished Job that was pruned is not created again, a pruned object is created, not replaced.
import { describe, expect, it } from 'vitest';
import { refOf, type KubeObject } from '../../src/objects/model.js';
import { manualRestore } from '../../src/restore/manual.js';
import { planRestore } from '../../src/restore/plan.js';
import { fixture } from '../fixtures/load.js';
import { planned } from './planned.js';

const kubectl = (args: string[]) => ['kubectl', ...args].join(' ');
const web = fixture('deployments/complete');
const failing = planned(web, { ...web, spec: { replicas: 9 } }, 'failed');
const settings = fixture('configmaps/settings');
const immutableSettings = fixture('configmaps/settings-immutable');
const claim = fixture('claims/bound');
const grownClaim: KubeObject = {
  ...claim,
  spec: { ...(claim.spec as object), resources: { requests: { storage: '2Gi' } } },
};

describe("planRestore with the API server's refusals", () => {
  it('puts an immutable ConfigMap back by delete and create of its pre-apply copy', () => {
    const [step] = planRestore([planned(settings, immutableSettings), failing], 'all', { keepCreated: false });
    expect(step).toMatchObject({
      action: 'replace',
      before: settings,
      applied: immutableSettings,
      copy: { data: { mode: 'fast', workers: '4' } },
      why: expect.stringMatching(/cannot be undone/),
    });
    expect(step).not.toHaveProperty('copy.metadata.uid');
    expect(manualRestore(step!).commands(kubectl, '/tmp/k/settings.json')).toEqual([
      'kubectl delete configmap/settings -n shop',
      'kubectl create -f /tmp/k/settings.json',
    ]);
  });

  it('never deletes an immutable ConfigMap a controller owns, not even to create its copy: kept, said', () => {
    const owner = [{ apiVersion: 'example.com/v1', kind: 'App', name: 'shop', uid: 'app-uid', controller: true }];
    const owned = (object: KubeObject): KubeObject => ({
      ...object,
      metadata: { ...object.metadata, ownerReferences: owner },
    });
    const [step] = planRestore([planned(owned(settings), owned(immutableSettings)), failing], 'all', {
      keepCreated: false,
    });
    expect(step).toMatchObject({
      action: 'keep',
      reason: 'cannot-restore',
      detail: expect.stringMatching(/a controller owns it, and kguard does not delete it$/),
    });
  });

  it('keeps a claim whose storage request grew: no write takes it back down', () => {
    // As kubectl apply leaves it: its own record of the manifest changes with the storage request.
    const lastApplied = (storage: string) => ({
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
        spec: { resources: { requests: { storage } } },
      }),
    });
    const before = {
      ...claim,
      metadata: { ...claim.metadata, annotations: { ...claim.metadata.annotations, ...lastApplied('1Gi') } },
    };
    const after = {
      ...grownClaim,
      metadata: { ...grownClaim.metadata, annotations: { ...claim.metadata.annotations, ...lastApplied('2Gi') } },
    };
    const [step] = planRestore([planned(before, after), failing], 'all', { keepCreated: false });
    expect(step).toMatchObject({
      action: 'keep',
      reason: 'cannot-restore',
      detail: expect.stringMatching(/^its storage request cannot go back from 2Gi to 1Gi/),
    });
    // Nothing else differs: there is nothing to write, only to look at.
    expect(manualRestore(step!).commands(kubectl)).toEqual(['kubectl get persistentvolumeclaim/data -n shop -o yaml']);
  });

  it('with other fields changed too, says how to put those back with the storage request as it is', () => {
    const relabelled: KubeObject = { ...grownClaim, metadata: { ...grownClaim.metadata, labels: { tier: 'gold' } } };
    const [step] = planRestore([planned(claim, relabelled), failing], 'all', { keepCreated: false });
    const manual = manualRestore(step!);
    expect(manual.copy).toMatchObject({ spec: { resources: { requests: { storage: '2Gi' } } } });
    expect(manual.copy?.metadata.labels).toBeUndefined();
    expect(manual.commands(kubectl, '/tmp/k/data.json')).toEqual([
      'kubectl replace -f /tmp/k/data.json    # puts back the rest of it; spec.resources.requests.storage stays as it is',
    ]);
  });

  it('never creates again a pruned Job that had completed; a running one comes back without its old selector', () => {
    const [complete] = planRestore([planned(fixture('jobs/complete'), undefined), failing], 'all', {
      keepCreated: false,
    });
    expect(complete).toMatchObject({
      action: 'keep',
      reason: 'finished-job',
      detail: expect.stringMatching(/would run its pods again/),
    });
    expect(manualRestore(complete!).commands(kubectl, '/tmp/k/job.json')).toEqual([]);
    const [running] = planRestore([planned(fixture('jobs/running'), undefined), failing], 'all', {
      keepCreated: false,
    });
    expect(running).toMatchObject({ action: 'recreate' });
    expect(running).not.toHaveProperty('copy.spec.selector');
  });
});

describe('manualRestore with --rollback none', () => {
  const none = (before: KubeObject | undefined, after: KubeObject | undefined) =>
    planRestore([planned(before, after, 'failed')], 'none', { keepCreated: false })[0]!;

  it('prints delete and create for a ConfigMap the apply made immutable, never a replace the server refuses', () => {
    const manual = manualRestore(none(settings, immutableSettings));
    expect(manual.copy).not.toHaveProperty('metadata.uid');
    expect(manual.commands(kubectl, '/tmp/k/settings.json')).toEqual([
      'kubectl delete configmap/settings -n shop',
      'kubectl create -f /tmp/k/settings.json',
    ]);
  });

  it('prints a create, not a replace, for an object the apply pruned', () => {
    expect(manualRestore(none(settings, undefined)).commands(kubectl, '/tmp/k/settings.json')).toEqual([
      'kubectl create -f /tmp/k/settings.json',
    ]);
  });

  it('prints nothing that would run a pruned Job again', () => {
    expect(manualRestore(none(fixture('jobs/complete'), undefined)).commands(kubectl, '/tmp/k/job.json')).toEqual([]);
  });
});

describe('manualRestore when someone else changed it', () => {
  it("offers the delete and create of an immutable ConfigMap only as the person's call", () => {
    const keep = {
      ref: refOf(settings),
      action: 'keep' as const,
      reason: 'conflict' as const,
      before: settings,
      applied: immutableSettings,
    };
    expect(
      manualRestore(keep, {
        ...immutableSettings,
        metadata: { ...immutableSettings.metadata, labels: { x: 'y' } },
      }).commands(kubectl, '/tmp/k/s.json'),
    ).toEqual([
      'kubectl get configmap/settings -n shop -o yaml',
      'kubectl delete configmap/settings -n shop    # only if you decide the pre-apply copy should win',
      'kubectl create -f /tmp/k/s.json    # only if you decide the pre-apply copy should win',
    ]);
  });

  it('creates (not replaces) the copy of an object someone else deleted', () => {
    const keep = {
      ref: refOf(settings),
      action: 'keep' as const,
      reason: 'gone' as const,
      before: settings,
      applied: immutableSettings,
    };
    expect(manualRestore(keep, null).commands(kubectl, '/tmp/k/s.json')).toEqual([
      'kubectl create -f /tmp/k/s.json    # only if you decide the pre-apply copy should come back',
    ]);
    // The tracker saw it go (nothing read since): the same.
    expect(manualRestore(keep).commands(kubectl, '/tmp/k/s.json')).toEqual([
      'kubectl create -f /tmp/k/s.json    # only if you decide the pre-apply copy should come back',
    ]);
    expect(manualRestore(keep).copy).not.toHaveProperty('metadata.uid');
  });
});
