// How a live run reads a stop request on its Lease (journal/stop.ts watchStopRequests): one watch
// for the run, a read and a new watch when one ends, a read each second where nothing can be watched.
import { describe, expect, it } from 'vitest';
import { STOP_REQUEST_ANNOTATION, watchStopRequests } from '../../src/journal/stop.js';
import type { Kubectl, WatchStream } from '../../src/kubectl/types.js';
import type { WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import type { KubeObject } from '../../src/objects/model.js';

const lease = (resourceVersion: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'kguard-mx1-aaaaaa', namespace: 'shop', resourceVersion, annotations },
  spec: { holderIdentity: 'kguard-mx1-aaaaaa' },
});
const asked = { [STOP_REQUEST_ANNOTATION]: JSON.stringify({ at: '2026-12-06T10:00:00Z', by: 'ci-runner-2 (pid 7)' }) };

type Done = Awaited<WatchStream['done']>;

/** A kubectl whose watches play `plays` in turn (events, then how the watch ends) and whose reads answer `reads` in turn. */
function fakeKubectl(plays: Array<{ events: WatchEvent[]; done: Done }>, reads: Array<KubeObject | undefined>) {
  const watches: Array<{ fieldSelector?: string; from: string }> = [];
  let readCount = 0;
  const kubectl: Pick<Kubectl, 'getObject' | 'watchCollection'> = {
    getObject: async () => {
      readCount += 1;
      return reads.shift();
    },
    watchCollection: (query, from, onEvent) => {
      watches.push({ fieldSelector: query.fieldSelector, from: from.resourceVersion });
      const play = plays.shift() ?? { events: [], done: { ended: false, message: 'no more', transient: false } };
      let stopped = false;
      const done = (async () => {
        await Promise.resolve();
        for (const event of play.events) if (!stopped) onEvent(event);
        return play.done;
      })();
      return { done, stop: () => void (stopped = true) };
    },
  };
  return { kubectl, watches, reads: () => readCount };
}

const clock = { sleep: async () => undefined };

/** Runs the look over `fake` to its end; the requests it answered. */
async function requestsSeen(fake: ReturnType<typeof fakeKubectl>, poll?: boolean): Promise<unknown[]> {
  const requests: unknown[] = [];
  const until = new AbortController().signal;
  await watchStopRequests(
    fake.kubectl,
    () => lease('11'),
    { clock, until, poll },
    (request) => requests.push(request),
  );
  return requests;
}

describe('watchStopRequests', () => {
  it('answers a request the watch brings, from the held Lease on, with no read of its own', async () => {
    const fake = fakeKubectl(
      [
        {
          events: [
            { type: 'MODIFIED', object: lease('12') },
            { type: 'MODIFIED', object: lease('13', asked) },
          ],
          done: { ended: true },
        },
      ],
      [],
    );
    const requests = await requestsSeen(fake);
    expect(requests).toEqual([{ at: '2026-12-06T10:00:00Z', by: 'ci-runner-2 (pid 7)' }]);
    expect(fake.watches).toEqual([{ fieldSelector: 'metadata.name=kguard-mx1-aaaaaa', from: '11' }]);
    expect(fake.reads()).toBe(0);
  });

  it('reads the Lease once when a watch ends, then watches again from what it read', async () => {
    const fake = fakeKubectl(
      [
        { events: [{ type: 'ERROR', status: { code: 410, reason: 'Expired' } }], done: { ended: true } },
        { events: [{ type: 'MODIFIED', object: lease('40', asked) }], done: { ended: true } },
      ],
      [lease('39')],
    );
    const requests = await requestsSeen(fake);
    expect(fake.watches.map((watch) => watch.from)).toEqual(['11', '39']);
    expect(fake.reads()).toBe(1);
    expect(requests).toHaveLength(1);
  });

  it('reads the Lease each time where nothing can be watched, until a request is there', async () => {
    const fake = fakeKubectl(
      [{ events: [], done: { ended: false, message: 'watching is not available', transient: false } }],
      [lease('11'), lease('12'), lease('13', asked)],
    );
    const requests = await requestsSeen(fake);
    expect(fake.watches).toHaveLength(1);
    expect(fake.reads()).toBe(3);
    expect(requests).toHaveLength(1);
  });

  it('with --poll, never watches: reads the Lease each time', async () => {
    const fake = fakeKubectl([], [lease('11'), lease('12', asked)]);
    const requests = await requestsSeen(fake, true);
    expect(fake.watches).toEqual([]);
    expect(fake.reads()).toBe(2);
    expect(requests).toHaveLength(1);
  });

  it('stops at once when the run ends, its watch included', async () => {
    const until = new AbortController();
    let stopped = false;
    const kubectl: Pick<Kubectl, 'getObject' | 'watchCollection'> = {
      getObject: async () => lease('11'),
      watchCollection: () => {
        let end: (done: Done) => void = () => undefined;
        const done = new Promise<Done>((resolve) => (end = resolve));
        return {
          done,
          stop: () => {
            stopped = true;
            end({ ended: true });
          },
        };
      },
    };
    const watching = watchStopRequests(
      kubectl,
      () => lease('11'),
      { clock, until: until.signal },
      () => {
        throw new Error('no request was made');
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    until.abort();
    await watching;
    expect(stopped).toBe(true);
  });
});
