import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestLocator, objectsWritten } from '../../src/manifests/locate.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };

describe('objectsWritten', () => {
  it('finds each document with the line it starts on, List items and JSON included, skipping what is not an object', () => {
    const text = [
      '# comment',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: settings}',
      '---',
      '---',
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: v1',
      '  kind: Service',
      '  metadata: {name: web, namespace: shop}',
      '---',
      'just a string',
      '---',
      '{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}',
    ].join('\n');
    expect(objectsWritten(text)).toEqual([
      { kind: 'ConfigMap', name: 'settings', namespace: undefined, line: 2 },
      { kind: 'Service', name: 'web', namespace: 'shop', line: 7 },
      { kind: 'Deployment', name: 'web', namespace: undefined, line: 16 },
    ]);
  });

  it('skips a document YAML cannot read and goes on', () => {
    expect(objectsWritten('kind: [unclosed\n---\nkind: Secret\nmetadata:\n  name: s\n')).toEqual([
      { kind: 'Secret', name: 's', namespace: undefined, line: 3 },
    ]);
  });
});

describe('manifestLocator', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kguard-locate-'));
    await mkdir(join(dir, 'k8s', 'nested'), { recursive: true });
    await writeFile(
      join(dir, 'k8s', 'app.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
    );
    await writeFile(
      join(dir, 'k8s', 'nested', 'db.yml'),
      'apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n',
    );
    await writeFile(join(dir, 'k8s', 'notes.txt'), 'kind: Deployment\nmetadata:\n  name: notes\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('matches kind, name and a written namespace, and names the file relative to the workspace', () => {
    const locate = manifestLocator([join(dir, 'k8s')], false, dir);
    expect(locate(web)).toEqual({ file: join('k8s', 'app.yaml'), line: 12 });
    expect(locate({ ...web, namespace: 'other' })).toEqual({ file: join('k8s', 'app.yaml'), line: 6 });
    expect(locate({ ...web, kind: 'StatefulSet', name: 'db' })).toBeUndefined();
    expect(locate({ ...web, name: 'notes' })).toBeUndefined();
  });

  it('reads subdirectories with -R, and keeps absolute paths outside the workspace', () => {
    const locate = manifestLocator([join(dir, 'k8s')], true, join(dir, 'k8s', 'nested'));
    expect(locate({ ...web, kind: 'StatefulSet', name: 'db' })).toEqual({ file: 'db.yml', line: 1 });
    expect(locate(web)).toEqual({ file: join(dir, 'k8s', 'app.yaml'), line: 12 });
  });

  it('locates nothing for stdin and URLs', () => {
    expect(manifestLocator(['-', 'https://example.com/app.yaml'], false, dir)(web)).toBeUndefined();
  });
});
