// Before the apply, kguard asks each changed image's registry whether it exists, with the pods'
// own pull credentials (the pod's imagePullSecrets, else its ServiceAccount's): the real
// bin/kguard and kubectl against the simulator, and a real registry (docker-registry with
// htpasswd) on 127.0.0.1. kube-sim pulls any image its scenario does not list as missing, so
// what is refused here was refused by the registry, before anything was applied.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { freePort } from '../free-port.js';
import { startRegistry, type TestRegistry } from '../images/registry-server.js';
import { sandbox, type KguardRun, type Sandbox } from './harness.js';

let registry: TestRegistry;
let env: Sandbox | undefined;
const outputs: string[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  await registry.push('team/app', 'v1');
}, 30_000);
afterAll(async () => {
  await registry?.stop();
  // No output of any run of this file holds the registry's password, in any form.
  const forms = [registry.password, Buffer.from(`${registry.username}:${registry.password}`).toString('base64')];
  for (const output of outputs) for (const form of forms) expect(output).not.toContain(form);
});
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

function pullSecretYaml(name: string): string {
  const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
  const config = JSON.stringify({
    auths: { [registry.host]: { username: registry.username, password: registry.password, auth } },
  });
  return `apiVersion: v1
kind: Secret
metadata:
  name: ${name}
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: ${Buffer.from(config).toString('base64')}
`;
}

function deployment(image: string, pod: { pullSecret?: string; serviceAccount?: string } = {}): string {
  const podSpec = `${pod.serviceAccount ? `      serviceAccountName: ${pod.serviceAccount}\n` : ''}${pod.pullSecret ? `      imagePullSecrets:\n      - name: ${pod.pullSecret}\n` : ''}`;
  return deploymentYaml('web', image, { container: 'app', podSpec, containerLines: '' });
}

async function run(
  sandboxed: Sandbox,
  manifest: string,
  extra: string[] = [],
): Promise<KguardRun & { events: string }> {
  const file = await sandboxed.write('app.yaml', manifest);
  const events = join(sandboxed.dir, 'events.jsonl');
  const result = await sandboxed.kguard([
    'apply',
    '-f',
    file,
    '--poll-interval',
    '300ms',
    '--events',
    events,
    ...extra,
  ]);
  const stream = await readFile(events, 'utf8').catch(() => '');
  outputs.push(result.stdout, result.stderr, stream);
  return { ...result, events: stream };
}

async function withPullSecret(sandboxed: Sandbox): Promise<void> {
  const created = await kubectl(sandboxed.cluster, ['apply', '-f', '-'], pullSecretYaml('regcred'));
  expect(created.exitCode, created.stderr).toBe(0);
}

function kguardObjects(sandboxed: Sandbox) {
  return [
    ...sandboxed.cluster.store.list('Secret', 'default').filter((secret) => secret.metadata.name.startsWith('kguard-')),
    ...sandboxed.cluster.store.list('Lease', 'default'),
    ...sandboxed.cluster.store.list('Lease', 'kube-system'),
  ];
}

describe("the registry is asked before the apply, with the pods' pull credentials", () => {
  it('refuses a tag never pushed: exit 1, the object, container, image and answer named, nothing applied', async () => {
    const sandboxed = (env = await sandbox());
    await withPullSecret(sandboxed);
    const image = `${registry.host}/team/app:v2`;
    const result = await run(sandboxed, deployment(image, { pullSecret: 'regcred' }));
    expect(result.exitCode, result.output).toBe(1);
    expect(result.output).toContain(
      `deployment/web (namespace default), container app: image "${image}" does not exist (registry ${registry.host} answers MANIFEST_UNKNOWN (manifest unknown), to the pod's pull credentials). Next: push the image or correct its name or tag`,
    );
    expect(result.output).toContain('nothing was applied');
    expect(sandboxed.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
    expect(kguardObjects(sandboxed)).toEqual([]);
    expect(result.events).toContain('"kind":"image-missing"');
  });

  it('applies an image that exists (credentials from the pod spec), its verdict in the report', async () => {
    const sandboxed = (env = await sandbox());
    await withPullSecret(sandboxed);
    const image = `${registry.host}/team/app:v1`;
    const result = await run(sandboxed, deployment(image, { pullSecret: 'regcred' }), ['-o', 'json', '-v']);
    expect(result.exitCode, result.output).toBe(0);
    expect(sandboxed.imageOf('web')).toBe(image);
    const report = JSON.parse(result.stdout) as {
      images: Array<{ image: string; verdict: string; container: string }>;
    };
    expect(report.images).toEqual([
      expect.objectContaining({ name: 'web', container: 'app', image, verdict: 'exists' }),
    ]);
    expect(result.events).toContain('"kind":"image-exists"');
  });

  it("uses the ServiceAccount's pull Secrets when the pod names none", async () => {
    const sandboxed = (env = await sandbox());
    await withPullSecret(sandboxed);
    const account = await kubectl(
      sandboxed.cluster,
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: builder\nimagePullSecrets:\n- name: regcred\n',
    );
    expect(account.exitCode, account.stderr).toBe(0);
    // Without the ServiceAccount's credentials this registry answers 401 and the run would go on.
    const missing = await run(sandboxed, deployment(`${registry.host}/team/app:v3`, { serviceAccount: 'builder' }));
    expect(missing.exitCode, missing.output).toBe(1);
    expect(missing.output).toContain(`image "${registry.host}/team/app:v3" does not exist`);
    expect(sandboxed.cluster.store.get('Deployment', 'default', 'web')).toBeUndefined();
    const found = await run(sandboxed, deployment(`${registry.host}/team/app:v1`, { serviceAccount: 'builder' }), [
      '-v',
    ]);
    expect(found.exitCode, found.output).toBe(0);
    expect(found.output).toContain(`image "${registry.host}/team/app:v1" exists`);
  });

  it('a pull Secret in the same apply is read as the apply would leave it', async () => {
    const sandboxed = (env = await sandbox());
    const result = await run(
      sandboxed,
      `${pullSecretYaml('regcred')}---\n${deployment(`${registry.host}/team/app:v4`, { pullSecret: 'regcred' })}`,
    );
    expect(result.exitCode, result.output).toBe(1);
    expect(result.output).toContain('does not exist');
    expect(sandboxed.cluster.store.get('Secret', 'default', 'regcred')).toBeUndefined();
  });

  it('goes on without credentials, saying the image was not checked and why', async () => {
    const sandboxed = (env = await sandbox());
    const image = `${registry.host}/team/app:v7`;
    const result = await run(sandboxed, deployment(image));
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain(
      `deployment/web (namespace default), container app: image "${image}" not checked: registry ${registry.host} wants credentials (401) and the pod names none for it`,
    );
  });

  it('does not block on an unreachable registry, and says so', async () => {
    const sandboxed = (env = await sandbox());
    const image = `127.0.0.1:${await freePort()}/team/app:v1`;
    const result = await run(sandboxed, deployment(image));
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain(`image "${image}" not checked: registry 127.0.0.1:`);
    expect(result.output).toMatch(
      /cannot be reached from here \(connection refused: connect ECONNREFUSED 127\.0\.0\.1:\d+\)/,
    );
    expect(sandboxed.imageOf('web')).toBe(image);
  });

  it('--image-check=off asks nothing', async () => {
    const sandboxed = (env = await sandbox());
    await withPullSecret(sandboxed);
    const image = `${registry.host}/team/app:v8`;
    const result = await run(sandboxed, deployment(image, { pullSecret: 'regcred' }), ['--image-check=off']);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).not.toContain('image "');
  });
});
