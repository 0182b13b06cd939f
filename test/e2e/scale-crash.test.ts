// Applies big enough to break what worked on small ones. kguard once built one regular expression
// of every Secret value it knew, and learned its own journal Secret's payload as one when it read
// the journal back: past some 17 KB of payload (about 150 objects) the pattern no longer compiled
// and kguard died after the apply, leaving it live and unwatched. A Secret with a 20 KB value did
// the same at the start.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';
import { configMapYaml, serviceYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { sandboxFor } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '90s'];

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

/** Objects kguard writes for itself: none may outlive a run that ended cleanly. */
/** kguard's objects left after the run: its Leases and journal, not the history record a successful run keeps on purpose. */
function kguardLeftovers(): string[] {
  return [...peopleMadeObjects(env.cluster.store).values()]
    .filter(
      (object) => object.kind === 'Lease' || object.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kguard',
    )
    .filter((object) => object.metadata.labels?.['kguard.dev/history'] === undefined)
    .map((object) => `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`);
}

describe('an apply of many objects', () => {
  // 52 of each kind: the journal Secret, read back after the apply, holds about 17.6 KB of payload.
  // Before the fix 153 objects (17.5 KB) crashed and 150 (17.2 KB) did not.
  const perKind = 52;

  it(`applies ${perKind * 3} Deployments, ConfigMaps and Services with the journal on: exit 0, all healthy, no journal or Lease left`, async () => {
    expect((await kubectl(env.cluster, ['create', 'namespace', 'scale'])).exitCode).toBe(0);
    const manifests: string[] = [];
    for (let index = 0; index < perKind; index++) {
      manifests.push(
        deploymentYaml(`web-${index}`, 'nginx:1.25', { replicas: 1, namespace: 'scale' }),
        configMapYaml(`settings-${index}`, { level: 'info', index: String(index) }, 'scale'),
        serviceYaml(`web-${index}`, 80, 'scale'),
      );
    }
    const file = await env.write('many.yaml', manifests.join('---\n'));
    const before = peopleMadeObjects(env.cluster.store);

    const run = await env.kguard(['apply', '-f', file, ...fast, '-o', 'json']);

    expect(run.exitCode, run.output).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.objects).toHaveLength(perKind * 3);
    expect(
      report.objects.every((object) => object.change === 'created'),
      run.output,
    ).toBe(true);
    const deployments = report.objects.filter((object) => object.kind === 'Deployment');
    expect(deployments).toHaveLength(perKind);
    expect(
      deployments.every((object) => object.tracked && object.verdict === 'healthy'),
      run.output,
    ).toBe(true);
    expect(
      report.objects.filter((object) => object.tracked).every((object) => object.verdict === 'healthy'),
      run.output,
    ).toBe(true);
    // The journal was written, updated with the applied copies, and deleted.
    expect(report.messages.some((message) => message.includes('pre-apply copies journalled in secret/'))).toBe(true);
    expect(run.output).not.toContain('could not update its run journal');
    for (let index = 0; index < perKind; index++) {
      expect(
        env.cluster.store.get('Deployment', 'scale', `web-${index}`)?.status?.availableReplicas,
        `web-${index}`,
      ).toBe(1);
    }
    expect(kguardLeftovers()).toEqual([]);
    // The applied objects, and the run's history record (--history): nothing else.
    expect(peopleMadeObjects(env.cluster.store).size).toBe(before.size + perKind * 3 + 1);
    expect(
      env.cluster.store.get(
        'Secret',
        'scale',
        `${report.messages.join('\n').match(/run (kguard-\S+) kept in kguard's history/)?.[1]}-history`,
      ),
    ).toBeDefined();
  }, 180_000);
});

describe('a Secret with a big value', () => {
  it('applies a Secret holding a 20 KB text value with a Deployment: exit 0, and the value is never printed', async () => {
    // A certificate bundle: 64-character lines, each also redacted on its own.
    const lines = Array.from({ length: 310 }, () => randomBytes(48).toString('base64'));
    const bundle = ['-----BEGIN CERTIFICATE-----', ...lines, '-----END CERTIFICATE-----'].join('\n');
    expect(bundle.length).toBeGreaterThan(20_000);
    const secret = `apiVersion: v1
kind: Secret
metadata:
  name: ca-bundle
stringData:
  ca.crt: |
${bundle
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
`;
    const file = await env.write('app.yaml', `${secret}---\n${deploymentYaml('web', 'nginx:1.25')}`);

    const run = await env.kguard(['apply', '-f', file, ...fast, '-o', 'json']);

    expect(run.exitCode, run.output).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'succeeded', exitCode: 0 });
    expect(run.output).toContain('deployment/web (namespace default): rolled out');
    const everything = `${run.stdout}\n${run.stderr}`;
    for (const leaked of [bundle, Buffer.from(bundle).toString('base64').slice(0, 200), ...lines])
      expect(everything).not.toContain(leaked);
    expect(env.cluster.store.get('Secret', 'default', 'ca-bundle')).toBeDefined();
    expect(kguardLeftovers()).toEqual([]);
  }, 120_000);
});

describe('a copy too big for a Secret', () => {
  it('refuses a ConfigMap of 700 KB of random data before the apply (exit 2), saying what to do, and changes nothing', async () => {
    const blob = (bytes: number) => randomBytes(bytes).toString('base64');
    // Created with kubectl apply: its pre-apply copy holds the data twice, in data and in the
    // last-applied-configuration annotation, 1.4 MB that does not compress. (A real API server
    // refuses annotations over 256 KiB; the simulator does not, and the limit kguard checks is its own.)
    const first = await env.write('big-1.yaml', configMapYaml('big', { blob: blob(525 * 1024) }));
    expect((await kubectl(env.cluster, ['apply', '-f', first])).exitCode).toBe(0);
    const before = peopleMadeObjects(env.cluster.store);
    const file = await env.write('big-2.yaml', configMapYaml('big', { blob: blob(525 * 1024) }));

    const run = await env.kguard(['apply', '-f', file, ...fast]);

    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toMatch(
      /kguard cannot journal this apply: the pre-apply copy of configmap\/big \(namespace default\) is \d{4} KiB compressed, more than a Secret may hold \(1024 KiB, the API server's limit\)/,
    );
    expect(run.stderr).toContain('Next: run with --no-journal');
    expect(run.stderr).toContain('nothing was applied.');
    expect(run.output).not.toContain('internal error');
    expect(differencesFrom(before, peopleMadeObjects(env.cluster.store))).toEqual([]);

    // The way out the message names goes ahead.
    const without = await env.kguard(['apply', '-f', file, ...fast, '--no-journal']);
    expect(without.exitCode, without.output).toBe(0);
    expect(without.output).toContain('configmap/big configured');
  }, 120_000);
});
