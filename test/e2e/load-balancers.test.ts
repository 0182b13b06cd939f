// Load-balancer addresses through the real kubectl (kinds/network/service.ts, kinds/network/ingress.ts), against
// the simulator's cloud service controller and ingress controller (kube-sim
// controllers/load-balancers.ts). A LoadBalancer Service is done once it has an address and
// fails, restored, when it has none at its deadline; an Ingress of a class that reports addresses
// likewise; an Ingress of a class that reports none is judged applied. One simulator for the file:
// each test uses its own names.
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '-o', 'json'];

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh), false);

function objectOf(stdout: string, kind: string, name: string) {
  return (JSON.parse(stdout) as JsonReport).objects.find((object) => object.kind === kind && object.name === name);
}

function loadBalancerYaml(name: string, annotations: Record<string, string> = {}): string {
  const meta = Object.entries(annotations)
    .map(([key, value]) => `    ${key}: "${value}"\n`)
    .join('');
  return `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${meta ? `  annotations:\n${meta}` : ''}spec:\n  type: LoadBalancer\n  selector:\n    app: web\n  ports:\n  - name: http\n    port: 80\n    targetPort: 80\n`;
}

function ingressYaml(name: string, ingressClass: string, annotations: Record<string, string> = {}): string {
  const meta = Object.entries(annotations)
    .map(([key, value]) => `    ${key}: "${value}"\n`)
    .join('');
  return `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ${name}\n${meta ? `  annotations:\n${meta}` : ''}spec:\n  ingressClassName: ${ingressClass}\n  rules:\n  - host: ${name}.example.com\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          service:\n            name: web\n            port:\n              number: 80\n`;
}

/** `kguard apply` of `yaml` (written as `<name>.yaml`) with a deadline of `timeout`, its report as JSON. */
async function applyWithin(name: string, yaml: string, timeout: string) {
  return env.kguard(['apply', '-f', await env.write(`${name}.yaml`, yaml), '--timeout', timeout, ...fast]);
}

/**
 * What an object the apply created without a load-balancer address at its 2 s deadline is: failed,
 * named with its cause and `kubectl describe` as the next step, and deleted by the restore (exit 3).
 */
function expectRestoredWithoutAddress(
  run: { exitCode: number; stdout: string; stderr: string },
  kind: 'Service' | 'Ingress',
  name: string,
): void {
  const resource = kind.toLowerCase();
  expect(run.exitCode, run.stderr).toBe(3);
  expect(objectOf(run.stdout, kind, name)).toMatchObject({
    change: 'created',
    verdict: 'failed',
    restore: { status: 'deleted' },
  });
  expect(run.stderr).toContain(
    `${resource}/${name} (namespace default): the rollout cannot be reached from outside the cluster: NoLoadBalancerAddress (no load-balancer address after 2s: status.loadBalancer.ingress is still empty)`,
  );
  expect(run.stderr).toContain(`kubectl describe ${resource} ${name} -n default`);
  expect(env.cluster.store.get(kind, 'default', name)).toBeUndefined();
}

const ingressClassesYaml = [
  'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: sim\nspec:\n  controller: kube-sim.kguard.dev/ingress-controller\n',
  // Its controller never writes status (as Contour or Traefik by default): no Ingress of it has an address.
  'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: quiet\nspec:\n  controller: example.com/quiet-controller\n',
].join('---\n');

describe('a LoadBalancer Service', () => {
  it('is done once the cloud gives it an address (exit 0)', async () => {
    const run = await applyWithin(
      'web',
      `${deploymentYaml('web', 'nginx:1.25')}---\n${loadBalancerYaml('web')}`,
      '60s',
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(objectOf(run.stdout, 'Service', 'web')).toMatchObject({ verdict: 'healthy' });
    expect(run.stderr).toMatch(
      /service\/web \(namespace default\): rolled out, selects [12] pods?, load-balancer address 203\.0\.113\.\d+ in/,
    );
  });

  it('with no address at its deadline fails, names the cause and the next step, and is restored (exit 3)', async () => {
    const never = loadBalancerYaml('web-public', { 'sim.kguard.dev/load-balancer': 'never' });
    const run = await applyWithin('never', never, '2s');
    expectRestoredWithoutAddress(run, 'Service', 'web-public');
    // The service controller's own words, read from the Service's events.
    expect(run.stderr).toContain(
      'event SyncLoadBalancerFailed: Error syncing load balancer: failed to ensure load balancer: the simulated cloud has no address to give',
    );
  });
});

describe('a LoadBalancer Service of a loadBalancerClass no controller serves', () => {
  it("gets no address (the cloud leaves it to that class's controller): it fails at its deadline naming the class, restored (exit 3)", async () => {
    const classy = loadBalancerYaml('web-internal').replace(
      '  type: LoadBalancer\n',
      '  type: LoadBalancer\n  loadBalancerClass: example.com/internal\n',
    );
    const run = await applyWithin('classy', classy, '2s');
    expect(run.exitCode, run.stderr).toBe(3);
    expect(objectOf(run.stdout, 'Service', 'web-internal')).toMatchObject({
      verdict: 'failed',
      restore: { status: 'deleted' },
    });
    expect(run.stderr).toContain('no load-balancer address after 2s');
    expect(run.stderr).toContain(
      'check that a controller for loadBalancerClass "example.com/internal" runs in the cluster',
    );
  });
});

describe('an Ingress', () => {
  beforeAll(async () => {
    expect(
      (await kubectl(env.cluster, ['apply', '-f', '-'], `${ingressClassesYaml}---\n${ingressYaml('front', 'sim')}`))
        .exitCode,
    ).toBe(0);
    await eventually(() =>
      env.cluster.store.get('Ingress', 'default', 'front')?.status?.loadBalancer?.ingress ? true : undefined,
    );
  });

  it('of a class that reports addresses is done once it gets one (exit 0)', async () => {
    const run = await applyWithin('shop', ingressYaml('shop', 'sim'), '60s');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(objectOf(run.stdout, 'Ingress', 'shop')).toMatchObject({ tracked: true, verdict: 'healthy' });
    expect(run.stderr).toMatch(
      /ingress\/shop \(namespace default\): rolled out, load-balancer address 198\.51\.100\.10 in/,
    );
  });

  it('of a class that reports addresses, with none at its deadline, fails and is restored (exit 3)', async () => {
    const stuck = ingressYaml('stuck', 'sim', { 'sim.kguard.dev/load-balancer': 'never' });
    expectRestoredWithoutAddress(await applyWithin('stuck', stuck, '2s'), 'Ingress', 'stuck');
  });

  it('of a class that reports no address is judged applied (exit 0)', async () => {
    const run = await applyWithin('quiet', ingressYaml('docs', 'quiet'), '60s');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(objectOf(run.stdout, 'Ingress', 'docs')).toMatchObject({ verdict: 'healthy' });
    expect(run.stderr).toContain(
      'ingress/docs (namespace default): rolled out, judged applied: no other Ingress of class "quiet" in namespace default has a load-balancer address, so none is waited for',
    );
  });
});
