// The run journal as the cluster holds it, through the real kubectl: each namespace's copies in that
// namespace, as many Secrets as they need (the simulator refuses one over 1 MiB, as the API server
// does), cluster-scoped objects in --journal-namespace; read back whole by status and rollback.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournalSecret, type Journal } from '../../src/journal/journal.js';
import type { KubeObject } from '../kube-sim/types.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox, untilWatching } from './harness.js';
import { configMapYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { MISSING } from './run-fixtures.js';

const THROTTLED = 'registry.example.com/shop/web:2.0';
const fast = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '3s'];

let env: Sandbox;
/** Every version of every journal Secret the cluster stored, in order. */
let journalWrites: KubeObject[];
beforeEach(async () => {
  env = await sandbox({
    scenario: { registry: { [MISSING]: 'missing', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } },
  });
  journalWrites = [];
  env.cluster.store.subscribe(({ type, object }) => {
    if (type !== 'DELETED' && object.kind === 'Secret' && /-journal(-\d+)?$/.test(object.metadata.name))
      journalWrites.push(object);
  });
});
afterEach(async () => {
  await env.stop();
});

function secretYaml(name: string, namespace: string, password: string): string {
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  password: ${Buffer.from(password).toString('base64')}\n`;
}

function journalSecretsLeft(): string[] {
  return env.cluster.store
    .everything()
    .filter((object) => object.kind === 'Secret' && /-journal(-\d+)?$/.test(object.metadata.name))
    .map((object) => `${object.metadata.namespace}/${object.metadata.name}`);
}

async function namespaces(...names: string[]): Promise<void> {
  for (const name of names) expect((await kubectl(env.cluster, ['create', 'namespace', name])).exitCode).toBe(0);
}

describe('a big apply', () => {
  it('30 ConfigMaps of 100 KB of random data and a failing Deployment: journalled in several Secrets under 1 MiB, restored (exit 3)', async () => {
    const blob = () => randomBytes(75 * 1024).toString('base64');
    const version = () =>
      Array.from({ length: 30 }, (_, index) => configMapYaml(`dashboard-${index}`, { json: blob() }));
    const v1 = await env.write('v1.yaml', [...version(), deploymentYaml('web', 'nginx:1.25')].join('---\n'));
    expect((await kubectl(env.cluster, ['apply', '-f', v1])).exitCode).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    // The pre-apply copies alone: 30 × (100 KB of data + the same in last-applied-configuration).
    const v2 = await env.write('v2.yaml', [...version(), deploymentYaml('web', MISSING)].join('---\n'));

    // The harness checks that exit 3 means every object is exactly as before the run.
    const run = await env.kguard(['apply', '-f', v2, ...fast]);

    expect(run.exitCode, run.output).toBe(3);
    const secrets = new Set(journalWrites.map((secret) => `${secret.metadata.namespace}/${secret.metadata.name}`));
    expect(secrets.size, [...secrets].join(', ')).toBeGreaterThanOrEqual(4);
    expect(run.output).toMatch(
      /pre-apply copies journalled in \d+ Secrets kguard-\S+-journal… in namespace default \(\d+\) until the run ends/,
    );
    for (const secret of journalWrites) {
      const bytes = Buffer.from((secret as unknown as { data: { journal: string } }).data.journal, 'base64').length;
      expect(bytes).toBeLessThan(700 * 1024);
    }
    // Every object's copy in exactly one Secret of the last version written.
    const last = new Map(journalWrites.map((secret) => [secret.metadata.name, readJournalSecret(secret)]));
    const journalled = [...last.values()].flatMap((journal) =>
      journal.objects.map((entry) => `${entry.ref.kind}/${entry.ref.name}`),
    );
    expect(journalled.sort()).toEqual(
      [...Array.from({ length: 30 }, (_, index) => `ConfigMap/dashboard-${index}`), 'Deployment/web'].sort(),
    );
    expect(journalSecretsLeft()).toEqual([]);
  }, 120_000);
});

describe('a journal per namespace', () => {
  it("Secrets of two namespaces are journalled each in its own namespace: no journal holds another namespace's values", async () => {
    await namespaces('shop', 'billing');
    expect(
      (
        await kubectl(
          env.cluster,
          ['apply', '-f', '-'],
          `${secretYaml('db', 'shop', 'shop-old-pw')}---\n${secretYaml('db', 'billing', 'billing-old-pw')}---\n${deploymentYaml('web', 'nginx:1.25', { namespace: 'shop' })}`,
        )
      ).exitCode,
    ).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'shop', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const v2 = [
      secretYaml('db', 'shop', 'shop-new-pw'),
      secretYaml('db', 'billing', 'billing-new-pw'),
      deploymentYaml('web', MISSING, { namespace: 'shop' }),
    ].join('---\n');

    const run = await env.kguard(['apply', '-f', await env.write('v2.yaml', v2), ...fast]);

    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(
      /pre-apply copies journalled in 2 Secrets kguard-\S+-journal… in namespaces shop \(1\), billing \(1\)/,
    );
    expect(journalWrites.length).toBeGreaterThanOrEqual(4);
    const values = { shop: ['shop-old-pw', 'shop-new-pw'], billing: ['billing-old-pw', 'billing-new-pw'] } as const;
    for (const secret of journalWrites) {
      const namespace = secret.metadata.namespace as 'shop' | 'billing';
      const journal: Journal = readJournalSecret(secret);
      expect(
        journal.objects.every((entry) => entry.ref.namespace === namespace),
        `${namespace}: ${journal.objects.map((entry) => entry.ref.namespace)}`,
      ).toBe(true);
      const text = JSON.stringify(journal);
      const other = namespace === 'shop' ? 'billing' : 'shop';
      for (const value of values[other]) expect(text).not.toContain(Buffer.from(value).toString('base64'));
      expect(journal).toMatchObject({ home: 'shop', pieces: { shop: 1, billing: 1 } });
    }
    // The applied copies reached each namespace's own journal too.
    const applied = journalWrites.filter((secret) => readJournalSecret(secret).state === 'applied');
    expect(new Set(applied.map((secret) => secret.metadata.namespace))).toEqual(new Set(['shop', 'billing']));
    expect(journalSecretsLeft()).toEqual([]);
  });

  it("kill -9, then kguard status and rollback in one namespace read the run's Secrets from both and restore both", async () => {
    await namespaces('shop', 'billing');
    const v1 = `${configMapYaml('settings', { level: 'info' }, 'billing')}---\n${deploymentYaml('web', 'nginx:1.25', { namespace: 'shop' })}`;
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], v1)).exitCode).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'shop', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const before = peopleMadeObjects(env.cluster.store);
    const v2 = `${configMapYaml('settings', { level: 'debug' }, 'billing')}---\n${deploymentYaml('web', THROTTLED, { namespace: 'shop' })}`;
    const running = env.kguardProcess(['apply', '-f', await env.write('v2.yaml', v2), ...fast]);
    await untilWatching(running.output);
    running.child.kill('SIGKILL');
    await running.done;

    const status = await env.kguard(['status', '-n', 'billing']);
    expect(status.exitCode, status.output).toBe(0);
    // The run's home (the first namespace it touches) first, then the others by name.
    expect(status.stdout).toMatch(
      /^kguard-\S+ {2}journal in billing \(1\), shop \(1\) {2}2 object\(s\) .* dead: .* {2}→ {2}kguard rollback kguard-\S+$/m,
    );
    const run = await env.kguard(['rollback', '-n', 'billing']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(
      /kguard rollback kguard-\S+: 2 object\(s\) restored, 0 already as before the run; journal removed \(exit 0\)/,
    );
    await env.cluster.faults.restore();
    expect(differencesFrom(before, peopleMadeObjects(env.cluster.store))).toEqual([]);
    expect(journalSecretsLeft()).toEqual([]);
  });
});

describe('cluster-scoped objects', () => {
  const team = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n---\n${configMapYaml('settings', { level: 'info' }, 'team')}`;

  it('are journalled and leased in kube-system; when kguard may not write there, it refuses before the apply and says to pass --journal-namespace (exit 2)', async () => {
    env.cluster.faults.deny('create', 'leases', { namespace: 'kube-system' });
    env.cluster.faults.deny('create', 'secrets', { namespace: 'kube-system' });
    const file = await env.write('team.yaml', team);
    const refused = await env.kguard(['apply', '-f', file, ...fast]);
    expect(refused.exitCode, refused.output).toBe(2);
    expect(refused.stderr).toMatch(
      /in namespace kube-system \(the journal namespace of this apply's cluster-scoped objects\): .*Next: pass --journal-namespace NAMESPACE/,
    );
    expect(refused.stderr).toContain('nothing was applied');
    expect(env.cluster.store.get('Namespace', '', 'team')).toBeUndefined();

    const elsewhere = await env.kguard(['apply', '-f', file, ...fast, '--journal-namespace', 'default']);
    expect(elsewhere.exitCode, elsewhere.output).toBe(0);
    expect(elsewhere.output).toMatch(/pre-apply copies journalled in secret\/kguard-\S+-journal \(namespace default\)/);
    // The namespace the apply created held nothing before it: nothing of it was journalled.
    expect(journalWrites.map((secret) => secret.metadata.namespace)).toEqual(expect.arrayContaining(['default']));
    expect(journalWrites.every((secret) => secret.metadata.namespace === 'default')).toBe(true);
    expect(
      journalWrites.flatMap((secret) =>
        readJournalSecret(secret).objects.map((entry) => `${entry.ref.kind}/${entry.ref.name}`),
      ),
    ).not.toContain('ConfigMap/settings');
  });
});
