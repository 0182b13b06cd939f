// Service: applying one is not enough when it selects pods: a selector that matches no pod (a label
// typo) serves nothing, and nothing else in the apply would say so. As krane does
// (Krane::Service#deploy_succeeded?: a Service that needs endpoints succeeds once its selector
// selects some pod, or exposes a workload scaled to 0; else its timeout says "This service does not
// seem to select any pods"), it is done once its selector matches a pod of its namespace (in any
// phase: whether those pods work is their workload's verdict) or the template of a Deployment or
// StatefulSet scaled to 0; and, unlike krane, a selector that still matches nothing after 30 s fails
// the apply (the pods of a workload applied with it exist within seconds, even Pending). Helm's
// --wait (pkg/kube/ready.go serviceReady) waits only for a ClusterIP and a LoadBalancer's address.
// A Service without a selector (endpoints managed by hand) and an ExternalName one have nothing to select.
import type { Pod } from '../kube.js';
import type { ReasonRule } from '../model/findings.js';
import type { Verdict } from '../model/verdict.js';
import type { KubeObject } from '../objects/model.js';
import type { RolloutRules } from './engine.js';

interface Service extends KubeObject {
  spec?: { type?: string; selector?: Record<string, string> };
}

interface Workload extends KubeObject {
  spec?: { replicas?: number; template?: { metadata?: { labels?: Record<string, string> } } };
}

/** How long a selector may match no pod before the apply fails. */
export const NO_POD_GRACE_SECONDS = 30;

const SELECTS_NO_POD: ReasonRule = {
  category: 'config',
  family: 'config',
  policy: { when: 'after', seconds: NO_POD_GRACE_SECONDS },
  cannot: 'reach any pod (its selector matches none)',
  nextStep: "compare its spec.selector with the labels of the pods it should reach (kubectl get pods -n NAMESPACE --show-labels) and fix the one that is wrong",
};

export function planService(applied: Service): Verdict | undefined {
  if (applied.spec?.type === 'ExternalName') return { state: 'applied', detail: 'an ExternalName Service points outside the cluster: it selects no pods' };
  if (Object.keys(applied.spec?.selector ?? {}).length === 0) return { state: 'applied', detail: 'it has no selector (its endpoints are managed by hand): nothing to select' };
  return undefined;
}

export const serviceRules: RolloutRules<Service> = {
  controller: 'endpoint-slice controller',
  observed: () => true,
  newPods: () => [],
  wait(service, snapshot) {
    if (selected(service, snapshot.pods).length > 0 || scaledToZero(service, snapshot.objects)) return undefined;
    return `waiting for its selector ${selectorText(service)} to match a pod in namespace ${service.metadata.namespace ?? ''}`;
  },
  failure(service, snapshot) {
    if (selected(service, snapshot.pods).length > 0 || scaledToZero(service, snapshot.objects)) return undefined;
    const message = `its selector ${selectorText(service)} matches no pod in namespace ${service.metadata.namespace ?? ''}`;
    return { source: 'condition', reason: 'SelectsNoPods', message, rule: SELECTS_NO_POD };
  },
  progress(service, snapshot) {
    const pods = selected(service, snapshot.pods).length;
    return { desired: 0, updated: 0, ready: 0, available: 0, summary: `selects ${pods} pod${pods === 1 ? '' : 's'}` };
  },
};

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

function selected(service: Service, pods: readonly Pod[]): Pod[] {
  const selector = service.spec?.selector ?? {};
  return pods.filter((pod) => !pod.metadata.deletionTimestamp && (pod.metadata.namespace ?? '') === (service.metadata.namespace ?? '') && matches(selector, pod.metadata.labels));
}

/** It exposes a Deployment or StatefulSet scaled to 0 (krane's exposes_zero_replica_workload?): no pods is right. */
function scaledToZero(service: Service, objects: readonly KubeObject[]): boolean {
  const selector = service.spec?.selector ?? {};
  return objects.some((object) => {
    if (object.apiVersion !== 'apps/v1' || (object.kind !== 'Deployment' && object.kind !== 'StatefulSet')) return false;
    const workload = object as Workload;
    return workload.spec?.replicas === 0 && matches(selector, workload.spec.template?.metadata?.labels);
  });
}

function selectorText(service: Service): string {
  return Object.entries(service.spec?.selector ?? {}).map(([key, value]) => `${key}=${value}`).join(',');
}
