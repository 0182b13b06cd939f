import { describe, expect, it } from 'vitest';
import { isExpired, WatchEventReader, watchEventOf, type WatchEvent } from '../../src/kubectl/channel/watch-events.js';
import { fixtureText } from '../fixtures/load.js';

const summary = (events: WatchEvent[]) =>
  events.map((event) =>
    event.type === 'BOOKMARK'
      ? `BOOKMARK ${event.resourceVersion}`
      : event.type === 'ERROR'
        ? `ERROR ${event.status.code}`
        : `${event.type} ${event.object.metadata.name}`,
  );

/** Feeds `text` in pieces of `size` characters, as a pipe may hand it over. */
function inPieces(text: string, size: number): WatchEvent[] {
  const reader = new WatchEventReader();
  const events: WatchEvent[] = [];
  for (let at = 0; at < text.length; at += size) events.push(...reader.push(text.slice(at, at + size)));
  return events;
}

describe('watch output', () => {
  const ownWatch = fixtureText('kubectl/get-watch-pods.json');
  const rawWatch = fixtureText('kubectl/get-raw-watch-pods.jsonl');

  it('reads `kubectl get --watch --output-watch-events -o json` as events, the listed pods first as ADDED', () => {
    const events = new WatchEventReader().push(ownWatch);
    expect(events.length).toBe(ownWatch.trim().split('\n').length);
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Pod' } });
    expect(
      events.some((event) => event.type === 'MODIFIED' && JSON.stringify(event.object).includes('ImagePullBackOff')),
    ).toBe(true);
  });

  it('reads the raw stream with its bookmarks, whatever the pieces the pipe hands over', () => {
    const whole = new WatchEventReader().push(rawWatch);
    expect(whole.filter((event) => event.type === 'BOOKMARK').length).toBeGreaterThan(0);
    expect(whole.filter((event) => event.type === 'MODIFIED').length).toBeGreaterThan(3);
    for (const size of [1, 7, 100, 4096]) expect(summary(inPieces(rawWatch, size))).toEqual(summary(whole));
  });

  it('keeps a document cut inside a string holding braces and escaped quotes', () => {
    const line = JSON.stringify({
      type: 'MODIFIED',
      object: { metadata: { name: 'p', annotations: { note: 'a "}{" b \\ c' } } },
    });
    for (let cut = 1; cut < line.length; cut += 1) {
      const reader = new WatchEventReader();
      expect([...reader.push(line.slice(0, cut)), ...reader.push(`${line.slice(cut)}\n`)]).toHaveLength(1);
    }
  });

  it('reads the 410 the API server sends for a resourceVersion older than its history as expired', () => {
    const [event] = new WatchEventReader().push(fixtureText('kubectl/get-raw-watch-expired.jsonl'));
    expect(event).toMatchObject({ type: 'ERROR', status: { code: 410, reason: 'Expired' } });
    expect(event?.type === 'ERROR' && isExpired(event.status)).toBe(true);
    expect(isExpired({ code: 500, reason: 'InternalError', message: 'etcdserver: request timed out' })).toBe(false);
    // etcd's own compaction error, as the watch cache passes it on without a code.
    expect(isExpired({ message: 'too old resource version: 12 (40)' })).toBe(true);
  });

  it('ignores documents that are not watch events', () => {
    expect(watchEventOf({ kind: 'Status', code: 410 })).toBeUndefined();
    expect(watchEventOf({ type: 'BOOKMARK', object: { metadata: {} } })).toBeUndefined();
    expect(watchEventOf({ type: 'SOMETHING', object: {} })).toBeUndefined();
  });
});
