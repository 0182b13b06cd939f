// A LoadBalancer Service and an Ingress judged by status.loadBalancer.ingress (kinds/network/service.ts,
// kinds/network/ingress.ts, kinds/network/load-balancer.ts): done with an address; with none at the deadline, a
// failure naming the cause and the next step (not a plain timeout); an Ingress whose class reports
// no address anywhere in its namespace is judged applied.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import { judge } from '../../src/kinds/engine.js';
import { NO_OVERRIDES } from '../../src/kinds/overrides.js';
import { rowFor } from '../../src/kinds/table.js';
import type { KubeObject } from '../../src/objects/model.js';
import type { RolloutVerdict } from '../../src/model/verdict.js';
import { expectationOf, snapshotFrom } from '../fakes.js';
import { fixture } from '../fixtures/load.js';

const TIMEOUT_MS = 300_000;
const pod = fixture<Pod>('pods/running-ready');

function look(applied: KubeObject, others: KubeObject[], now: number): RolloutVerdict {
  const rules = rowFor(applied).rules(NO_OVERRIDES)!;
  const snapshot = snapshotFrom({ pods: [pod], others: [applied, ...others] });
  return judge(rules, { object: applied, snapshot }, expectationOf(applied), new Map(), {
    now,
    startedAt: 0,
    timeoutMs: TIMEOUT_MS,
  });
}

function withSpec(object: KubeObject, spec: Record<string, unknown>): KubeObject {
  return { ...object, spec: { ...(object['spec'] as object), ...spec } } as KubeObject;
}

describe('a LoadBalancer Service', () => {
  const pending = fixture<KubeObject>('services/web-lb-pending');
  const ready = fixture<KubeObject>('services/web-lb-ready');

  it('is done once status.loadBalancer.ingress has an address (krane published?, Helm serviceReady)', () => {
    expect(look(ready, [], 1000)).toMatchObject({
      state: 'healthy',
      progress: { summary: 'selects 1 pod, load-balancer address 34.118.22.9' },
    });
  });

  it('waits for the address while its selector matches a pod', () => {
    expect(look(pending, [], 1000)).toMatchObject({
      state: 'progressing',
      waitingFor:
        "waiting for a load-balancer address (status.loadBalancer.ingress) from the cloud provider's service controller",
      progress: { summary: 'selects 1 pod, no load-balancer address yet' },
    });
  });

  it('fails at its deadline without one: the cause and the next step, not a plain timeout', () => {
    const verdict = look(pending, [], TIMEOUT_MS);
    expect(verdict).toMatchObject({
      state: 'failed',
      cause: {
        source: 'condition',
        reason: 'NoLoadBalancerAddress',
        message: 'no load-balancer address after 5m: status.loadBalancer.ingress is still empty',
      },
    });
    expect(verdict.state === 'failed' && verdict.cause.source === 'condition' && verdict.cause.rule.nextStep).toContain(
      'kubectl describe service web -n shop',
    );
  });

  it("with a loadBalancerClass: waits for that class's controller and names it when none answered", () => {
    const classy = withSpec(pending, { loadBalancerClass: 'example.com/internal' });
    expect(look(classy, [], 1000)).toMatchObject({
      waitingFor:
        'waiting for a load-balancer address (status.loadBalancer.ingress) from the controller of loadBalancerClass "example.com/internal"',
    });
    const failed = look(classy, [], TIMEOUT_MS);
    expect(failed.state === 'failed' && failed.cause.source === 'condition' && failed.cause.rule.nextStep).toContain(
      'controller for loadBalancerClass "example.com/internal"',
    );
  });

  it('is not waited for when spec.externalIPs reach it already (Helm serviceReady)', () => {
    expect(look(withSpec(pending, { externalIPs: ['192.0.2.7'] }), [], 1000)).toMatchObject({
      state: 'healthy',
      progress: { summary: 'selects 1 pod' },
    });
  });

  it('without a selector is still watched for its address', () => {
    const { selector: _selector, ...spec } = pending['spec'] as Record<string, unknown>;
    const bare = { ...pending, spec } as KubeObject;
    expect(rowFor(bare).unwatched(bare, NO_OVERRIDES)).toBeUndefined();
    expect(look(bare, [], 1000)).toMatchObject({
      state: 'progressing',
      progress: { summary: 'no load-balancer address yet' },
    });
  });

  it('whose selector matches nothing is waited for by its selector first: at the deadline a timeout on it, not an address failure', () => {
    const typo = withSpec(pending, { selector: { app: 'wbe' } });
    const verdict = look(typo, [], TIMEOUT_MS);
    expect(verdict.state).toBe('timed-out');
  });
});

describe('an Ingress', () => {
  const pending = fixture<KubeObject>('services/ingress-web-pending');
  const ready = fixture<KubeObject>('services/ingress-web-ready');
  const sibling = fixture<KubeObject>('services/ingress-api-ready');

  it('is done with an address (Argo CD health_ingress.go)', () => {
    expect(look(ready, [sibling], 1000)).toMatchObject({
      state: 'healthy',
      progress: { summary: 'load-balancer address 34.118.22.40' },
    });
  });

  it('of a class that reports addresses (another Ingress of it has one) waits for its own', () => {
    expect(look(pending, [sibling], 1000)).toMatchObject({
      state: 'progressing',
      waitingFor:
        'waiting for a load-balancer address (status.loadBalancer.ingress) from the ingress controller of class "nginx" (ingress/api of that class has one)',
    });
  });

  it('of a reporting class fails at its deadline without one', () => {
    const verdict = look(pending, [sibling], TIMEOUT_MS);
    expect(verdict).toMatchObject({
      state: 'failed',
      cause: {
        reason: 'NoLoadBalancerAddress',
        message: 'no load-balancer address after 5m: status.loadBalancer.ingress is still empty',
      },
    });
    expect(verdict.state === 'failed' && verdict.cause.source === 'condition' && verdict.cause.rule.nextStep).toContain(
      'kubectl describe ingress web -n shop',
    );
  });

  it('of a class no Ingress in its namespace has an address from is judged applied (controllers that never write status)', () => {
    const otherClass = withSpec(sibling, { ingressClassName: 'traefik' });
    expect(look(pending, [otherClass], 1000)).toMatchObject({
      state: 'healthy',
      progress: {
        summary:
          'judged applied: no other Ingress of class "nginx" in namespace shop has a load-balancer address, so none is waited for',
      },
    });
    expect(look(pending, [], TIMEOUT_MS).state).toBe('healthy');
  });

  it('names its class by the kubernetes.io/ingress.class annotation when spec.ingressClassName is absent', () => {
    const { ingressClassName: _name, ...spec } = pending['spec'] as Record<string, unknown>;
    const annotated = {
      ...pending,
      metadata: { ...pending.metadata, annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
      spec,
    } as KubeObject;
    expect(look(annotated, [sibling], 1000).state).toBe('progressing');
  });
});
