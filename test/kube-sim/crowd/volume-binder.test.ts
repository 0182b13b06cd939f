// The PV binder with the real kubectl: a claim whose StorageClass exists is provisioned and bound
// (Immediate at once, WaitForFirstConsumer once a pod using it is scheduled), with the
// annotations, finalizer, events and PV a real cluster shows; deleting the claim releases it.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { waitFor } from '../controllers/harness.js';
import { kubectl } from '../testing/kubectl.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

const classYaml = (
  name: string,
  provisioner: string,
  mode: 'Immediate' | 'WaitForFirstConsumer',
) => `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: ${name}
provisioner: ${provisioner}
reclaimPolicy: Delete
volumeBindingMode: ${mode}
`;

const claimYaml = (name: string, storageClass?: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
${storageClass ? `  storageClassName: ${storageClass}\n` : ''}  resources:
    requests:
      storage: 5Gi
`;

const podYaml = (name: string, claim: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: app
    image: nginx:1.25
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: ${claim}
`;

const claim = (name: string) => cluster!.store.get('PersistentVolumeClaim', 'default', name);
const eventsOf = (name: string) =>
  cluster!.store
    .list('Event', 'default')
    .filter((event) => (event['involvedObject'] as { name: string }).name === name)
    .map((event) => `${event['reason']}: ${event['message']}`);

describe('PV binder', () => {
  it('provisions and binds a claim of an Immediate StorageClass as the real controllers write it', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${classYaml('fast', 'ebs.csi.aws.com', 'Immediate')}---\n${claimYaml('data', 'fast')}---\n${claimYaml('plain')}`,
    );
    await waitFor('the claim Bound', () => claim('data')?.status?.phase === 'Bound');
    const bound = claim('data')!;
    const volumeName = `pvc-${bound.metadata.uid}`;
    expect(bound.spec.volumeName).toBe(volumeName);
    expect(bound.metadata.annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.beta.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
      'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
    });
    expect(bound.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect(bound.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
    const volume = cluster.store.get('PersistentVolume', '', volumeName)!;
    expect(volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('ebs.csi.aws.com');
    expect(volume.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
    expect(volume.spec).toMatchObject({
      storageClassName: 'fast',
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: { name: 'data', namespace: 'default', uid: bound.metadata.uid },
    });
    expect(volume.status.phase).toBe('Bound');
    expect(eventsOf('data')).toEqual([
      "ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
      'Provisioning: External provisioner is provisioning volume for claim "default/data"',
      `ProvisioningSucceeded: Successfully provisioned volume ${volumeName}`,
    ]);
    const table = await kubectl(cluster, ['get', 'pvc', 'data']);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/,
    );
    expect(table.stdout.split('\n')[1]).toMatch(
      new RegExp(`^data\\s+Bound\\s+${volumeName}\\s+5Gi\\s+RWO\\s+fast\\s+<unset>\\s+\\d+s$`),
    );
    const managers = (bound.metadata['managedFields'] as { manager: string; subresource?: string }[]).map(
      (entry) => `${entry.manager}${entry.subresource ? `/${entry.subresource}` : ''}`,
    );
    expect(managers).toEqual(
      expect.arrayContaining([
        'kubectl-client-side-apply',
        'kube-controller-manager',
        'kube-controller-manager/status',
      ]),
    );
    // No class, no binder: the claim stays as applied.
    expect(claim('plain')?.metadata.finalizers).toBeUndefined();
    expect(claim('plain')?.status?.phase).toBe('Pending');
    expect(eventsOf('plain')).toEqual([]);

    // Deleting it: the protection finalizer goes (no pod uses it), then the claim and its Delete volume.
    const deleted = await kubectl(cluster, ['delete', 'pvc', 'data', '--timeout=20s']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(claim('data')).toBeUndefined();
    expect(cluster.store.get('PersistentVolume', '', volumeName)).toBeUndefined();
  });

  it('warns ProvisioningFailed when the class does not exist, and provisions once it is created', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(cluster, ['apply', '-f', '-'], claimYaml('data', 'fast'));
    await waitFor('ProvisioningFailed', () => eventsOf('data').length > 0);
    expect(eventsOf('data')).toEqual(['ProvisioningFailed: storageclass.storage.k8s.io "fast" not found']);
    const described = await kubectl(cluster, [
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=data',
      '-o',
      'jsonpath={.items[0].type} {.items[0].source.component}',
    ]);
    expect(described.stdout).toBe('Warning persistentvolume-controller');
    await kubectl(cluster, ['apply', '-f', '-'], classYaml('fast', 'ebs.csi.aws.com', 'Immediate'));
    await waitFor('the claim Bound', () => claim('data')?.status?.phase === 'Bound');
  });

  it('waits for the first consumer, then provisions on its node', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await kubectl(
      cluster,
      ['apply', '-f', '-'],
      `${classYaml('local', 'rancher.io/local-path', 'WaitForFirstConsumer')}---\n${claimYaml('cache', 'local')}`,
    );
    await waitFor('WaitForFirstConsumer', () => eventsOf('cache').length > 0);
    expect(eventsOf('cache')).toEqual([
      'WaitForFirstConsumer: waiting for first consumer to be created before binding',
    ]);
    expect(claim('cache')?.status?.phase).toBe('Pending');

    await kubectl(cluster, ['apply', '-f', '-'], podYaml('worker', 'cache'));
    await waitFor('the claim Bound', () => claim('cache')?.status?.phase === 'Bound');
    const node = cluster.store.get('Pod', 'default', 'worker')!.spec.nodeName as string;
    expect(claim('cache')!.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(node);
    const volume = cluster.store.get('PersistentVolume', '', claim('cache')!.spec.volumeName)!;
    expect(volume.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]).toEqual({
      key: 'kubernetes.io/hostname',
      operator: 'In',
      values: [node],
    });

    // In use: deleting the claim leaves it Terminating until the pod is gone.
    await kubectl(cluster, ['delete', 'pvc', 'cache', '--wait=false']);
    await waitFor('the claim marked for deletion', () => claim('cache')?.metadata.deletionTimestamp);
    expect(claim('cache')!.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    await kubectl(cluster, ['delete', 'pod', 'worker', '--grace-period=0', '--force']);
    await waitFor('the claim gone', () => claim('cache') === undefined);
  });
});
