// A manifest's lines, streamed (manifests/lines.ts): a line over LONG_LINE_BYTES is never held; a
// `key: value` line of a plain string comes with its value's sizes counted as it streamed, and
// anything else is read back from the file when asked. The sizes are the ones the whole text gives.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, LONG_LINE_BYTES, LongLine } from '../../src/manifests/lines.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function linesOfText(name: string, text: string): Promise<Array<Buffer | LongLine>> {
  const file = join(dir, name);
  await writeFile(file, text);
  const lines: Array<Buffer | LongLine> = [];
  for await (const line of linesOf(file)) lines.push(line);
  return lines;
}

const LONG = LONG_LINE_BYTES + 12_345;

describe('linesOf', () => {
  it('gives short lines as their bytes and a long one as a LongLine, in order, without line ends', async () => {
    const value = 'QUJD'.repeat(LONG / 4);
    const lines = await linesOfText('mixed.yaml', `data:\r\n  blob: ${value}==\r\n  small: x\r\nlast`);
    expect(lines.map((line) => (line instanceof LongLine ? 'long' : line.toString()))).toEqual([
      'data:',
      'long',
      '  small: x',
      'last',
    ]);
    const long = lines[1] as LongLine;
    expect(long.length).toBe(`  blob: ${value}==`.length);
    expect(long.text()).toBe(`  blob: ${value}==`);
    expect(long.value?.indent).toBe(2);
    expect(long.value?.key).toBe('blob');
    const counted = long.value!.value;
    expect(counted.bytes).toBe(value.length + 2);
    expect(counted.json).toBe(JSON.stringify(`${value}==`).length);
    expect(counted.base64()).toBe(Buffer.from(`${value}==`, 'base64').length);
  });

  it.each([
    ['base64 with one pad', `${'a'.repeat(LONG)}=`],
    ['base64 of a length that leaves bits over', `${'Zm9v'.repeat(LONG / 4)}Y`],
    ['quotes and backslashes (escaped in JSON)', 'a"b\\c'.repeat(LONG / 5)],
    ['trailing spaces (YAML drops them)', `${'word '.repeat(LONG / 5)}end   `],
    ['the URL-safe alphabet', '-_'.repeat(LONG / 2)],
  ])('counts a plain value as the whole text gives it: %s', async (name, value) => {
    const [line] = await linesOfText(`${name.replace(/\W+/g, '-')}.yaml`, `key: ${value}\n`);
    const long = line as LongLine;
    const trimmed = value.replace(/ +$/, '');
    expect(long.value?.value.bytes).toBe(Buffer.byteLength(trimmed));
    expect(long.value?.value.json).toBe(Buffer.byteLength(JSON.stringify(trimmed)));
    expect(long.value?.value.base64()).toBe(Buffer.from(trimmed, 'base64').length);
  });

  it.each([
    ['a value YAML reads as a number', '1'.repeat(LONG)],
    ['a hexadecimal number', `0x${'f'.repeat(LONG)}`],
    ['a value with `: ` in it (no plain string)', `${'a'.repeat(LONG)}: b`],
    ['a comment after the value', `${'a'.repeat(LONG)} # note`],
    ['a value ending in a colon', `${'a'.repeat(LONG)}:`],
    ['a tab', `${'a'.repeat(LONG)}\tb`],
    ['UTF-8', 'é'.repeat(LONG / 2)],
    ['a double-quoted value', `"${'a'.repeat(LONG)}"`],
    ['a flow mapping', `{a: ${'a'.repeat(LONG)}}`],
    ['a carriage return inside the line', `${'a'.repeat(LONG)}\rb`],
  ])('leaves anything else to the text: %s', async (name, value) => {
    const [line] = await linesOfText(`${name.replace(/\W+/g, '-')}.yaml`, `key: ${value}\n`);
    expect(line).toBeInstanceOf(LongLine);
    expect((line as LongLine).value).toBeUndefined();
    expect((line as LongLine).text()).toBe(`key: ${value}`);
  });

  it('reads back a value that is not base64 alone when its decoded size is asked', async () => {
    const value = `${'ab.cd'.repeat(LONG / 5)}`;
    const [line] = await linesOfText('dots.yaml', `  key: ${value}\n`);
    expect((line as LongLine).value?.value.base64()).toBe(Buffer.from(value, 'base64').length);
  });
});
