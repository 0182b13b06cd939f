// CustomResourceDefinitions under the real kubectl: the kind is served once the CRD is
// Established, objects of it get a status from the simulated controller, and deleting the
// CRD removes the kind.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { kubectl, WIDGET_CRD_YAML, widgetYaml } from './testing/kubectl.js';
import { stopAfterEach } from './testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

/** `kubectl wait` until the Widget CRD is Established, for at most `timeout`. */
const untilEstablished = (on: Cluster, timeout: string) =>
  kubectl(on, ['wait', '--for=condition=established', 'crd/widgets.example.com', `--timeout=${timeout}`]);

describe('custom resources', () => {
  it("serves a CRD's kind once it is Established, and kubectl waits on its objects' conditions", async () => {
    cluster = await startCluster({ timeScale: 20 });
    expect((await kubectl(cluster, ['apply', '-f', '-'], WIDGET_CRD_YAML)).stdout).toBe(
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created',
    );
    const established = await untilEstablished(cluster, '10s');
    expect(established.exitCode, established.stderr).toBe(0);
    const crd = cluster.store.get('CustomResourceDefinition', '', 'widgets.example.com')!;
    expect(crd.status.acceptedNames).toEqual({
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wdg'],
    });

    expect((await kubectl(cluster, ['apply', '-f', '-'], widgetYaml('gear', 1))).stdout).toBe(
      'widget.example.com/gear created',
    );
    const ready = await kubectl(cluster, ['wait', '--for=condition=Ready', 'widget/gear', '--timeout=10s']);
    expect(ready.exitCode, ready.stderr).toBe(0);
    expect(cluster.store.get('Widget', 'default', 'gear')!.status).toMatchObject({
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'True' }],
    });
    expect((await kubectl(cluster, ['get', 'wdg', '-o', 'name'])).stdout).toBe('widget.example.com/gear');

    // A new generation the controller cannot reconcile.
    expect((await kubectl(cluster, ['apply', '-f', '-'], widgetYaml('gear', 2, 'false'))).stdout).toBe(
      'widget.example.com/gear configured',
    );
    const notReady = await kubectl(cluster, ['wait', '--for=condition=Ready=False', 'widget/gear', '--timeout=10s']);
    expect(notReady.exitCode, notReady.stderr).toBe(0);
    expect(cluster.store.get('Widget', 'default', 'gear')!.status).toMatchObject({
      observedGeneration: 2,
      conditions: [{ type: 'Ready', status: 'False', reason: 'ReconcileFailed' }],
    });

    expect((await kubectl(cluster, ['delete', 'crd', 'widgets.example.com'])).exitCode).toBe(0);
    const gone = await kubectl(cluster, ['get', 'widgets']);
    expect(gone.exitCode).toBe(1);
    // kubectl's discovery cache still knows the kind; the server does not any more.
    expect(gone.stderr).toContain('the server could not find the requested resource');
  });

  it('lists the status subresource in discovery; a "silent" object never gets a status, and reconcile-after delays the first one', async () => {
    cluster = await startCluster({ timeScale: 20 });
    expect((await kubectl(cluster, ['apply', '-f', '-'], WIDGET_CRD_YAML)).exitCode).toBe(0);
    expect((await untilEstablished(cluster, '10s')).exitCode).toBe(0);
    const discovery = JSON.parse((await kubectl(cluster, ['get', '--raw', '/apis/example.com/v1'])).stdout) as {
      resources: Array<{ name: string }>;
    };
    expect(discovery.resources.map((resource) => resource.name)).toEqual(
      expect.arrayContaining(['widgets', 'widgets/status']),
    );

    expect(
      (
        await kubectl(
          cluster,
          ['apply', '-f', '-'],
          `${widgetYaml('quiet', 1, 'silent')}---
${widgetYaml('late', 1, 'true', { 'sim.kguard.dev/reconcile-after': '60' })}`,
        )
      ).exitCode,
    ).toBe(0);
    await new Promise((resolve) => cluster!.clock.after(30_000, () => resolve(undefined)));
    expect(cluster.store.get('Widget', 'default', 'late')!.status).toBeUndefined();
    const ready = await kubectl(cluster, ['wait', '--for=condition=Ready', 'widget/late', '--timeout=20s']);
    expect(ready.exitCode, ready.stderr).toBe(0);
    const late = cluster.store.get('Widget', 'default', 'late')!;
    const readySince = Date.parse(
      (late.status.conditions as Array<{ lastTransitionTime: string }>)[0]!.lastTransitionTime,
    );
    // Both timestamps have second precision.
    expect(readySince - Date.parse(late.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(59_000);
    expect(cluster.store.get('Widget', 'default', 'quiet')!.status).toBeUndefined();
  });

  it('serves the kind (discovery and REST) only once the CRD is Established, so a CRD and its object in one apply fail as on a real cluster', async () => {
    // A slow clock: the establishing controller's 100 simulated ms take 2.5 s, so the kubectl calls below land before it.
    cluster = await startCluster({ timeScale: 0.04 });
    // --validate=false: kubectl validates an unknown kind client-side against /openapi/v2, which
    // the simulator does not serve (a real API server does, and the mapping error below follows).
    const both = await kubectl(
      cluster,
      ['apply', '--validate=false', '-f', '-'],
      `${WIDGET_CRD_YAML}---\n${widgetYaml('gear', 1)}`,
    );
    expect(both.exitCode).toBe(1);
    expect(both.stdout).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created');
    expect(both.stderr).toContain(
      'resource mapping not found for name: "gear" namespace: "" from "STDIN": no matches for kind "Widget" in version "example.com/v1"',
    );
    expect(both.stderr).toContain('ensure CRDs are installed first');
    const notYet = await kubectl(cluster, ['get', '--raw', '/apis/example.com/v1']);
    expect(notYet.exitCode).toBe(1);
    expect(cluster.store.get('CustomResourceDefinition', '', 'widgets.example.com')!.status?.conditions ?? []).toEqual(
      [],
    );

    const established = await untilEstablished(cluster, '20s');
    expect(established.exitCode, established.stderr).toBe(0);
    const served = await kubectl(cluster, ['get', '--raw', '/apis/example.com/v1']);
    expect(served.exitCode, served.stderr).toBe(0);
    expect(JSON.parse(served.stdout).resources.map((resource: { name: string }) => resource.name)).toContain('widgets');
    expect((await kubectl(cluster, ['apply', '-f', '-'], widgetYaml('gear', 1))).stdout).toBe(
      'widget.example.com/gear created',
    );
  });

  it('refuses a CRD whose name is not plural.group', async () => {
    cluster = await startCluster({ timeScale: 20 });
    const result = await kubectl(
      cluster,
      ['apply', '-f', '-'],
      WIDGET_CRD_YAML.replace('name: widgets.example.com', 'name: widget.example.com'),
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    );
  });
});
