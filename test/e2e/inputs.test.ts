// The ways of naming manifests and clusters that kubectl users expect, end to end.
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import type { Sandbox } from './harness.js';
import { sandboxFor, MISSING, missingImageSandbox } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(missingImageSandbox, (fresh) => (env = fresh));

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];
describe('kguard apply inputs', () => {
  it('reads a directory recursively with -R and tracks every Deployment in it', async () => {
    await mkdir(join(env.dir, 'k8s', 'api'), { recursive: true });
    await env.write('k8s/web.yaml', deploymentYaml('web', 'nginx:1.25'));
    await env.write('k8s/api/api.yml', deploymentYaml('api', 'nginx:1.25'));
    await env.write('k8s/notes.txt', 'not a manifest');
    const run = await env.kguard(['apply', '-f', 'k8s', '-R', ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('deployment/web (namespace default): rolled out');
    expect(run.output).toContain('deployment/api (namespace default): rolled out');
  });

  it('renders -k with kubectl kustomize, in the kustomization namespace', async () => {
    await mkdir(join(env.dir, 'overlay'));
    await env.write('overlay/web.yaml', deploymentYaml('web', 'nginx:1.25'));
    await env.write('overlay/ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n');
    await env.write(
      'overlay/kustomization.yaml',
      'namespace: shop\nresources:\n- ns.yaml\n- web.yaml\nimages:\n- name: nginx\n  newTag: "1.26"\n',
    );
    const run = await env.kguard(['apply', '-k', 'overlay', ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('deployment/web (namespace shop): rolled out');
    expect(env.imageOf('web', 'shop')).toBe('nginx:1.26');
  });

  it('tracks and rolls back a server-side apply', async () => {
    const good = await env.write('good.yaml', deploymentYaml('web', 'nginx:1.25'));
    expect((await env.kguard(['apply', '--server-side', '-f', good, ...fast])).exitCode).toBe(0);
    const bad = await env.write('bad.yaml', deploymentYaml('web', MISSING));
    const run = await env.kguard(['apply', '--server-side', '-f', bad, ...fast]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('deployment.apps/web serverside-applied');
    expect(env.imageOf('web', 'default')).toBe('nginx:1.25');
  });

  it('uses --kubeconfig for every call and puts it in the commands it prints', async () => {
    const file = await env.write('new.yaml', deploymentYaml('fresh', MISSING));
    const run = await env.kguard(['apply', '-f', file, '--kubeconfig', env.cluster.kubeconfigPath, ...fast], {
      env: { KUBECONFIG: join(env.dir, 'no-such-kubeconfig') },
    });
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('deployment/fresh (namespace default): deleted (this apply created it)');
    expect(env.cluster.store.get('Deployment', 'default', 'fresh')).toBeUndefined();
    // Kept instead of deleted, the command printed to remove it carries the same kubeconfig.
    await env.write('again.yaml', deploymentYaml('fresh', MISSING));
    const kept = await env.kguard(
      [
        'apply',
        '-f',
        join(env.dir, 'again.yaml'),
        '--kubeconfig',
        env.cluster.kubeconfigPath,
        '--keep-created',
        ...fast,
      ],
      {
        env: { KUBECONFIG: join(env.dir, 'no-such-kubeconfig') },
      },
    );
    expect(kept.exitCode, kept.output).toBe(4);
    expect(kept.output).toContain(
      `kubectl --kubeconfig=${env.cluster.kubeconfigPath} delete deployment.apps/fresh -n default`,
    );
  });

  it('applies to -n NAMESPACE and watches the Deployment there', async () => {
    await env.write('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n');
    await env.kguard(['apply', '-f', 'ns.yaml', ...fast]);
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await env.kguard(['apply', '-f', file, '-n', 'team-a', ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('deployment/web (namespace team-a): rolled out');
    expect(env.imageOf('web', 'team-a')).toBe('nginx:1.25');
  });

  it('reads a manifest from a URL and lets kubectl apply the same URL', async () => {
    const manifest = deploymentYaml('remote', 'nginx:1.25');
    const server = createServer((request, response) => {
      response.writeHead(request.url === '/app.yaml' ? 200 : 404, { 'content-type': 'application/yaml' });
      response.end(request.url === '/app.yaml' ? manifest : 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const run = await env.kguard(['apply', '-f', `http://127.0.0.1:${port}/app.yaml`, ...fast]);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toContain('deployment/remote (namespace default): rolled out');
      const missing = await env.kguard(['apply', '-f', `http://127.0.0.1:${port}/nope.yaml`, ...fast]);
      expect(missing.exitCode).toBe(1);
      expect(missing.stderr).toContain('could not download the manifests (HTTP 404');
    } finally {
      server.close();
    }
  });
});
