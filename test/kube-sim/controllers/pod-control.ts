// What the controllers that own pods share, as kube-controller-manager's share
// pkg/controller/controller_utils.go: the controller reference of what they make
// (metav1.NewControllerRef) and RealPodControl's pod create and delete, each recorded as an event
// on the owner ("Created pod: %v", "Error creating: %v", "Deleted pod: %v").

import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject, OwnerReference } from '../types.js';
import type { EventRecorder, EventSource } from './events.js';
import { deletePodGracefully } from './pods.js';
import { admitPod } from './quota.js';

/** metav1.NewControllerRef: `owner` (of group version `apiVersion`) as the controller of what it makes. */
export function controllerRef(owner: KubeObject, apiVersion: string): OwnerReference {
  return {
    apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A controller's pod writes, recorded on the owner as `source`. */
export class PodControl {
  constructor(
    private readonly store: Store,
    private readonly recorder: EventRecorder,
    private readonly source: EventSource,
  ) {}

  /** RealPodControl.CreatePods: the pod past quota admission, created (SuccessfulCreate), or the API's refusal (FailedCreate). */
  create(owner: KubeObject, pod: KubeObject): KubeObject | ApiError {
    try {
      admitPod(this.store, pod);
      const created = this.store.create(pod);
      this.recorder.record(owner, this.source, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      return created;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.recorder.record(owner, this.source, 'Warning', 'FailedCreate', `Error creating: ${error.message}`);
      return error;
    }
  }

  /** RealPodControl.DeletePod: a graceful deletion (SuccessfulDelete). */
  delete(owner: KubeObject, pod: KubeObject, now: Date): void {
    deletePodGracefully(this.store, pod, now);
    this.recorder.record(owner, this.source, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }
}
