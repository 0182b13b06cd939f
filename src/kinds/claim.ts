// PersistentVolumeClaim: done when Bound (kstatus pvcConditions); phase Lost fails it. A claim of
// a WaitForFirstConsumer StorageClass stays Pending until a pod uses it: annotate it
// kguard.dev/track: "false" when nothing in the same apply mounts it.
import { CLAIM_LOST } from '../classify/conditions.js';
import type { StatusConventions } from '../kube.js';
import type { RolloutRules } from './engine.js';
import type { KubeObject } from '../objects/model.js';
import { quantityValue } from '../objects/quantity.js';
import type { PutBackRule } from './refusals.js';

export const claimRules: RolloutRules<StatusConventions> = {
  controller: 'persistentvolume controller',
  observed: () => true,
  newPods: () => [],
  wait: (claim) =>
    claim.status?.phase === 'Bound'
      ? undefined
      : `waiting for the claim to be bound (phase ${claim.status?.phase ?? 'Pending'})`,
  failure: (claim) =>
    claim.status?.phase === 'Lost'
      ? { source: 'condition', reason: 'Lost', message: 'the claim lost its PersistentVolume', rule: CLAIM_LOST }
      : undefined,
  progress: (claim) => ({
    desired: 0,
    updated: 0,
    ready: 0,
    available: 0,
    summary: `phase ${claim.status?.phase ?? 'Pending'}`,
  }),
};

const STORAGE = ['spec', 'resources', 'requests', 'storage'] as const;

/**
 * A claim's storage request never goes back down (pkg/apis/core/validation/validation.go
 * ValidatePersistentVolumeClaimUpdate): `spec.resources.requests.storage: Forbidden: field can not
 * be less than status.capacity` from 1.32 (RecoverVolumeExpansionFailure lets a request go down
 * only to above the capacity, to undo a failed expansion), `field can not be less than previous
 * value` before. A volume does not shrink either way, so a restore cannot put back a request that
 * grew: it says so, and the rest of the copy can still go back with the request as it is now.
 */
export function claimPutBack(before: KubeObject, current: KubeObject): PutBackRule | undefined {
  const was = storageOf(before);
  const now = storageOf(current);
  const wasValue = quantityValue(was);
  const nowValue = quantityValue(now);
  if (wasValue === undefined || nowValue === undefined || wasValue >= nowValue) return undefined;
  return {
    how: 'impossible',
    why:
      `its storage request cannot go back from ${String(now)} to ${String(was)}: the API server never lets a claim's storage request go down ` +
      '(spec.resources.requests.storage: Forbidden: field can not be less than status.capacity): a volume does not shrink',
    fields: [STORAGE],
  };
}

function storageOf(claim: KubeObject): unknown {
  return (claim as { spec?: { resources?: { requests?: { storage?: unknown } } } }).spec?.resources?.requests?.storage;
}
