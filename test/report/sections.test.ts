import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/model/events.js';
import { ClusterSections } from '../../src/report/format/sections.js';

const note = (text: string) => ({ kind: 'journal-warning', message: text, commands: [] }) as unknown as RunEvent;

describe('ClusterSections', () => {
  it("streams the wave's first cluster live and holds each other's events until the ones before it end, then emits them whole", () => {
    const seen: string[] = [];
    const sections = new ClusterSections(
      { emit: (event) => seen.push((event as unknown as { message: string }).message), close: () => undefined },
      ['a', 'b', 'c'],
    );
    const [a, b, c] = ['a', 'b', 'c'].map((context) => sections.reporterFor(context));
    a!.emit(note('a1'));
    b!.emit(note('b1'));
    c!.emit(note('c1'));
    a!.emit(note('a2'));
    expect(seen).toEqual(['a1', 'a2']);
    sections.end('c');
    expect(seen).toEqual(['a1', 'a2']);
    sections.end('a');
    // b goes live: its held event first; c ended but waits for b.
    expect(seen).toEqual(['a1', 'a2', 'b1']);
    b!.emit(note('b2'));
    sections.end('b');
    expect(seen).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
  });
});
