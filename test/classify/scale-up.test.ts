// A pod no node matches waits while a node autoscaler brings a node: cluster-autoscaler's
// TriggeredScaleUp (eventing_scale_up_processor.go) or Karpenter's Nominated event.
import { describe, expect, it } from 'vitest';
import { NO_CLUES, podsNeedingEvents, rememberClues } from '../../src/classify/clues.js';
import { classifyPod } from '../../src/classify/pod.js';
import type { KubeEvent } from '../../src/kube.js';
import { pod } from '../fixtures/load.js';

const unplaced = pod('unschedulable-node-selector');
const event = (reason: string, message: string, component: string): KubeEvent => ({
  metadata: { name: `${unplaced.metadata.name}.1879a6b3c0d4e5f6`, namespace: unplaced.metadata.namespace },
  type: 'Normal',
  reason,
  message,
  involvedObject: {
    kind: 'Pod',
    name: unplaced.metadata.name,
    namespace: unplaced.metadata.namespace,
    uid: unplaced.metadata.uid,
  },
  source: { component },
});

describe('a node autoscaler bringing a node', () => {
  it('asks for the events of a pod no node matches', () => {
    expect(podsNeedingEvents([unplaced], NO_CLUES).unplaced.map((candidate) => candidate.metadata.name)).toEqual([
      unplaced.metadata.name,
    ]);
  });

  it.each([
    ['TriggeredScaleUp', 'pod triggered scale-up: [{gpu-pool 0->1 (max: 3)}]', 'cluster-autoscaler'],
    ['Nominated', 'Pod should schedule on: nodeclaim/default-x7k2p', 'karpenter'],
  ])('%s makes "no node matches" a wait, not a failure after its grace', (reason, message, component) => {
    const before = classifyPod(unplaced, NO_CLUES);
    expect(before[0]?.policy).toMatchObject({ when: 'after', seconds: 30 });
    const clues = rememberClues(NO_CLUES, [unplaced], { pod: unplaced, events: [event(reason, message, component)] });
    expect(classifyPod(unplaced, clues)[0]).toMatchObject({ reason: 'Unschedulable', policy: { when: 'never' } });
    // Once known, its events are not read again for that.
    expect(podsNeedingEvents([unplaced], clues).unplaced).toEqual([]);
  });
});
