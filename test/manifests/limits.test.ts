// Objects the API server refuses for their size, found before any kubectl call (manifests/limits.ts).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { oversizedObjects } from '../../src/manifests/limits.js';

const MiB = 1024 * 1024;
const configMap = (name: string, bytes: number) =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { 'blob.txt': 'x'.repeat(bytes) } });
const secret = (name: string, bytes: number) =>
  stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    type: 'Opaque',
    data: { 'key.bin': Buffer.alloc(bytes, 7).toString('base64') },
  });

describe('oversizedObjects', () => {
  it('refuses a ConfigMap over 1 MiB of data (ValidateConfigMap, core.MaxSecretSize), naming the document', () => {
    const text = `${configMap('small', 10)}---\n${configMap('big', 2 * MiB)}`;
    expect(oversizedObjects(text, 'app.yaml')).toEqual([
      {
        where: 'app.yaml (document 2)',
        kind: 'ConfigMap',
        name: 'big',
        problem: `its data holds ${2 * MiB} bytes; the API server takes at most 1048576 (1 MiB) in a ConfigMap`,
      },
    ]);
  });

  it('counts a Secret decoded: 1 MiB of bytes passes although its base64 text is larger, one more byte does not', () => {
    expect(oversizedObjects(secret('exact', MiB), 'secret.yaml')).toEqual([]);
    expect(oversizedObjects(secret('over', MiB + 1), 'secret.yaml')).toMatchObject([
      { kind: 'Secret', name: 'over', problem: expect.stringContaining(`holds ${MiB + 1} bytes`) },
    ]);
  });

  it('refuses any object whose JSON passes the 3 MiB request body limit (MaxRequestBodyBytes)', () => {
    // A Deployment carrying a 3.5 MiB command line (a generated script inlined).
    const deployment = stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25', args: ['y'.repeat(3.5 * MiB)] }] } },
      },
    });
    expect(oversizedObjects(deployment, 'web.yaml')).toMatchObject([
      { kind: 'Deployment', name: 'web', problem: expect.stringMatching(/^as JSON it is \d+ bytes; .*\(3 MiB\)$/) },
    ]);
  });

  it("reads a List's items, and a JSON stream", () => {
    const list = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-list' }, data: { a: 'z'.repeat(MiB + 5) } }],
    });
    expect(oversizedObjects(list, 'list.json')).toMatchObject([{ name: 'in-list', where: 'list.json' }]);
  });

  it('does not parse a file under 1 MiB at all, and leaves an unreadable document to kubectl', () => {
    expect(oversizedObjects(configMap('small', 1000), 'app.yaml')).toEqual([]);
    expect(oversizedObjects(`key: [unclosed\n${'a'.repeat(2 * MiB)}`, 'broken.yaml')).toEqual([]);
  });
});
