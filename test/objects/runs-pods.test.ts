import { describe, expect, it } from 'vitest';
import { runsPods } from '../../src/objects/model.js';
import { rowFor } from '../../src/kinds/table.js';

describe('runsPods: the one rule for which kinds run pods', () => {
  it.each([
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'StatefulSet'],
    ['apps/v1', 'DaemonSet'],
    ['apps/v1', 'ReplicaSet'],
    ['v1', 'ReplicationController'],
    ['batch/v1', 'Job'],
    ['batch/v1', 'CronJob'],
    ['v1', 'Pod'],
  ])('%s %s runs pods', (apiVersion, kind) => {
    expect(runsPods({ apiVersion, kind })).toBe(true);
  });

  it.each([
    ['v1', 'ConfigMap'],
    ['v1', 'Service'],
    ['v1', 'PodTemplate'],
    ['argoproj.io/v1alpha1', 'Rollout'],
    // A custom resource named like a built-in kind, in a group of its own, runs no pods of its own.
    ['example.com/v1', 'Deployment'],
    ['example.com/v1', 'Pod'],
  ])('%s %s does not', (apiVersion, kind) => {
    expect(runsPods({ apiVersion, kind })).toBe(false);
  });

  it('every kind-table row with a pod template is a kind that runs pods, but for PodTemplate', () => {
    for (const [apiVersion, kind] of [
      ['apps/v1', 'Deployment'],
      ['apps/v1', 'StatefulSet'],
      ['apps/v1', 'DaemonSet'],
      ['apps/v1', 'ReplicaSet'],
      ['batch/v1', 'Job'],
      ['batch/v1', 'CronJob'],
      ['v1', 'Pod'],
    ] as const) {
      expect(rowFor({ apiVersion, kind }).podSpecAt, `${apiVersion} ${kind}`).toBeDefined();
    }
  });
});
