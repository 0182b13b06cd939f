import { describe, expect, it } from 'vitest';
import { runsPods } from '../../src/objects/model.js';
import { rowFor } from '../../src/kinds/table.js';

const RUN_PODS = [
  'apps/v1 Deployment',
  'apps/v1 StatefulSet',
  'apps/v1 DaemonSet',
  'apps/v1 ReplicaSet',
  'v1 ReplicationController',
  'batch/v1 Job',
  'batch/v1 CronJob',
  'v1 Pod',
];
// A custom resource named like a built-in kind, in a group of its own, runs no pods of its own.
const RUN_NONE = [
  'v1 ConfigMap',
  'v1 Service',
  'v1 PodTemplate',
  'argoproj.io/v1alpha1 Rollout',
  'example.com/v1 Deployment',
  'example.com/v1 Pod',
];
const refOf = (text: string) => {
  const [apiVersion, kind] = text.split(' ') as [string, string];
  return { apiVersion, kind };
};

describe('runsPods: the one rule for which kinds run pods', () => {
  it.each(RUN_PODS)('%s runs pods', (text) => expect(runsPods(refOf(text))).toBe(true));
  it.each(RUN_NONE)('%s does not', (text) => expect(runsPods(refOf(text))).toBe(false));

  it('each of them with a row in the kind table has its pod template there', () => {
    const withRows = RUN_PODS.map(refOf).filter((ref) => ref.kind !== 'ReplicationController');
    for (const ref of withRows) expect(rowFor(ref).podSpecAt, ref.kind).toBeDefined();
  });
});
