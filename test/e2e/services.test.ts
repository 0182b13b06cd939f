// Services judged through the real kubectl (kinds/network/service.ts): one whose selector matches the pods
// of its workload is done; one whose selector matches nothing (a label typo) is not, and the apply
// is restored. The 30 s grace before it fails is tested in test/kinds/service.test.ts; here its
// own deadline (kguard.dev/timeout) comes first.
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { serviceYaml } from './manifests.js';
import { sandboxFor } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s', '-o', 'json'];

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

function objectOf(report: JsonReport, kind: string, name: string) {
  return report.objects.find((object) => object.kind === kind && object.name === name);
}

describe('a Service', () => {
  it('that selects the pods of the Deployment applied with it is done (exit 0)', async () => {
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('web.yaml', `${deploymentYaml('web', 'nginx:1.25')}---\n${serviceYaml('web', 80)}`),
      ...fast,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(objectOf(JSON.parse(run.stdout) as JsonReport, 'Service', 'web')).toMatchObject({
      tracked: true,
      verdict: 'healthy',
    });
    expect(run.stderr).toMatch(/service\/web \(namespace default\): rolled out, selects [12] pods? in/);
  });

  it('whose selector matches no pod (a typo) is not done: the apply is restored, the selector named (exit 5 at its own deadline)', async () => {
    expect((await kubectl(env.cluster, ['apply', '-f', '-'], deploymentYaml('web', 'nginx:1.25'))).exitCode).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const typo = serviceYaml('web', 80, undefined, 'wbe').replace(
      '  name: web\n',
      '  name: web\n  annotations:\n    kguard.dev/timeout: 3s\n',
    );
    const run = await env.kguard([
      'apply',
      '-f',
      await env.write('web.yaml', `${deploymentYaml('web', 'nginx:1.26')}---\n${typo}`),
      ...fast,
    ]);
    expect(run.exitCode, run.stderr).toBe(5);
    const service = objectOf(JSON.parse(run.stdout) as JsonReport, 'Service', 'web');
    expect(service).toMatchObject({ change: 'created', verdict: 'timed-out', restore: { status: 'deleted' } });
    expect(service?.summary).toContain('waiting for its selector app=wbe to match a pod in namespace default');
    expect(env.cluster.store.get('Service', 'default', 'web')).toBeUndefined();
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});
