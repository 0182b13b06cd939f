// One line per outage, not one per look (track/outage.ts).
import { describe, expect, it } from 'vitest';
import { OutageNotes } from '../../src/track/outage.js';
import type { RunEvent } from '../../src/model/events.js';

// What the watch source says while the API server is away (track/sources.ts), seconds growing.
const away = (seconds: number) =>
  new Error(
    `no answer to the watch of deployments.apps for ${seconds}s (Get "https://127.0.0.1:6443/apis/apps/v1/namespaces/shop/deployments?watch=1": dial tcp 127.0.0.1:6443: connect: connection refused)`,
  );

describe('OutageNotes', () => {
  it('says a 5-minute outage seen every 1.6 s in six lines, not 188: its start, once a minute, its end', () => {
    const notes = new OutageNotes();
    const said: RunEvent[] = [];
    let now = 0;
    for (; now <= 300_000; now += 1600) {
      const event = notes.see('shop', away(Math.round(now / 1000)), now, '2026-03-01T12:04:05.000Z');
      if (event) said.push(event);
    }
    const back = notes.see('shop', undefined, now, '2026-03-01T12:09:06.000Z');
    expect(said.map((event) => event.kind)).toEqual([
      'poll-error',
      'poll-error',
      'poll-error',
      'poll-error',
      'poll-error',
    ]);
    expect(said[0]).toMatchObject({ namespace: 'shop', since: '2026-03-01T12:04:05.000Z' });
    expect(said[0]).not.toHaveProperty('forMs');
    expect(said[1]).toMatchObject({ since: '2026-03-01T12:04:05.000Z', forMs: 60_800 });
    expect(back).toEqual({ kind: 'poll-recovered', namespace: 'shop', afterMs: now });
  });

  it('says nothing of a namespace that answers, and keeps namespaces apart', () => {
    const notes = new OutageNotes();
    expect(notes.see('shop', undefined, 0, '2026-03-01T12:00:00.000Z')).toBeUndefined();
    expect(notes.see('shop', away(1), 1000, '2026-03-01T12:00:01.000Z')?.kind).toBe('poll-error');
    expect(notes.see('cart', away(1), 1000, '2026-03-01T12:00:01.000Z')?.kind).toBe('poll-error');
    expect(notes.see('cart', undefined, 2000, '2026-03-01T12:00:02.000Z')).toEqual({
      kind: 'poll-recovered',
      namespace: 'cart',
      afterMs: 1000,
    });
    expect(notes.see('shop', away(2), 2000, '2026-03-01T12:00:02.000Z')).toBeUndefined();
  });
});
