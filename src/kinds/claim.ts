// PersistentVolumeClaim: done when Bound (kstatus pvcConditions); phase Lost fails it. A claim of
// a WaitForFirstConsumer StorageClass stays Pending until a pod uses it: annotate it
// kguard.dev/track: "false" when nothing in the same apply mounts it.
import { CLAIM_LOST } from '../classify/conditions.js';
import type { StatusConventions } from '../kube.js';
import type { RolloutRules } from './engine.js';

export const claimRules: RolloutRules<StatusConventions> = {
  controller: 'persistentvolume controller',
  observed: () => true,
  newPods: () => [],
  wait: (claim) => (claim.status?.phase === 'Bound' ? undefined : `waiting for the claim to be bound (phase ${claim.status?.phase ?? 'Pending'})`),
  failure: (claim) => (claim.status?.phase === 'Lost' ? { source: 'condition', reason: 'Lost', message: 'the claim lost its PersistentVolume', rule: CLAIM_LOST } : undefined),
  progress: (claim) => ({ desired: 0, updated: 0, ready: 0, available: 0, summary: `phase ${claim.status?.phase ?? 'Pending'}` }),
};
