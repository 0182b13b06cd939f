// Dynamic provisioning and binding of claims whose StorageClass exists, as three real actors do
// it together (so nothing happens until a test creates a StorageClass; a claim naming a class that
// does not exist only gets the PV controller's Warning ProvisioningFailed
// `storageclass.storage.k8s.io "x" not found`):
// - the PV controller (pkg/controller/volume/persistentvolume/pv_controller.go, as
//   kube-controller-manager / persistentvolume-controller): syncUnboundClaim waits for a pod
//   (WaitForFirstConsumer) or sets the provisioner annotations (setClaimProvisioner) and says
//   ExternalProvisioning; once the volume exists, bindClaimToVolume writes spec.volumeName with
//   pv.kubernetes.io/bind-completed and bound-by-controller, and both get phase Bound;
// - the external provisioner (sig-storage-lib-external-provisioner controller.go, as
//   csi-provisioner): Provisioning, a PV `pvc-<claim uid>` with claimRef and
//   pv.kubernetes.io/provisioned-by, ProvisioningSucceeded; on claim deletion it deletes the
//   volume of a Delete reclaim policy;
// - the PVC protection controller (pkg/controller/volume/pvcprotection): the
//   kubernetes.io/pvc-protection finalizer (admission adds it on a real cluster at create; here
//   it is added when the claim is first seen) is removed once a claim being deleted is used by no pod.
// The scheduler's part of WaitForFirstConsumer (VolumeBinding PreBind) is the
// volume.kubernetes.io/selected-node annotation, written when a pod using the claim is bound.

import type { SimClock } from '../clock.js';
import type { Scenario } from '../scenario.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { ApiWriter } from './api-writer.js';
import type { EventRecorder } from './events.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';

const PV_CONTROLLER = { component: 'persistentvolume-controller' };
const CONTROLLER_MANAGER = 'kube-controller-manager';
const PROVISIONER_MANAGER = 'csi-provisioner';
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_PROTECTION = 'kubernetes.io/pv-protection';
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

export class VolumeBinder extends KindController {
  private readonly writer: ApiWriter;

  constructor(
    store: Store,
    clock: SimClock,
    recorder: EventRecorder,
    private readonly scenario: Scenario,
  ) {
    super(store, clock, recorder, scenario.timing.controllerStepMs, 'persistentvolume-binder', 'PersistentVolumeClaim');
    this.writer = new ApiWriter(store, clock);
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind === 'PersistentVolumeClaim') {
      if (type === 'DELETED') this.reclaim(object);
      else this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
    } else if (object.kind === 'Pod') {
      for (const claim of claimsOf(object)) this.queue.add(namespacedKey(object.metadata.namespace, claim));
    } else if (object.kind === 'PersistentVolume' && type !== 'DELETED' && object.spec?.claimRef) {
      this.queue.add(namespacedKey(object.spec.claimRef.namespace, object.spec.claimRef.name));
    } else if (object.kind === 'StorageClass' && type === 'ADDED') {
      for (const claim of this.store.list('PersistentVolumeClaim'))
        this.queue.add(namespacedKey(claim.metadata.namespace, claim.metadata.name));
    }
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const claim = this.store.get('PersistentVolumeClaim', namespace, name);
    const className: string | undefined = claim?.spec?.storageClassName;
    const storageClass = className ? this.store.get('StorageClass', '', className) : undefined;
    if (!claim || !className) return;
    if (!storageClass) return this.classMissing(claim, className);
    if (claim.metadata.deletionTimestamp) return this.releaseIfUnused(claim);
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION)) {
      this.writer.update(CONTROLLER_MANAGER, {
        ...claim,
        metadata: { ...claim.metadata, finalizers: [...(claim.metadata.finalizers ?? []), PVC_PROTECTION] },
      });
      return;
    }
    if (claim.status?.phase === 'Bound' || claim.spec.volumeName) return;
    const volume = this.store.get('PersistentVolume', '', `pvc-${claim.metadata.uid}`);
    if (volume) return this.bind(claim, volume);
    if (storageClass['volumeBindingMode'] === 'WaitForFirstConsumer' && !claim.metadata.annotations?.[SELECTED_NODE])
      return this.waitForConsumer(claim);
    this.requestProvisioning(claim, storageClass);
  }

  /**
   * provisionClaim → findProvisionablePlugin: the class lister's NotFound, as a Warning on a claim
   * still waiting (a StatefulSet's claims, Bound at once here, are left alone).
   */
  private classMissing(claim: KubeObject, className: string): void {
    if (claim.status?.phase === 'Bound' || claim.spec.volumeName || claim.metadata.deletionTimestamp) return;
    this.recorder.record(
      claim,
      PV_CONTROLLER,
      'Warning',
      'ProvisioningFailed',
      `storageclass.storage.k8s.io "${className}" not found`,
    );
  }

  private waitForConsumer(claim: KubeObject): void {
    const consumer = this.store
      .list('Pod', claim.metadata.namespace)
      .find((pod) => pod.spec?.nodeName && claimsOf(pod).includes(claim.metadata.name));
    if (!consumer) {
      this.recorder.record(
        claim,
        PV_CONTROLLER,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
      return;
    }
    const annotations = { ...(claim.metadata.annotations ?? {}), [SELECTED_NODE]: consumer.spec.nodeName };
    this.writer.update('kube-scheduler', { ...claim, metadata: { ...claim.metadata, annotations } });
  }

  /** setClaimProvisioner + the ExternalProvisioning event, then the external provisioner's work. */
  private requestProvisioning(claim: KubeObject, storageClass: KubeObject): void {
    const provisioner = String(storageClass['provisioner'] ?? '');
    const annotations = claim.metadata.annotations ?? {};
    if (annotations['volume.kubernetes.io/storage-provisioner'] !== provisioner) {
      const marked = {
        ...annotations,
        'volume.beta.kubernetes.io/storage-provisioner': provisioner,
        'volume.kubernetes.io/storage-provisioner': provisioner,
      };
      this.writer.update(CONTROLLER_MANAGER, { ...claim, metadata: { ...claim.metadata, annotations: marked } });
      this.recorder.record(
        claim,
        PV_CONTROLLER,
        'Normal',
        'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
      );
      const source = { component: `${provisioner}_csi-provisioner-0_${claim.metadata.uid?.slice(0, 8) ?? ''}` };
      this.recorder.record(
        claim,
        source,
        'Normal',
        'Provisioning',
        `External provisioner is provisioning volume for claim "${claim.metadata.namespace}/${claim.metadata.name}"`,
      );
      this.clock.after(this.scenario.timing.volumeProvisionMs, () => this.provision(claim, storageClass, source));
    }
  }

  private provision(claim: KubeObject, storageClass: KubeObject, source: { component: string }): void {
    const current = this.store.get('PersistentVolumeClaim', claim.metadata.namespace ?? 'default', claim.metadata.name);
    if (!current || current.metadata.uid !== claim.metadata.uid || current.metadata.deletionTimestamp) return;
    const name = `pvc-${claim.metadata.uid}`;
    if (this.store.get('PersistentVolume', '', name)) return;
    const provisioner = String(storageClass['provisioner'] ?? '');
    const selectedNode = current.metadata.annotations?.[SELECTED_NODE];
    this.writer.create(PROVISIONER_MANAGER, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name,
        annotations: {
          'pv.kubernetes.io/provisioned-by': provisioner,
          'volume.kubernetes.io/provisioner-deletion-secret-name': '',
          'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
        },
        finalizers: [PV_PROTECTION],
      },
      spec: {
        accessModes: current.spec.accessModes ?? ['ReadWriteOnce'],
        capacity: { storage: current.spec.resources?.requests?.storage ?? '1Gi' },
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          name: current.metadata.name,
          namespace: current.metadata.namespace,
          resourceVersion: current.metadata.resourceVersion,
          uid: current.metadata.uid,
        },
        csi: { driver: provisioner, fsType: 'ext4', volumeHandle: `vol-${claim.metadata.uid?.slice(0, 17) ?? ''}` },
        persistentVolumeReclaimPolicy: storageClass['reclaimPolicy'] ?? 'Delete',
        storageClassName: storageClass.metadata.name,
        volumeMode: current.spec.volumeMode ?? 'Filesystem',
        ...(selectedNode
          ? {
              nodeAffinity: {
                required: {
                  nodeSelectorTerms: [
                    { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [selectedNode] }] },
                  ],
                },
              },
            }
          : {}),
      },
    });
    this.recorder.record(current, source, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`);
  }

  /** bindVolumeToClaim + bindClaimToVolume + the two status updates. */
  private bind(claim: KubeObject, volume: KubeObject): void {
    if (volume.status?.phase !== 'Bound') {
      this.writer.updateStatus(CONTROLLER_MANAGER, {
        ...volume,
        status: { phase: 'Bound', lastPhaseTransitionTime: this.clock.nowIso() },
      });
    }
    const annotations = {
      ...(claim.metadata.annotations ?? {}),
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
    };
    const bound = this.writer.update(CONTROLLER_MANAGER, {
      ...claim,
      metadata: { ...claim.metadata, annotations },
      spec: { ...claim.spec, volumeName: volume.metadata.name },
    });
    this.writer.updateStatus(CONTROLLER_MANAGER, {
      ...bound,
      status: { phase: 'Bound', accessModes: volume.spec.accessModes, capacity: volume.spec.capacity },
    });
  }

  /** The PVC protection controller: a claim no pod uses loses its finalizer, and so goes. */
  private releaseIfUnused(claim: KubeObject): void {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION)) return;
    const used = this.store
      .list('Pod', claim.metadata.namespace)
      .some(
        (pod) =>
          claimsOf(pod).includes(claim.metadata.name) &&
          pod.status?.phase !== 'Succeeded' &&
          pod.status?.phase !== 'Failed',
      );
    if (used) return;
    const finalizers = (claim.metadata.finalizers ?? []).filter((finalizer) => finalizer !== PVC_PROTECTION);
    this.writer.update(CONTROLLER_MANAGER, { ...claim, metadata: { ...claim.metadata, finalizers } });
  }

  /** The claim is gone: a Delete volume is deleted by its provisioner, a Retain one is Released. */
  private reclaim(claim: KubeObject): void {
    for (const volume of this.store.list('PersistentVolume')) {
      if (volume.spec?.claimRef?.uid !== claim.metadata.uid) continue;
      if (volume.spec.persistentVolumeReclaimPolicy === 'Delete') {
        this.store.update({ ...volume, metadata: { ...volume.metadata, resourceVersion: undefined, finalizers: [] } });
        this.store.delete('PersistentVolume', '', volume.metadata.name);
      } else {
        this.store.updateStatus({
          ...volume,
          metadata: { ...volume.metadata, resourceVersion: undefined },
          status: { phase: 'Released', lastPhaseTransitionTime: this.clock.nowIso() },
        });
      }
    }
  }
}

function claimsOf(pod: KubeObject): string[] {
  return ((pod.spec?.volumes ?? []) as { persistentVolumeClaim?: { claimName?: string } }[]).flatMap((volume) =>
    volume.persistentVolumeClaim?.claimName ? [volume.persistentVolumeClaim.claimName] : [],
  );
}
