// Issue 17, end to end: a successful run is kept in the cluster's history; `kguard history`
// lists the runs, `kguard undo` puts back the state from before one, with the restore's rule.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox, withSandbox } from './harness.js';
import { differencesFrom, peopleMadeObjects, type ClusterState } from './restored.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];

const withCluster = (test: (sandboxed: Sandbox) => Promise<void>) => withSandbox(sandbox, test);

/** What people made, kguard's own records aside (its history Secrets stay by design). */
function peopleState(sandboxed: Sandbox): ClusterState {
  const state = peopleMadeObjects(sandboxed.cluster.store);
  for (const [key, object] of state)
    if (object.metadata.labels?.['app.kubernetes.io/managed-by'] === 'kguard') state.delete(key);
  return state;
}

async function applyWeb(sandboxed: Sandbox, image: string, extra: { replicas?: number } = {}): Promise<void> {
  const file = await sandboxed.write(
    `web-${image.replace(/\W/g, '-')}-${extra.replicas ?? 2}.yaml`,
    deploymentYaml('web', image, extra),
  );
  const run = await sandboxed.kguard(['apply', '-f', file, ...fast]);
  expect(run.exitCode, run.output).toBe(0);
  expect(run.output).toMatch(
    /• run kguard-\S+ kept in kguard's history \(secret\/kguard-\S+-history in namespace default; the last 10 runs of each are kept\): kguard undo kguard-\S+ puts back the state before it/,
  );
}

interface HistoryJson {
  runs: Array<{
    runId: string;
    user: string;
    context: string;
    outcome: string;
    inputsDigest: string;
    bytes: number;
    objects: Array<{ kind: string; name: string; change: string }>;
  }>;
}

describe.concurrent('kguard history and undo', () => {
  it('lists three successful applies, newest first, with who, what they changed and their inputs', () =>
    withCluster(async (sandboxed) => {
      await applyWeb(sandboxed, 'nginx:1.25');
      await applyWeb(sandboxed, 'nginx:1.26');
      await applyWeb(sandboxed, 'nginx:1.26', { replicas: 3 });
      const json = await sandboxed.kguard(['history', '-n', 'default', '-o', 'json']);
      expect(json.exitCode, json.stderr).toBe(0);
      const { runs } = JSON.parse(json.stdout) as HistoryJson;
      expect(runs).toHaveLength(3);
      expect(runs.map((run) => run.objects.map((object) => `${object.kind}/${object.name} ${object.change}`))).toEqual([
        ['Deployment/web configured'],
        ['Deployment/web configured'],
        ['Deployment/web created'],
      ]);
      expect(
        runs.every(
          (run) =>
            run.user === 'kguard-sim' &&
            run.context === 'kguard-sim' &&
            run.outcome === 'succeeded' &&
            /^sha256:[0-9a-f]{64}$/.test(run.inputsDigest),
        ),
      ).toBe(true);
      expect(new Set(runs.map((run) => run.inputsDigest)).size).toBe(3);
      expect(runs.map((run) => run.runId)).toEqual([...runs.map((run) => run.runId)].sort().reverse());
      // What a run costs in bytes: one record of one Deployment's two copies, compressed.
      expect(runs[0]!.bytes).toBeLessThan(8 * 1024);
      const text = await sandboxed.kguard(['history']);
      expect(text.output).toContain(`${runs[0]!.runId}  `);
      expect(text.output).toContain('    deployment/web (namespace default): configured');
      expect(text.output).toContain(`undo: kguard undo ${runs[2]!.runId}`);
    }));

  it('undoes the last run: the cluster is as before it, field by field; --dry-run first shows the differences and changes nothing', () =>
    withCluster(async (sandboxed) => {
      await applyWeb(sandboxed, 'nginx:1.25');
      const beforeRun = peopleState(sandboxed);
      await applyWeb(sandboxed, 'nginx:1.26');
      const preview = await sandboxed.kguard(['undo', '--dry-run']);
      expect(preview.exitCode, preview.output).toBe(0);
      expect(preview.output).toMatch(
        /• deployment\/web \(namespace default\): would be put back as it was before run kguard-\S+:/,
      );
      expect(preview.output).toMatch(/\n {4}--- live deployment\.apps\/web\n {4}\+\+\+ before run kguard-\S+\n/);
      expect(preview.output).toMatch(/\n {4}- +image: nginx:1\.26\n {4}\+ +image: nginx:1\.25\n/);
      expect(preview.output).not.toContain('deployment.kubernetes.io/revision');
      expect(preview.output).toMatch(
        /kguard undo kguard-\S+ --dry-run: 1 object\(s\) would be put back, 0 already as before the run; nothing was changed \(exit 0\)/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
      const undo = await sandboxed.kguard(['undo']);
      expect(undo.exitCode, undo.output).toBe(0);
      expect(undo.output).toContain('↩ deployment/web (namespace default): put back as it was before the apply');
      expect(undo.output).toContain('↩ deployment/web (namespace default): restored and healthy again, 2/2 pods ready');
      expect(undo.output).toMatch(
        /kguard undo kguard-\S+: 1 object\(s\) put back as they were before the run and healthy, 0 already so \(exit 0\)/,
      );
      expect(differencesFrom(beforeRun, peopleState(sandboxed))).toEqual([]);
    }));

  it('refuses to undo an object someone changed since the run: their change wins, kguard names it with the commands (exit 4)', () =>
    withCluster(async (sandboxed) => {
      await applyWeb(sandboxed, 'nginx:1.25');
      await applyWeb(sandboxed, 'nginx:1.26');
      await execa('kubectl', ['set', 'image', 'deployment/web', 'web=nginx:1.27-hotfix'], {
        env: { ...process.env, ...sandboxed.cluster.env },
      });
      const undo = await sandboxed.kguard(['undo']);
      expect(undo.exitCode, undo.output).toBe(4);
      expect(undo.output).toContain(
        '‼ deployment/web (namespace default): NOT restored: someone else changed it after the apply, and their change wins. Inspect and decide:',
      );
      expect(undo.output).toMatch(
        /kguard undo kguard-\S+: 1 object\(s\) need a person \(commands above\); 0 put back \(exit 4\)/,
      );
      expect(sandboxed.imageOf('web')).toBe('nginx:1.27-hotfix');
    }));

  it("keeps each namespace's copies in that namespace, Secrets included; history shows one run and undo puts back both", () =>
    withCluster(async (sandboxed) => {
      const namespaces = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: billing\n';
      const created = await sandboxed.kguard(['apply', '-f', await sandboxed.write('ns.yaml', namespaces), ...fast]);
      expect(created.exitCode, created.output).toBe(0);
      const secret = (namespace: string, value: string) =>
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${namespace}\nstringData:\n  password: ${value}\n`;
      const before = peopleState(sandboxed);
      const file = await sandboxed.write(
        'both.yaml',
        `${secret('default', 'default-pass-1')}---\n${secret('billing', 'billing-pass-1')}`,
      );
      const run = await sandboxed.kguard(['apply', '-f', file, ...fast]);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(
        /history \(secret\/kguard-\S+-history in namespace (default, billing|billing, default);/,
      );
      const runId = run.output.match(/run (kguard-\S+) kept/)?.[1];
      const part = (namespace: string) => {
        const record = sandboxed.cluster.store.get('Secret', namespace, `${runId}-history`);
        expect(record, `${runId}-history in ${namespace}`).toBeDefined();
        return Buffer.from((record as unknown as { data: { history: string } }).data.history, 'base64');
      };
      // Each part holds only its own namespace's Secret (the record is gzip: read it back).
      const { gunzipSync } = await import('node:zlib');
      const billingPart = gunzipSync(part('billing')).toString('utf8');
      const defaultPart = gunzipSync(part('default')).toString('utf8');
      expect(billingPart).toContain('"namespace":"billing"');
      expect(billingPart).not.toContain('"namespace":"default","name":"db"');
      expect(defaultPart).not.toContain('"namespace":"billing"');
      const listed = await sandboxed.kguard(['history', '-o', 'json']);
      const { runs } = JSON.parse(listed.stdout) as HistoryJson;
      const both = runs.find((entry) => entry.objects.length === 2);
      expect(both?.objects.map((object) => object.name)).toEqual(['db', 'db']);
      const undone = await sandboxed.kguard(['undo', both!.runId, '-n', 'billing']);
      expect(undone.exitCode, undone.output).toBe(0);
      expect(differencesFrom(before, peopleState(sandboxed))).toEqual([]);
    }));

  it('counts an object put back by delete and create (a ConfigMap the run made immutable) as restored', () =>
    withCluster(async (sandboxed) => {
      const settings = (mode: string, immutable: boolean) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n${immutable ? 'immutable: true\n' : ''}data:\n  mode: ${mode}\n`;
      const first = await sandboxed.kguard([
        'apply',
        '-f',
        await sandboxed.write('fast.yaml', settings('fast', false)),
      ]);
      expect(first.exitCode, first.output).toBe(0);
      const before = peopleState(sandboxed);
      const uid = sandboxed.cluster.store.get('ConfigMap', 'default', 'settings')?.metadata.uid;
      const run = await sandboxed.kguard(['apply', '-f', await sandboxed.write('slow.yaml', settings('slow', true))]);
      expect(run.exitCode, run.output).toBe(0);
      // The API server refuses a write over an immutable ConfigMap's data (ValidateConfigMapUpdate):
      // the undo deletes it and creates its pre-apply copy (restore.ts replaceWithCopy, status "replaced").
      const undo = await sandboxed.kguard(['undo', '-o', 'json']);
      expect(undo.exitCode, undo.output).toBe(0);
      const report = JSON.parse(undo.stdout) as {
        restored: number;
        needsPerson: number;
        objects: Array<{ object: string; status: string }>;
      };
      expect(report.objects).toEqual([expect.objectContaining({ status: 'replaced' })]);
      expect(report).toMatchObject({ restored: 1, needsPerson: 0 });
      expect(sandboxed.cluster.store.get('ConfigMap', 'default', 'settings')?.metadata.uid).not.toBe(uid);
      expect(differencesFrom(before, peopleState(sandboxed))).toEqual([]);
    }));
});

describe('the history line is said once the record is written (#45)', () => {
  it('a kill -9 right after "kguard undo RUN puts back…" leaves the record it names', () =>
    withCluster(async (sandboxed) => {
      await applyWeb(sandboxed, 'nginx:1.25');
      const file = await sandboxed.write('web-next.yaml', deploymentYaml('web', 'nginx:1.26'));
      const running = sandboxed.kguardProcess(['apply', '-f', file, ...fast]);
      await eventually(() => (running.output().includes('watching the new rollout') ? true : undefined));
      // The history record is the run's last Secret created (POST): it now takes 8 s to land.
      sandboxed.cluster.faults.slowNext(8_000, 1, /^POST [^?]*\/secrets/);
      const said = /kguard undo (kguard-\S+) puts back the state before it/;
      const runId = await eventually(() => said.exec(running.output())?.[1], 30_000);
      running.child.kill('SIGKILL');
      await running.done;
      // Before: the line came before the write, and the kill left no record.
      expect(sandboxed.cluster.store.get('Secret', 'default', `${runId}-history`), running.output()).toBeDefined();
    }));
});
