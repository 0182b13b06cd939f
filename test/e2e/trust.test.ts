// A result you can trust: what kubectl applies is what kguard watches and restores, wherever the
// flags are written; the bytes checked are the bytes applied; previews change nothing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';
import { configMapYaml } from './manifests.js';
import { MISSING } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({ scenario: { registry: { [MISSING]: 'missing' } } });
  expect((await kubectl(env.cluster, ['create', 'namespace', 'other'])).exitCode).toBe(0);
});
afterEach(async () => {
  await env.stop();
});

describe('flags after -- reach every kubectl call', () => {
  for (const flags of [['-n', 'other'], ['--namespace=other'], ['--namespace', 'other']]) {
    it(`watches and restores in the namespace kubectl applied to (-- ${flags.join(' ')})`, async () => {
      // A healthy web in both namespaces: only the one in "other" may change.
      for (const namespace of ['default', 'other']) {
        const applied = await kubectl(
          env.cluster,
          ['apply', '-n', namespace, '-f', '-'],
          deploymentYaml('web', 'nginx:1.25'),
        );
        expect(applied.exitCode, applied.stderr).toBe(0);
      }
      const file = await env.write('web.yaml', deploymentYaml('web', MISSING));
      const run = await env.kguard(['apply', '-f', file, ...fast, '--', ...flags]);
      expect(run.exitCode, run.output).toBe(3);
      expect(run.output).toContain('deployment/web (namespace other): put back as it was before the apply');
      expect(run.output).not.toContain('(namespace default)');
      expect(env.imageOf('web', 'other')).toBe('nginx:1.25');
      expect(env.imageOf('web', 'default')).toBe('nginx:1.25');
    });
  }

  it('uses --context and --kubeconfig given after -- for every call, and in the commands it prints', async () => {
    const file = await env.write('fresh.yaml', deploymentYaml('fresh', MISSING));
    const run = await env.kguard(
      [
        'apply',
        '-f',
        file,
        ...fast,
        '--keep-created',
        '--',
        `--kubeconfig=${env.cluster.kubeconfigPath}`,
        '--context',
        'kguard-sim',
      ],
      {
        env: { KUBECONFIG: `${env.dir}/no-such-kubeconfig` },
      },
    );
    expect(run.exitCode, run.output).toBe(4);
    expect(run.output).toContain(
      `kubectl --kubeconfig=${env.cluster.kubeconfigPath} --context=kguard-sim delete deployment.apps/fresh -n default`,
    );
  });

  it('refuses flags kguard must own, saying where to put them, and changes nothing', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await env.kguard(['apply', '-f', file, '--', '-f', file]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/-f .*before --/);
    expect(env.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
  });
});

describe('the bytes checked are the bytes applied', () => {
  it('downloads a URL once: a server that answers differently each time cannot split the run', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      // First answer: a healthy app. Any later answer: a broken one.
      response.writeHead(200, { 'content-type': 'application/yaml' });
      response.end(deploymentYaml(requests === 1 ? 'remote' : 'broken', requests === 1 ? 'nginx:1.25' : MISSING));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const run = await env.kguard(['apply', '-f', `http://127.0.0.1:${port}/app.yaml`, ...fast]);
      expect(run.exitCode, run.output).toBe(0);
      expect(requests).toBe(1);
      expect(run.output).toContain('deployment/remote (namespace default): rolled out');
      expect(env.cluster.store.get('Deployment', 'default', 'broken')).toBeUndefined();
    } finally {
      server.close();
    }
  });
});

describe('a Namespace created by the same apply', () => {
  it('waives only the dry-run errors of objects inside it, each named', async () => {
    const manifest = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: brand-new\n---\n${deploymentYaml('web', 'nginx:1.25', { namespace: 'brand-new' })}`;
    const run = await env.kguard(['apply', '-f', await env.write('app.yaml', manifest), ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      'namespace/brand-new is created by this apply, so the dry run could not check what goes in it: deployment/web (namespace brand-new)',
    );
    expect(run.output).toContain('deployment/web (namespace brand-new): rolled out');
  });

  it('does not waive an error elsewhere: nothing is applied, exit 1', async () => {
    const invalid = deploymentYaml('bad', 'nginx:1.25').replace(
      /matchLabels:\n(\s+)app: bad/,
      'matchLabels:\n$1app: other',
    );
    const manifest = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: brand-new\n---\n${deploymentYaml('web', 'nginx:1.25', { namespace: 'brand-new' })}---\n${invalid}`;
    const run = await env.kguard(['apply', '-f', await env.write('app.yaml', manifest), ...fast]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain('Deployment.apps "bad" is invalid');
    expect(run.stderr).toContain('nothing was applied');
    expect(env.cluster.store.get('Namespace', '', 'brand-new')).toBeUndefined();
  });
});

describe('previews change nothing', () => {
  for (const how of [['--dry-run'], ['--dry-run=client'], ['--', '--dry-run=server']]) {
    it(`${how.join(' ')} says what would be created, changed or left alone; exit 0`, async () => {
      await kubectl(
        env.cluster,
        ['apply', '-f', '-'],
        `${configMapYaml('same', { a: '1' })}---\n${deploymentYaml('web', 'nginx:1.25')}`,
      );
      const generationBefore = env.cluster.store.get('Deployment', 'default', 'web')?.metadata.generation;
      const manifest = `${configMapYaml('same', { a: '1' })}---\n${deploymentYaml('web', MISSING)}---\n${configMapYaml('added', { b: '2' })}`;
      const run = await env.kguard(['apply', '-f', await env.write('next.yaml', manifest), ...fast, ...how]);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toContain('deployment/web (namespace default): changed');
      // The client strategy knows what kubectl would do, not which fields (its JSON shows the live object).
      if (!how.includes('--dry-run=client')) expect(run.output).toContain('spec.template.spec.containers[0].image');
      expect(run.output).toContain('configmap/added (namespace default): created');
      // kubectl's client dry run says "configured" for every existing object (apply.go never computes its patch).
      if (!how.includes('--dry-run=client'))
        expect(run.output).toContain('configmap/same (namespace default): unchanged');
      expect(run.output).toContain('kguard: dry run: nothing was changed (exit 0)');
      expect(run.output).not.toContain('rolled out');
      expect(env.cluster.store.get('Deployment', 'default', 'web')?.metadata.generation).toBe(generationBefore);
      expect(env.imageOf('web')).toBe('nginx:1.25');
      expect(env.cluster.store.get('ConfigMap', 'default', 'added')).toBeUndefined();
    });
  }

  it('lists what --prune would delete, in the text and the JSON report', async () => {
    const labelled = (name: string) =>
      configMapYaml(name, { a: '1' }).replace(`  name: ${name}\n`, `  name: ${name}\n  labels:\n    team: shop\n`);
    await kubectl(env.cluster, ['apply', '-f', '-'], `${labelled('keep')}---\n${labelled('old')}`);
    const file = await env.write('next.yaml', labelled('keep'));
    const run = await env.kguard(['apply', '-f', file, '--dry-run', '-o', 'json', '--', '--prune', '-l', 'team=shop']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.stderr).toContain('configmap/old (namespace default): deleted');
    const report = JSON.parse(run.stdout) as { objects: Array<{ kind: string; name: string; change: string }> };
    expect(report.objects).toContainEqual(
      expect.objectContaining({ kind: 'ConfigMap', name: 'old', change: 'deleted' }),
    );
    expect(env.cluster.store.get('ConfigMap', 'default', 'old')).toBeDefined();
  });

  it('restores what --prune deleted when the apply fails', async () => {
    const labelled = (text: string) =>
      text
        .replace(/^metadata:\n/m, 'metadata:\n  labels:\n    team: shop\n')
        .replace(/^ {2}labels:\n {4}app: web\n/m, '');
    await kubectl(
      env.cluster,
      ['apply', '-f', '-'],
      `${labelled(configMapYaml('old', { a: '1' }))}---\n${labelled(deploymentYaml('web', 'nginx:1.25'))}`,
    );
    const file = await env.write('next.yaml', labelled(deploymentYaml('web', MISSING)));
    const run = await env.kguard(['apply', '-f', file, ...fast, '--', '--prune', '-l', 'team=shop']);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('configmap/old (namespace default): deleted');
    expect(run.output).toContain('configmap/old (namespace default): created again (this apply deleted it)');
    expect(env.cluster.store.get('ConfigMap', 'default', 'old')?.data).toEqual({ a: '1' });
  });
});
