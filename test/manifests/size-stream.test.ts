// The size check streamed (manifests/size-stream.ts): for every shape, the verdict is the whole
// parse's (limits.ts oversizedObjects, which reads the whole file at once), also where a document is
// too big to be parsed whole and is judged a part at a time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { oversizedObjects } from '../../src/manifests/limits.js';
import { oversizedInFile } from '../../src/manifests/size-stream.js';

const MiB = 1024 * 1024;
/** 3,000 ConfigMaps of 1.5 KiB and one over the 1 MiB limit: a List of about 6 MiB. */
const listItemsOneOverTheLimit = () => [
  ...Array.from({ length: 3000 }, (_, index) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `c${index}` },
    data: { v: 'x'.repeat(1500) },
  })),
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'too-big' }, data: { v: 'y'.repeat(MiB + 10) } },
];
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-size-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The streamed verdict of `text`, and the whole-file one beside it. */
async function both(name: string, text: string) {
  const file = join(dir, name);
  await writeFile(file, text);
  return { streamed: await oversizedInFile(file, name), whole: oversizedObjects(text, name) };
}

const manyKeys = (name: string, bytes: number, kind = 'ConfigMap', width = 90) => {
  const data: Record<string, string> = {};
  for (let index = 0; index * (width + 10) < bytes; index++) data[`key${index}`] = 'b'.repeat(width);
  return stringify({ apiVersion: 'v1', kind, metadata: { name }, data });
};
const head = (kind: string, name: string) => `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
const deployment = (name: string, annotation: number) =>
  stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, annotations: { big: 'a'.repeat(annotation) } },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  });

describe('oversizedInFile gives the whole parse’s verdict', () => {
  const shapes: Array<[string, () => string]> = [
    ['small documents', () => `${manyKeys('a', 1000)}---\n${deployment('web', 10)}`],
    ['a ConfigMap of 2 MiB (judged whole)', () => `${manyKeys('a', 1000)}---\n${manyKeys('big', 2 * MiB)}`],
    ['a ConfigMap of 4.5 MiB in 47,000 keys (judged in parts)', () => manyKeys('many', 4.5 * MiB)],
    [
      'a ConfigMap with one value of 6 MiB',
      () =>
        stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'one' },
          data: { blob: 'a'.repeat(6 * MiB) },
        }),
    ],
    ['a Secret of 5 MiB of base64 in 5,000 keys', () => manyKeys('secret', 5 * MiB, 'Secret', 1000)],
    [
      'a Deployment with a 5 MiB annotation: too big as JSON',
      () => `${deployment('small', 10)}---\n${deployment('huge', 5 * MiB)}`,
    ],
    [
      'a Deployment of 5 MiB that is mostly comments: not refused',
      () => `${'# a comment line that kubectl drops\n'.repeat(150_000)}${deployment('commented', 100)}`,
    ],
    [
      'a List of 6 MiB: each item judged alone, one over the limit',
      () =>
        stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [...listItemsOneOverTheLimit()],
        }),
    ],
    ['a document YAML cannot read, of 10 MiB: its text alone', () => `key: [unclosed\n${'a'.repeat(10 * MiB)}\n`],
    // Lines over 4 MiB are counted as they stream (lines.ts), or read back when they are more than a plain string.
    [
      'long lines: a Secret and binaryData of base64 with padding, CRLF line ends',
      () =>
        `${head('Secret', 'secret')}data:\r\n  a: ${'QUJD'.repeat(MiB + 10)}Zg==\r\n  b: c2hvcnQ=\r\n---\r\n${head('ConfigMap', 'binary')}binaryData:\r\n  a: ${'QUJD'.repeat(MiB + 10)}Zm8=\r\n`,
    ],
    [
      'long lines: quotes and backslashes in an annotation, trailing spaces',
      () =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: quoted\n  annotations:\n    note: ${'say "hi" \\ '.repeat(400_000)}end   \n`,
    ],
    [
      'long lines read back: UTF-8, a continuation line, a value YAML reads as a number, a comment',
      () =>
        `${head('ConfigMap', 'utf8')}data:\n  a: ${'é'.repeat(2.2 * MiB)}\n  b: ${'x'.repeat(4.5 * MiB)}\n    continued\n---\n${head('ConfigMap', 'number')}data:\n  n: ${'7'.repeat(4.5 * MiB)}\n  c: ${'y'.repeat(4.5 * MiB)} # a comment\n`,
    ],
    [
      'a long top-level line: an unknown field of 4.5 MiB',
      () => `${head('ConfigMap', 'extra')}extra: ${'z'.repeat(4.5 * MiB)}\ndata:\n  a: b\n`,
    ],
  ];
  // JSON over 4 MiB is read a byte at a time (json-size.ts): sizes as JSON.stringify writes them.
  const json = (value: unknown, space?: number) => JSON.stringify(value, null, space);
  const escapes = 'tab\there, quote " backslash \\ é € 😀 \u0001 lone \ud800 end';
  shapes.push(
    [
      'JSON: a ConfigMap with one value of 5 MiB, on one line',
      () =>
        json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { blob: 'a'.repeat(5 * MiB) } }),
    ],
    [
      'JSON: a ConfigMap of 4.5 MiB in 47,000 keys, indented',
      () => {
        const data: Record<string, string> = {};
        for (let index = 0; index * 100 < 4.5 * MiB; index++) data[`key${index}`] = 'b'.repeat(90);
        return json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many' }, data }, 2);
      },
    ],
    [
      'JSON: a Secret of base64 and stringData, escapes and UTF-8 in its labels',
      () =>
        json(
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 's', annotations: { note: escapes.repeat(3) } },
            data: { a: 'QUJD'.repeat(1.2 * MiB), b: 'Zm8=' },
            stringData: { c: escapes.repeat(20_000) },
          },
          1,
        ),
    ],
    [
      'JSON: a Deployment of 5 MiB with numbers JSON.stringify rewrites: too big as JSON',
      () =>
        `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{"big":${json(`é${'x'.repeat(5 * MiB)}`)}}},"spec":{"replicas":2.0,"progressDeadlineSeconds":6e2,"x":[true,false,null,-1.50,1E3]}}`,
    ],
    [
      'JSON: a List of 6 MiB, one item over the limit',
      () =>
        json({
          apiVersion: 'v1',
          kind: 'List',
          items: [...listItemsOneOverTheLimit(), 'not an object'],
        }),
    ],
    ['JSON that JSON.parse refuses, of 10 MiB: its text alone', () => `{"a": [${'1,'.repeat(5 * MiB)}}`],
  );
  it.each(shapes)('%s', async (name, make) => {
    const { streamed, whole } = await both(`${name.replace(/\W+/g, '-')}.yaml`, make());
    expect(streamed).toEqual(whole);
  });

  it('refuses the 47,000-key ConfigMap for its data, naming it', async () => {
    const { streamed } = await both('many.yaml', `${deployment('web', 10)}---\n${manyKeys('many', 4.5 * MiB)}`);
    expect(streamed).toEqual([
      {
        where: 'many.yaml (document 2)',
        kind: 'ConfigMap',
        name: 'many',
        problem: expect.stringMatching(
          /^its data holds \d+ bytes; the API server takes at most 1048576 \(1 MiB\) in a ConfigMap$/,
        ),
      },
    ]);
  });
});
