// kguard against a real control plane: the other workload kinds and a custom resource.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonSetYaml, jobYaml, statefulSetYaml, WIDGET_CRD_YAML } from '../kube-sim/testing/kubectl.js';
import { imageOf, realSandbox, type RealSandbox } from './harness.js';
import { MISSING_IMAGE } from './scenario.js';

let sandbox: RealSandbox;
beforeAll(async () => {
  sandbox = await realSandbox('real-kinds');
});
afterAll(async () => {
  await sandbox?.stop();
});

const apply = async (name: string, yaml: string, timeout = '60s') => {
  const file = await sandbox.write(name, yaml);
  return sandbox.kguard(['apply', '-f', file, '-n', sandbox.namespace, '--timeout', timeout, '--poll-interval', '1s']);
};

describe('other kinds on the real control plane', () => {
  it('a Job that completes: exit 0, the Job Complete', async () => {
    const run = await apply('job.yaml', jobYaml('smoke', 'busybox:1.36', { runSeconds: 1 }));
    expect(run.exitCode, run.output).toBe(0);
    const job = await sandbox.get('job', 'smoke');
    expect(job?.status).toMatchObject({ succeeded: 1 });
  });

  it('a StatefulSet: rolls out, then a missing image is restored (exit 3)', async () => {
    const first = await apply('db-v1.yaml', statefulSetYaml('db', 'nginx:1.25', { replicas: 2 }));
    expect(first.exitCode, first.output).toBe(0);
    const run = await apply('db-v2.yaml', statefulSetYaml('db', MISSING_IMAGE, { replicas: 2 }));
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toMatch(/ErrImagePull|ImagePullBackOff/);
    expect(imageOf(await sandbox.get('statefulset', 'db'))).toBe('nginx:1.25');
  });

  it('a DaemonSet: one pod per node, rolls out, then a missing image is restored (exit 3)', async () => {
    const first = await apply('agent-v1.yaml', daemonSetYaml('agent', 'nginx:1.25'));
    expect(first.exitCode, first.output).toBe(0);
    expect((await sandbox.get('daemonset', 'agent'))?.status).toMatchObject({
      desiredNumberScheduled: 2,
      numberReady: 2,
    });
    const run = await apply('agent-v2.yaml', daemonSetYaml('agent', MISSING_IMAGE));
    expect(run.exitCode, run.output).toBe(3);
    expect(imageOf(await sandbox.get('daemonset', 'agent'))).toBe('nginx:1.25');
  });

  it('a CRD and a custom resource nothing reconciles: kguard waits for its first status, times out (exit 5) and deletes it', async () => {
    const crd = await apply('crd.yaml', WIDGET_CRD_YAML);
    expect(crd.exitCode, crd.output).toBe(0);
    const established = await sandbox.kubectl([
      'wait',
      '--for=condition=established',
      'crd/widgets.example.com',
      '--timeout=30s',
    ]);
    expect(established.exitCode, established.stderr).toBe(0);
    const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: gear\nspec:\n  size: 1\n';
    const run = await apply('gear.yaml', widget, '5s');
    expect(run.output).toContain(
      'widget.example.com/gear (namespace real-kinds): no status yet: waiting for the Widget controller to write its first status',
    );
    expect(run.exitCode, run.output).toBe(5);
    expect(run.output).toContain('widget.example.com/gear (namespace real-kinds): deleted (this apply created it)');
    expect(await sandbox.get('widget', 'gear')).toBeUndefined();
  });
});
