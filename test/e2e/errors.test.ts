// Bad input and broken clusters: a clear one-paragraph error, a documented exit code, and nothing
// in the cluster touched.
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

/** Requests that could change the cluster: any write that is not a dry run. */
function writes(): string[] {
  return env.cluster.requests
    .filter((request) => request.method !== 'GET' && !/dryRun=All/.test(request.url))
    .map((request) => `${request.method} ${request.url}`);
}

describe('kguard apply on bad input', () => {
  it('names a missing file, exits 1 and sends nothing', async () => {
    const run = await env.kguard(['apply', '-f', 'nope.yaml']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('kguard: -f nope.yaml: no such file or directory');
    expect(run.stderr).toContain('nothing was applied');
    expect(env.cluster.requests).toHaveLength(0);
  });

  it("quotes kubectl's reason for invalid YAML with the file, exits 1", async () => {
    const file = await env.write('bad.yaml', `${deploymentYaml('web', 'nginx:1.25')}\n---\nkind: [oops\n`);
    const run = await env.kguard(['apply', '-f', file]);
    expect(run.exitCode).toBe(1);
    // kubectl is the parser: its own words, with the file it read.
    expect(run.stderr).toMatch(
      /kguard: kubectl cannot read the manifests: error parsing \S*bad\.yaml: error converting YAML to JSON: yaml: line \d+/,
    );
    expect(run.stderr).toContain('Next: fix the manifest; nothing was applied. (exit 1)');
    expect(writes()).toEqual([]);
  });

  it('exits 1 when the API server rejects the manifest in the dry run, before applying anything', async () => {
    const invalid = deploymentYaml('web', 'nginx:1.25').replace(
      /matchLabels:\n(\s+)app: web/,
      'matchLabels:\n$1app: other',
    );
    const file = await env.write('invalid.yaml', invalid);
    const run = await env.kguard(['apply', '-f', file]);
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain(
      'the API server refused the manifests in a dry run: The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value',
    );
    expect(env.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
  });

  it('exits 2 with the next step when kubectl is not on PATH', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    // A PATH that has node (for bin/kguard) and nothing else.
    const onlyNode = join(env.dir, 'only-node');
    await mkdir(onlyNode);
    await symlink(process.execPath, join(onlyNode, 'node'));
    const run = await env.kguard(['apply', '-f', file], { env: { PATH: onlyNode } });
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toMatch(/kubectl could not be started .*install kubectl/);
  });

  it('exits 2 when the cluster is unreachable, and applies nothing', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    await env.cluster.faults.unreachable();
    const run = await env.kguard(['apply', '-f', file]);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toMatch(/refused.*Next: check that the cluster is up/);
    await env.cluster.faults.restore();
    expect(env.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
  });

  it('exits 2 when RBAC denies the apply, and nothing changes', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    expect((await kubectl(env.cluster, ['apply', '-f', file])).exitCode).toBe(0);
    const generation = env.cluster.store.get('Deployment', 'default', 'web')?.metadata.generation;
    const changed = await env.write('web2.yaml', deploymentYaml('web', 'nginx:1.26'));
    env.cluster.faults.failNext(403, 5, /^PATCH .*deployments\/web/);
    const run = await env.kguard(['apply', '-f', changed]);
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toMatch(/forbidden.*RBAC/);
    expect(env.cluster.store.get('Deployment', 'default', 'web')?.metadata.generation).toBe(generation);
  });

  it('refuses an unknown flag with exit 1', async () => {
    const run = await env.kguard(['apply', '--frobnicate']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("unknown option '--frobnicate'");
  });

  it('restores what a half-failed apply already changed and quotes why kubectl stopped, exit 3', async () => {
    const both = (image: string) => `${deploymentYaml('web', image)}\n---\n${deploymentYaml('api', image)}`;
    expect(
      (await kubectl(env.cluster, ['apply', '-f', await env.write('base.yaml', both('nginx:1.25'))])).exitCode,
    ).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.metadata.annotations?.[
        'deployment.kubernetes.io/revision'
      ] === '1'
        ? true
        : undefined,
    );
    // The dry run passes; the real PATCH of the second Deployment is refused.
    env.cluster.faults.failNext(403, 5, /^PATCH [^?]*\/deployments\/api\?(?!.*dryRun=All)/);
    const run = await env.kguard(['apply', '-f', await env.write('next.yaml', both('nginx:1.26'))]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/kubectl apply failed part-way: .*deployments.apps "api" is forbidden/);
    expect(run.output).toContain(
      'kubectl had already applied: deployment.apps/web configured; kguard restores what changed',
    );
    expect(run.output).toContain('deployment/web (namespace default): put back as it was before the apply');
    expect(run.output).not.toContain('deployment/api (namespace default): put back');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});
