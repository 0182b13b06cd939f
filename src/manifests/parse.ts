// How kguard names the objects it tracks. kguard does not parse manifests itself: the set of
// objects an apply holds comes from kubectl (manifests/understand.ts).
import { describeObject, objectKey } from '../objects/model.js';

/** A tracked object: its identity as kubectl resolved it ('' namespace for cluster-scoped). */
export interface WorkloadRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

export function workloadKey(workload: WorkloadRef): string {
  return objectKey(workload);
}

/** How kguard names a workload to a person: deployment/web (namespace shop). */
export function describeWorkload(workload: WorkloadRef): string {
  return describeObject(workload);
}
