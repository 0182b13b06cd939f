// Writes the API server refuses (test/kube-sim/README.md, "API validation"), through the real
// kubectl: a restore never sends one and never prints one. An immutable ConfigMap goes back by
// delete and create; a claim's grown storage request and a pruned Job that had completed cannot
// come back, and kguard says so before the apply, in a preview and at the end (exit 4), instead of
// a refused write ("ROLLBACK FAILED").
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentYaml, jobYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';

let env: Sandbox | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const MISSING = 'nginx:9.99';
const fast = ['--poll-interval', '300ms'];
const settingsYaml = (mode: string, immutable: boolean) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n${immutable ? 'immutable: true\n' : ''}data:\n  mode: ${mode}\n`;

async function cluster(): Promise<Sandbox> {
  env = await sandbox({ scenario: { registry: { [MISSING]: 'missing' } } as never });
  return env;
}

/** The run ended with `exitCode` and said each of `lines`, with no write the API server refused (ROLLBACK FAILED). */
function expectSaid(run: { exitCode: number; output: string }, exitCode: number, ...lines: string[]): void {
  expect(run.exitCode, run.output).toBe(exitCode);
  for (const line of lines) expect(run.output).toContain(line);
  expect(run.output).not.toContain('ROLLBACK FAILED');
}

describe('an immutable ConfigMap', () => {
  it('that the apply made immutable is put back by delete and create of its pre-apply copy: exit 3, exactly as before', async () => {
    const sandboxed = await cluster();
    const first = await kubectl(
      sandboxed.cluster,
      ['apply', '-f', '-'],
      `${settingsYaml('fast', false)}---\n${deploymentYaml('web', 'nginx:1.25')}`,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const uid = sandboxed.cluster.store.get('ConfigMap', 'default', 'settings')?.metadata.uid;
    const file = await sandboxed.write(
      'next.yaml',
      `${settingsYaml('slow', true)}---\n${deploymentYaml('web', MISSING)}`,
    );
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast]);
    expectSaid(
      run,
      3,
      'configmap/settings (namespace default): if this apply fails, a restore puts it back by deleting it and creating its pre-apply copy: immutable: true cannot be undone by a write',
      'configmap/settings (namespace default): put back by deleting it and creating its pre-apply copy again (a new uid)',
    );
    const settings = sandboxed.cluster.store.get('ConfigMap', 'default', 'settings')!;
    expect(settings.data).toEqual({ mode: 'fast' });
    expect(settings['immutable']).toBeUndefined();
    expect(settings.metadata.uid).not.toBe(uid);
  });

  it('with --rollback none, the printed commands are ones the API server takes: pasted, they restore it', async () => {
    const sandboxed = await cluster();
    await kubectl(
      sandboxed.cluster,
      ['apply', '-f', '-'],
      `${settingsYaml('fast', false)}---\n${deploymentYaml('web', 'nginx:1.25')}`,
    );
    const file = await sandboxed.write(
      'next.yaml',
      `${settingsYaml('slow', true)}---\n${deploymentYaml('web', MISSING)}`,
    );
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--rollback', 'none']);
    const lines = run.output.split('\n');
    const from = lines.findIndex((line) =>
      line.includes('configmap/settings (namespace default): left as applied because of --rollback none'),
    );
    expect(from, run.output).toBeGreaterThan(-1);
    const commands = lines
      .slice(from + 1)
      .filter((_line, index, rest) => rest.slice(0, index + 1).every((previous) => previous.startsWith('    kubectl ')))
      .map((line) => line.trim());
    expect(commands).toEqual([
      expect.stringMatching(/^kubectl delete configmap\/settings -n default$/),
      expect.stringMatching(/^kubectl create -f \S+configmap-default-settings\.json$/),
    ]);
    for (const command of commands) {
      const pasted = await kubectl(sandboxed.cluster, command.split(' ').slice(1));
      expect(pasted.exitCode, `${command}: ${pasted.stderr}`).toBe(0);
    }
    const settings = sandboxed.cluster.store.get('ConfigMap', 'default', 'settings')!;
    expect(settings.data).toEqual({ mode: 'fast' });
    expect(settings['immutable']).toBeUndefined();
  });
});

describe('a claim whose storage request grew', () => {
  const storageClass =
    'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\nprovisioner: rancher.io/local-path\nvolumeBindingMode: Immediate\nallowVolumeExpansion: true\n';
  const claimYaml = (size: string) =>
    `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: standard\n  resources:\n    requests:\n      storage: ${size}\n`;

  async function boundClaim(): Promise<Sandbox> {
    const sandboxed = await cluster();
    const first = await kubectl(
      sandboxed.cluster,
      ['apply', '-f', '-'],
      `${storageClass}---\n${claimYaml('1Gi')}---\n${deploymentYaml('web', 'nginx:1.25')}`,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    await eventually(() =>
      sandboxed.cluster.store.get('PersistentVolumeClaim', 'default', 'data')?.status?.phase === 'Bound'
        ? true
        : undefined,
    );
    return sandboxed;
  }

  it('is said to be not restorable in a preview', async () => {
    const sandboxed = await boundClaim();
    const file = await sandboxed.write('next.yaml', `${claimYaml('2Gi')}---\n${deploymentYaml('web', MISSING)}`);
    const run = await sandboxed.kguard(['apply', '-f', file, '--dry-run']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      "persistentvolumeclaim/data (namespace default): NOT restorable if this apply fails: a restore cannot put it back: its storage request cannot go back from 2Gi to 1Gi: the API server never lets a claim's storage request go down",
    );
  });

  it('is left as it is when the apply fails, and said: the rest is restored, exit 4, no refused write', async () => {
    const sandboxed = await boundClaim();
    const file = await sandboxed.write('next.yaml', `${claimYaml('2Gi')}---\n${deploymentYaml('web', MISSING)}`);
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast]);
    expectSaid(
      run,
      4,
      'persistentvolumeclaim/data (namespace default): NOT restorable if this apply fails',
      'persistentvolumeclaim/data (namespace default): NOT restored: no write the API server takes puts it back (its storage request cannot go back from 2Gi to 1Gi',
      'deployment/web (namespace default): put back as it was before the apply',
    );
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    expect(
      sandboxed.cluster.store.get('PersistentVolumeClaim', 'default', 'data')?.spec.resources.requests.storage,
    ).toBe('2Gi');
    // Nothing but the storage request differs: there is nothing to write, only to look at.
    expect(run.output).toContain('    kubectl get persistentvolumeclaim/data -n default -o yaml');
    expect(run.output).not.toContain('kubectl replace');
  });
});

describe('a Job that had completed', () => {
  it('is not created again (never run twice) when the apply that pruned it fails: said before and after, exit 4', async () => {
    const sandboxed = await cluster();
    const labelled = (text: string) =>
      text
        .replace(/^metadata:\n/m, 'metadata:\n  labels:\n    team: shop\n')
        .replace(/^ {2}labels:\n {4}app: web\n/m, '');
    const first = await kubectl(
      sandboxed.cluster,
      ['apply', '-f', '-'],
      `${labelled(jobYaml('migrate', 'busybox:1.36', { runSeconds: 1 }))}---\n${labelled(deploymentYaml('web', 'nginx:1.25'))}`,
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const complete = await kubectl(sandboxed.cluster, [
      'wait',
      '--for=condition=complete',
      'job/migrate',
      '--timeout=20s',
    ]);
    expect(complete.exitCode, complete.stderr).toBe(0);
    const file = await sandboxed.write('next.yaml', labelled(deploymentYaml('web', MISSING)));
    const run = await sandboxed.kguard(['apply', '-f', file, ...fast, '--', '--prune', '-l', 'team=shop']);
    expectSaid(
      run,
      4,
      'job/migrate (namespace default): NOT restorable if this apply fails: a restore will not create it again: it had completed before the apply',
      'job/migrate (namespace default): NOT created again: a Job that had finished is never run a second time by a restore',
    );
    expect(sandboxed.imageOf('web')).toBe('nginx:1.25');
    expect(sandboxed.cluster.store.get('Job', 'default', 'migrate')).toBeUndefined();
    expect(sandboxed.cluster.store.list('Pod', 'default', 'job-name=migrate')).toEqual([]);
  });
});
