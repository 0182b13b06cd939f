// What the tracker's tests share: a poll-driven tracking of the rollout (the options), and the
// Deployment web of fixture progressing-new-rs with its two ReplicaSets.
import type { TrackTarget } from '../../src/track/tracker.js';
import { expectationOf } from '../fakes.js';
import { deployment, replicaSet } from '../fixtures/load.js';

export const POLLED_ROLLOUT = {
  timeoutMs: 600_000,
  pollIntervalMs: 2000,
  watching: 'rollout' as const,
  stopWhenAnyFails: true,
  watch: false,
  logLines: 5,
};

export const web = deployment('progressing-new-rs');
export const webTarget: TrackTarget = {
  workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
  expected: expectationOf(web),
};
export const webReplicaSets = [replicaSet('progressing-old'), replicaSet('progressing-new')];
