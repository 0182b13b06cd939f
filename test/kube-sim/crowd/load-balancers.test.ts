// Who writes status.loadBalancer.ingress (controllers/load-balancers.ts), through the real
// kubectl: the cloud provider's service controller gives a LoadBalancer Service an address (not one
// with a loadBalancerClass, nor one whose cloud refuses); the ingress controller gives one to the
// Ingresses of its IngressClass, and the DefaultIngressClass admission plugin names the default
// class on an Ingress created without one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { waitFor, untilSimTime } from '../controllers/harness.js';
import { kubectl, kubectlPatch } from '../testing/kubectl.js';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ timeScale: 20 });
});
afterAll(async () => {
  await cluster.stop();
});

function service(name: string, extra = ''): string {
  return `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${extra}spec:\n  type: LoadBalancer\n  selector:\n    app: ${name}\n  ports:\n  - port: 80\n`;
}

function ingress(name: string, spec: string, annotations = ''): string {
  return `apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ${name}\n${annotations}spec:\n${spec}  defaultBackend:\n    service:\n      name: web\n      port:\n        number: 80\n`;
}

const addresses = (kind: string, name: string) =>
  cluster.store.get(kind, 'default', name)?.status?.loadBalancer?.ingress as { ip?: string }[] | undefined;
const reasons = (name: string) =>
  cluster.store
    .list('Event', 'default')
    .filter((event) => (event['involvedObject'] as { name?: string }).name === name)
    .map((event) => `${event.type} ${event.reason}: ${event.message}`);

describe('the service controller', () => {
  it('gives a LoadBalancer Service an address, and none to one of a loadBalancerClass or one the cloud refuses', async () => {
    const manifests = [
      service('web'),
      service('classy', '').replace(
        '  type: LoadBalancer\n',
        '  type: LoadBalancer\n  loadBalancerClass: example.com/internal\n',
      ),
      service('refused', '  annotations:\n    sim.kguard.dev/load-balancer: never\n'),
    ].join('---\n');
    expect((await kubectl(cluster, ['apply', '-f', '-'], manifests)).exitCode).toBe(0);
    const [first] = await waitFor('an address for service/web', () => addresses('Service', 'web'));
    expect(first).toEqual({ ip: '203.0.113.10', ipMode: 'VIP' });
    const shown = await kubectl(cluster, ['get', 'service', 'web', '--no-headers']);
    expect(shown.stdout).toMatch(/^web\s+LoadBalancer\s+\S+\s+203\.0\.113\.10\s+80:\d+\/TCP/);
    expect(reasons('web')).toEqual([
      'Normal EnsuringLoadBalancer: Ensuring load balancer',
      'Normal EnsuredLoadBalancer: Ensured load balancer',
    ]);
    await waitFor('SyncLoadBalancerFailed on service/refused', () =>
      reasons('refused').some((reason) =>
        reason.startsWith(
          'Warning SyncLoadBalancerFailed: Error syncing load balancer: failed to ensure load balancer: ',
        ),
      ),
    );
    await untilSimTime(cluster.clock, cluster.clock.now().getTime() + 10_000);
    expect(addresses('Service', 'classy')).toBeUndefined();
    expect(addresses('Service', 'refused')).toBeUndefined();
    expect(reasons('classy')).toEqual([]);
  });

  it('empties the status of a Service that stops being a LoadBalancer (the deleteLoadBalancer path)', async () => {
    await waitFor('an address for service/web', () => addresses('Service', 'web'));
    const patched = await kubectlPatch(cluster, 'service', 'web', 'merge', '{"spec":{"type":"ClusterIP"}}');
    expect(patched.exitCode, patched.stderr).toBe(0);
    await waitFor(
      'service/web without an address',
      () => cluster.store.get('Service', 'default', 'web')?.status?.loadBalancer?.ingress === undefined,
    );
    expect(reasons('web')).toContain('Normal DeletedLoadBalancer: Deleted load balancer');
  });
});

describe('the ingress controller', () => {
  it('serves the Ingresses of its class, the default class filled in on create, and no other class', async () => {
    const classes = [
      'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: sim\n  annotations:\n    ingressclass.kubernetes.io/is-default-class: "true"\nspec:\n  controller: kube-sim.kguard.dev/ingress-controller\n',
      'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: quiet\nspec:\n  controller: example.com/quiet-controller\n',
    ].join('---\n');
    expect((await kubectl(cluster, ['apply', '-f', '-'], classes)).exitCode).toBe(0);
    const ingresses = [
      ingress('defaulted', ''),
      ingress('legacy', '', '  annotations:\n    kubernetes.io/ingress.class: sim\n'),
      ingress('quiet', '  ingressClassName: quiet\n'),
      ingress('refused', '  ingressClassName: sim\n', '  annotations:\n    sim.kguard.dev/load-balancer: never\n'),
    ].join('---\n');
    const applied = await kubectl(cluster, ['apply', '-f', '-'], ingresses);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(cluster.store.get('Ingress', 'default', 'defaulted')?.spec?.ingressClassName).toBe('sim');
    expect(cluster.store.get('Ingress', 'default', 'legacy')?.spec?.ingressClassName).toBeUndefined();
    await waitFor('an address for ingress/defaulted', () => addresses('Ingress', 'defaulted'));
    await waitFor('an address for ingress/legacy', () => addresses('Ingress', 'legacy'));
    expect(addresses('Ingress', 'defaulted')).toEqual([{ ip: '198.51.100.10' }]);
    const shown = await kubectl(cluster, ['get', 'ingress', 'defaulted', 'quiet']);
    expect(shown.stdout).toMatch(
      /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\ndefaulted\s+sim\s+\*\s+198\.51\.100\.10\s+80\s+\S+\nquiet\s+quiet\s+\*\s+80\s+\S+$/,
    );
    expect((await kubectl(cluster, ['get', 'ingressclass', 'sim', '--no-headers'])).stdout).toMatch(
      /^sim\s+kube-sim\.kguard\.dev\/ingress-controller\s+<none>\s+\S+$/,
    );
    await untilSimTime(cluster.clock, cluster.clock.now().getTime() + 20_000);
    expect(addresses('Ingress', 'quiet')).toBeUndefined();
    expect(addresses('Ingress', 'refused')).toBeUndefined();
  });

  it('refuses an Ingress without a class while two IngressClasses say they are the default', async () => {
    const second =
      'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: also-default\n  annotations:\n    ingressclass.kubernetes.io/is-default-class: "true"\nspec:\n  controller: example.com/other\n';
    expect((await kubectl(cluster, ['apply', '-f', '-'], second)).exitCode).toBe(0);
    const refused = await kubectl(cluster, ['apply', '-f', '-'], ingress('orphan', ''));
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('2 default IngressClasses were found, only 1 allowed');
  });
});
