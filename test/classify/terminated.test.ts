// Whose trouble a pod that ended is: the node's (a note, its replacement counts) or the release's
// (judged as before). Fixtures: real shapes, test/fixtures/README.md.
import { describe, expect, it } from 'vitest';
import { isPodActive, terminationNote, terminationOf } from '../../src/classify/terminated.js';
import { pod } from '../fixtures/load.js';

describe('isPodActive (controller_utils.go IsPodActive)', () => {
  it('counts a running pod and a pending one, not a failed, succeeded or deleted one', () => {
    expect(isPodActive(pod('running-ready'))).toBe(true);
    expect(isPodActive(pod('container-creating'))).toBe(true);
    expect(isPodActive(pod('evicted-node-pressure'))).toBe(false);
    expect(isPodActive({ ...pod('running-ready'), status: { phase: 'Succeeded' } })).toBe(false);
    expect(isPodActive(pod('terminating-old-pod'))).toBe(false);
  });
});

describe('terminationOf', () => {
  it('has nothing to say about an active pod or one being deleted', () => {
    expect(terminationOf(pod('running-ready'))).toBeUndefined();
    expect(terminationOf(pod('crash-loop-backoff'))).toBeUndefined();
    expect(terminationOf(pod('terminating-old-pod'))).toBeUndefined();
  });

  it.each([
    ['evicted-node-pressure', 'was evicted by its node (memory pressure)'],
    ['evicted-node-pressure-1.26', 'was evicted by its node (memory pressure)'],
    ['node-shutdown', 'was ended by the graceful shutdown of its node'],
    [
      'rejected-out-of-cpu',
      "was rejected by the kubelet of node kguard-worker (OutOfcpu: Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000)",
    ],
    [
      'rejected-node-affinity',
      'was rejected by the kubelet of node kguard-worker (NodeAffinity: Predicate NodeAffinity failed)',
    ],
    ['failed-by-pod-gc', 'was failed by pod GC (its node is gone or out of service)'],
  ])('%s is the node’s trouble, not the release’s', (name, how) => {
    const fixture = pod(name);
    expect(terminationOf(fixture)).toEqual({
      own: false,
      how: how.replace('kguard-worker', fixture.spec?.nodeName ?? ''),
    });
  });

  it("keeps the pod's own reasons the release's: its own ephemeral-storage limit, its activeDeadlineSeconds", () => {
    expect(terminationOf(pod('evicted-ephemeral-storage'))?.own).toBe(true);
    expect(terminationOf(pod('deadline-exceeded'))?.own).toBe(true);
  });

  it('reads the 1.20 shutdown shape and an admission under pressure (reason Evicted, The node had condition)', () => {
    const base = pod('running-ready');
    expect(
      terminationOf({
        ...base,
        status: { phase: 'Failed', reason: 'Shutdown', message: 'Node is shutting, evicting pods' },
      }),
    ).toMatchObject({ own: false, how: 'was ended by the graceful shutdown of its node' });
    expect(
      terminationOf({
        ...base,
        status: {
          phase: 'Failed',
          reason: 'Evicted',
          message: 'Pod was rejected: The node had condition: [DiskPressure]. ',
        },
      }),
    ).toMatchObject({ own: false, how: 'was evicted by its node (disk pressure)' });
  });

  it('says a pod ended by anything else is no longer counted, in its phase and reason', () => {
    const ended = { ...pod('running-ready'), status: { phase: 'Succeeded' } };
    expect(terminationOf(ended)).toEqual({ own: false, how: 'ended (phase Succeeded)' });
  });

  it('words the note with the pod and its replacement', () => {
    const evicted = pod('evicted-node-pressure');
    expect(terminationNote(evicted, terminationOf(evicted)!)).toBe(
      'pod web-7d9c6b8f4d-e5n6p was evicted by its node (memory pressure); its replacement counts',
    );
  });
});
