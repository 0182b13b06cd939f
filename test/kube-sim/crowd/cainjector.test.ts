// cainjector under the real kubectl: webhook configurations, APIServices and CRDs annotated
// cert-manager.io/inject-ca-from get their caBundle written by manager `cainjector`; a later
// client-side apply of the same manifest leaves it in place.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { waitFor } from '../controllers/harness.js';
import { TEST_CA_BUNDLE } from '../scenario-crowd.js';
import { kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const webhookYaml = (name: string, annotated: boolean) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
${annotated ? '  annotations:\n    cert-manager.io/inject-ca-from: cert-manager/webhook-cert\n' : ''}webhooks:
- name: validate.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service:
      name: webhook
      namespace: cert-manager
      path: /validate
`;

const apiServiceYaml = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.custom.example.com
  annotations:
    cert-manager.io/inject-ca-from: custom/serving-cert
spec:
  group: custom.example.com
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  service:
    name: custom-api
    namespace: custom
`;

describe('cainjector', () => {
  it('writes caBundle into annotated webhook configurations and APIServices as manager cainjector', async () => {
    cluster = await startCluster({ timeScale: 20, scenario: { caInjector: true } });
    const applied = await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${webhookYaml('policy', true)}---\n${webhookYaml('plain', false)}---\n${apiServiceYaml}`,
    );
    expect(applied.exitCode, applied.stderr).toBe(0);
    const webhook = () => cluster!.store.get('ValidatingWebhookConfiguration', '', 'policy')!;
    await waitFor(
      'the caBundle of the webhook',
      () =>
        webhook()['webhooks'] &&
        (webhook()['webhooks'] as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle,
    );
    expect((webhook()['webhooks'] as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle).toBe(
      TEST_CA_BUNDLE,
    );
    const entry = (webhook().metadata['managedFields'] as Record<string, unknown>[]).find(
      (e) => e['manager'] === 'cainjector',
    );
    expect(entry).toMatchObject({
      operation: 'Update',
      apiVersion: 'admissionregistration.k8s.io/v1',
      fieldsV1: { 'f:webhooks': { 'k:{"name":"validate.example.com"}': { 'f:clientConfig': { 'f:caBundle': {} } } } },
    });
    await waitFor(
      'the caBundle of the APIService',
      () => cluster!.store.get('APIService', '', 'v1beta1.custom.example.com')?.spec.caBundle === TEST_CA_BUNDLE,
    );
    const plain = cluster.store.get('ValidatingWebhookConfiguration', '', 'plain')!;
    expect((plain['webhooks'] as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle).toBeUndefined();

    // kubectl shows it, and a client-side apply of the manifest without it leaves it alone.
    const shown = await kubectl(cluster, [
      'get',
      'validatingwebhookconfiguration',
      'policy',
      '-o',
      'jsonpath={.webhooks[0].clientConfig.caBundle}',
    ]);
    expect(shown.stdout).toBe(TEST_CA_BUNDLE);
    const again = await kubectl(cluster, ['apply', '-f', '-'], webhookYaml('policy', true));
    expect(again.stdout).toBe('validatingwebhookconfiguration.admissionregistration.k8s.io/policy unchanged');
    expect((webhook()['webhooks'] as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle).toBe(
      TEST_CA_BUNDLE,
    );
  });

  it('is off unless the scenario asks for it', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(cluster, ['apply', '-f', '-'], webhookYaml('policy', true));
    await new Promise((resolve) => cluster!.clock.after(5_000, () => resolve(undefined)));
    const webhook = cluster.store.get('ValidatingWebhookConfiguration', '', 'policy')!;
    expect(
      (webhook['webhooks'] as { clientConfig: { caBundle?: string } }[])[0]!.clientConfig.caBundle,
    ).toBeUndefined();
  });
});
