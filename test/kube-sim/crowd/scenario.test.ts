// The crowd's scenario knobs: off by default, read from the top level of a scenario object or
// YAML file, and refused when malformed.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultScenario, loadScenario, resolveScenario } from '../scenario.js';
import { TEST_CA_BUNDLE } from '../scenario-crowd.js';

describe('crowd scenario knobs', () => {
  it('are all off by default, but a cloud that provisions load balancers', () => {
    expect(defaultScenario().crowd).toEqual({
      finalizers: [],
      loadBalancers: { cloud: true, provisionMs: 2_000 },
      autoscaling: { desiredReplicas: {}, syncPeriodMs: 15_000 },
      caInjector: undefined,
      apiServices: [],
      aggregatedDiscovery: true,
      nodeAutoscaler: undefined,
    });
  });

  it('are read from the top level of a YAML scenario', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kube-sim-crowd-')), 'crowded.yaml');
    writeFileSync(
      file,
      [
        'autoscaling: { desiredReplicas: { default/web: 5 } }',
        'finalizers: [{ kind: Service, finalizer: service.kubernetes.io/load-balancer-cleanup, match: { spec.type: LoadBalancer } }]',
        'caInjector: true',
        'apiServices: [v1beta1.metrics.k8s.io]',
        'aggregatedDiscovery: false',
        'nodeAutoscaler: { flavour: karpenter, nodes: [{ name: gpu-1, labels: { pool: gpu } }] }',
        'registry: { nginx:1.25: { tokenServer: "503", tokenFailures: 2 } }',
        '',
      ].join('\n'),
    );
    const scenario = loadScenario(file);
    expect(scenario.crowd.autoscaling.desiredReplicas).toEqual({ 'default/web': 5 });
    expect(scenario.crowd.finalizers[0]).toMatchObject({ kind: 'Service', match: { 'spec.type': 'LoadBalancer' } });
    expect(scenario.crowd.caInjector).toEqual({ caBundle: TEST_CA_BUNDLE, delayMs: 500 });
    expect(scenario.crowd.apiServices).toEqual([{ name: 'v1beta1.metrics.k8s.io' }]);
    expect(scenario.crowd.aggregatedDiscovery).toBe(false);
    expect(scenario.crowd.nodeAutoscaler).toMatchObject({
      flavour: 'karpenter',
      joinAfterMs: 60_000,
      nodeGroup: 'pool-1',
      maxSize: 10,
    });
    expect(scenario.registry['nginx:1.25']).toEqual({ tokenServer: '503', tokenFailures: 2 });
    // A resolved scenario resolves to itself (startControllers resolves again).
    expect(resolveScenario(scenario)).toEqual(scenario);
  });

  it('refuses malformed knobs, naming the field', () => {
    expect(() => resolveScenario({ registry: { 'nginx:1.25': { tokenServer: 'timeout' as never } } })).toThrow(
      'scenario.registry["nginx:1.25"].tokenServer: unknown value "timeout"',
    );
    expect(() => resolveScenario({ nodeAutoscaler: { flavour: 'gke' as never } })).toThrow(
      'scenario.nodeAutoscaler.flavour: unknown value "gke"',
    );
    expect(() => resolveScenario({ finalizers: [{ kind: 'Service' } as never] })).toThrow(
      'scenario.finalizers[]: kind and finalizer are required',
    );
  });
});
