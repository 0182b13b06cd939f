// Changes the real API server refuses, through the real kubectl: a claim's storage request going
// down, the data of an immutable ConfigMap or Secret, a Job created from a copy of a deleted Job
// (its selector names the old uid), a Job's pod template.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { jobYaml, kubectl, kubectlPatch } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const claimYaml = (size: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${size}
`;

describe('refusals of the real API server', () => {
  it("a bound claim's storage request cannot go down to its capacity; an unbound claim's spec is immutable", async () => {
    cluster = await startCluster({ controllers: false });
    await kubectl(cluster, ['apply', '-f', '-'], claimYaml('2Gi'));
    const unbound = await kubectl(cluster, ['apply', '-f', '-'], claimYaml('1Gi'));
    expect(unbound.exitCode).toBe(1);
    expect(unbound.stderr).toContain(
      'The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    );

    const claim = cluster.store.get('PersistentVolumeClaim', 'default', 'data')!;
    cluster.store.updateStatus({
      ...claim,
      status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } },
    });
    const shrunk = await kubectl(cluster, ['apply', '-f', '-'], claimYaml('1Gi'));
    expect(shrunk.exitCode).toBe(1);
    expect(shrunk.stderr).toContain(
      'The PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
    const grown = await kubectl(cluster, ['apply', '-f', '-'], claimYaml('3Gi'));
    expect(grown.exitCode, grown.stderr).toBe(0);
  });

  it('an immutable ConfigMap or Secret keeps its data and stays immutable', async () => {
    cluster = await startCluster({ controllers: false });
    const configMap = (value: string, immutable: boolean) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
immutable: ${immutable}
data:
  mode: ${value}
`;
    await kubectl(cluster, ['apply', '-f', '-'], configMap('fast', true));
    const changed = await kubectl(cluster, ['apply', '-f', '-'], configMap('slow', true));
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr).toContain(
      'The ConfigMap "settings" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    const mutable = await kubectlPatch(cluster, 'configmap', 'settings', 'merge', '{"immutable":false}');
    expect(mutable.exitCode).toBe(1);
    expect(mutable.stderr).toContain(
      'The ConfigMap "settings" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
    );

    await kubectl(cluster, ['create', 'secret', 'generic', 'token', '--from-literal=key=v1']);
    await kubectl(cluster, ['patch', 'secret', 'token', '--type=merge', '-p', '{"immutable":true}']);
    const secret = await kubectlPatch(cluster, 'secret', 'token', 'merge', '{"data":{"key":"djI="}}');
    expect(secret.exitCode).toBe(1);
    expect(secret.stderr).toContain(
      'The Secret "token" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });

  it('refuses a Job created from a copy of a deleted Job: its labels and selector name the old uid', async () => {
    cluster = await startCluster({ controllers: false });
    await kubectl(cluster, ['apply', '-f', '-'], jobYaml('migrate', 'busybox:1.36'));
    const copy = JSON.parse((await kubectl(cluster, ['get', 'job', 'migrate', '-o', 'json'])).stdout) as {
      metadata: Record<string, unknown>;
      status?: unknown;
      spec: { selector?: unknown; template: { metadata: { labels: Record<string, string> } } };
    };
    const oldUid = copy.metadata['uid'] as string;
    for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'generation']) delete copy.metadata[field];
    delete copy.status;
    await kubectl(cluster, ['delete', 'job', 'migrate']);

    const recreated = await kubectl(cluster, ['create', '-f', '-'], JSON.stringify(copy));
    expect(recreated.exitCode).toBe(1);
    const labels = `map[string]string{"batch.kubernetes.io/controller-uid":"${oldUid}", "batch.kubernetes.io/job-name":"migrate", "controller-uid":"${oldUid}", "job-name":"migrate"}`;
    expect(recreated.stderr).toMatch(/^The Job "migrate" is invalid: \n/);
    expect(recreated.stderr).toMatch(
      new RegExp(
        `\\* spec\\.template\\.metadata\\.labels\\[controller-uid\\]: Invalid value: ${escapeRegExp(labels)}: must be '[0-9a-f-]{36}'`,
      ),
    );
    expect(recreated.stderr).toMatch(
      new RegExp(
        `\\* spec\\.template\\.metadata\\.labels\\[batch\\.kubernetes\\.io/controller-uid\\]: Invalid value: ${escapeRegExp(labels)}: must be '[0-9a-f-]{36}'`,
      ),
    );
    expect(recreated.stderr).toContain(
      `* spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"${oldUid}"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: \`selector\` not auto-generated`,
    );
    expect(cluster.store.get('Job', 'default', 'migrate')).toBeUndefined();

    // With manualSelector: true the copy is taken as it is (and would adopt the old uid's pods).
    const manual = structuredClone(copy);
    (manual.spec as Record<string, unknown>)['manualSelector'] = true;
    const adopted = await kubectl(cluster, ['create', '-f', '-'], JSON.stringify(manual));
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(cluster.store.get('Job', 'default', 'migrate')?.spec.selector).toEqual({
      matchLabels: { 'batch.kubernetes.io/controller-uid': oldUid },
    });
    await kubectl(cluster, ['delete', 'job', 'migrate']);

    // Without the generated selector and labels, the same Job is created again.
    const spec = copy.spec;
    delete spec.selector;
    spec.template.metadata.labels = {};
    const clean = await kubectl(cluster, ['create', '-f', '-'], JSON.stringify(copy));
    expect(clean.exitCode, clean.stderr).toBe(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
