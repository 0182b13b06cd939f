// One kguard at a time finishes a dead run (restore/recovery/claim.ts): a conditional write on the
// dead run's home journal Secret, which the API server lets through once (409 Conflict otherwise).
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { HolderProbe } from '../../src/journal/holder.js';
import { claimerOf, claimRecovery, RECOVERING_BY_ANNOTATION } from '../../src/restore/recovery/claim.js';
import type { WriteResult } from '../../src/kubectl/types.js';
import type { KubeObject } from '../../src/objects/model.js';

/** One Secret with the API server's optimistic concurrency: a PUT with a stale resourceVersion is 409. */
function secretStore() {
  let version = 10;
  let stored: KubeObject | undefined = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'kguard-mx1-abc-journal', namespace: 'shop', uid: 'u-1', resourceVersion: '10' },
  } as KubeObject;
  return {
    kubectl: {
      getObject: async () => (stored ? structuredClone(stored) : undefined),
      replace: async (object: KubeObject): Promise<WriteResult> => {
        if (!stored) return { ok: false, conflict: false, notFound: true, message: 'not found', stderr: '(NotFound)' };
        if (object.metadata.resourceVersion !== stored.metadata.resourceVersion)
          return { ok: false, conflict: true, notFound: false, message: 'conflict', stderr: '(Conflict)' };
        stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(++version) } };
        return { ok: true, object: stored };
      },
    },
    remove: () => (stored = undefined),
    get: () => stored,
  };
}

const clock = (): Clock & { advance(ms: number): void } => {
  let now = 0;
  return { now: () => now, sleep: async (ms) => void (now += ms), advance: (ms) => (now += ms) };
};
const running: HolderProbe = () => 'running';
const limits = { standStillMs: 300_000, deadlineMs: 600_000, requestDeadlineMs: 30_000 };
const target = { runId: 'kguard-mx1-abc', home: 'shop', uid: 'u-1' };

describe('claimRecovery', () => {
  it('of three retries at once, exactly one claims the dead run; the others wait until its journal is gone', async () => {
    const store = secretStore();
    const waits: string[] = [];
    const retries = [101, 102, 103].map((pid) => ({ host: 'ci-runner-7', pid }));
    let finished = false;
    const outcomes = await Promise.all(
      retries.map((self) => {
        const ownClock = clock();
        return claimRecovery(target, self, limits, {
          kubectl: store.kubectl,
          probe: running,
          onWait: (by) => waits.push(by),
          clock: {
            now: ownClock.now,
            // The claimer finishes the run (its journal deleted) while the others wait.
            sleep: async (ms) => {
              await ownClock.sleep(ms);
              if (!finished) {
                finished = true;
                store.remove();
              }
            },
          },
        });
      }),
    );
    expect(outcomes.filter((outcome) => outcome.claimed)).toHaveLength(1);
    const waiting = outcomes.filter((outcome) => !outcome.claimed);
    expect(waiting).toHaveLength(2);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatch(/^ci-runner-7 \(pid 10[123]\)$/);
  });

  it('names itself on the Secret, and takes over at once from a claimer whose process has ended here', async () => {
    const store = secretStore();
    expect(
      await claimRecovery(target, { host: 'ci-runner-7', pid: 101 }, limits, {
        kubectl: store.kubectl,
        probe: running,
        clock: clock(),
      }),
    ).toEqual({ claimed: true });
    expect(store.get()?.metadata.annotations?.[RECOVERING_BY_ANNOTATION]).toBe('ci-runner-7 101');
    expect(claimerOf(store.get()!)).toEqual({ host: 'ci-runner-7', pid: 101 });
    const gone: HolderProbe = () => 'gone';
    expect(
      await claimRecovery(target, { host: 'ci-runner-7', pid: 202 }, limits, {
        kubectl: store.kubectl,
        probe: gone,
        clock: clock(),
      }),
    ).toEqual({ claimed: true });
  });

  it('takes over from a claimer on another machine once the Secret has stood still longer than a restore may take', async () => {
    const store = secretStore();
    await claimRecovery(target, { host: 'ci-runner-9', pid: 7 }, limits, {
      kubectl: store.kubectl,
      probe: running,
      clock: clock(),
    });
    const own = clock();
    const outcome = await claimRecovery(target, { host: 'ci-runner-7', pid: 8 }, limits, {
      kubectl: store.kubectl,
      probe: () => 'elsewhere',
      clock: own,
    });
    expect(outcome).toEqual({ claimed: true });
    expect(own.now()).toBeGreaterThan(limits.standStillMs);
    expect(own.now()).toBeLessThan(limits.deadlineMs);
  });

  it('stops waiting when the signal aborts', async () => {
    const store = secretStore();
    await claimRecovery(target, { host: 'ci-runner-7', pid: 1 }, limits, {
      kubectl: store.kubectl,
      probe: running,
      clock: clock(),
    });
    const cancel = new AbortController();
    const waiting = claimRecovery(target, { host: 'ci-runner-7', pid: 2 }, limits, {
      kubectl: store.kubectl,
      probe: running,
      clock: { now: () => 0, sleep: async () => cancel.abort() },
      signal: cancel.signal,
    });
    await expect(waiting).rejects.toThrow('stopped while waiting for run kguard-mx1-abc to be finished');
  });
});
