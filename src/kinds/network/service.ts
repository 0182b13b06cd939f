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
//
// A Service of type LoadBalancer is done only once it has an address (status.loadBalancer.ingress),
// as krane (`requires_publishing?` → `published?`), Helm's serviceReady and Argo CD
// (gitops-engine pkg/health/health_service.go: Progressing until the list is non-empty) judge it;
// with none when its deadline comes, it fails (load-balancer.ts). kstatus does not wait for it
// (cli-utils pkg/kstatus/status/core.go serviceConditions only wants a clusterIP). As Helm, a
// LoadBalancer with spec.externalIPs is reachable through them and is not waited for. A
// spec.loadBalancerClass is judged the same way: the cloud provider's service controller leaves
// such a Service to the controller of that class (controllers/service/controller.go
// wantsLoadBalancer: "if LoadBalancerClass is set, the user does not want the default
// cloud-provider Load Balancer"), and Kubernetes has no object that says whether any controller
// serves a class; a class nobody serves never gets an address, so the failure names the class.
import type { Pod } from '../../kube.js';
import type { ReasonRule } from '../../model/findings.js';
import { isDeepStrictEqual } from 'node:util';
import type { Expectation, Verdict } from '../../model/verdict.js';
import type { KubeObject } from '../../objects/model.js';
import type { RolloutRules } from '../engine.js';
import { loadBalancerAddresses, noAddressCause, type LoadBalancerStatus } from './load-balancer.js';

interface Service extends KubeObject {
  spec?: { type?: string; selector?: Record<string, string>; loadBalancerClass?: string; externalIPs?: string[] };
  status?: LoadBalancerStatus;
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
  nextStep:
    'compare its spec.selector with the labels of the pods it should reach (kubectl get pods -n NAMESPACE --show-labels) and fix the one that is wrong',
};

export function unwatchedService(applied: Service): Verdict | undefined {
  if (applied.spec?.type === 'ExternalName')
    return { state: 'applied', detail: 'an ExternalName Service points outside the cluster: it selects no pods' };
  if (!hasSelector(applied) && !wantsAddress(applied))
    return { state: 'applied', detail: 'it has no selector (its endpoints are managed by hand): nothing to select' };
  return undefined;
}

export const serviceRules: RolloutRules<Service> = {
  controller: 'endpoint-slice controller',
  observed: () => true,
  newPods: () => [],
  wait(service, snapshot, expected) {
    if (!selectsSome(service, snapshot) && !brokenBefore(service, snapshot, expected))
      return `waiting for its selector ${selectorText(service)} to match a pod in namespace ${service.metadata.namespace ?? ''}`;
    if (wantsAddress(service) && loadBalancerAddresses(service.status).length === 0)
      return `waiting for a load-balancer address (status.loadBalancer.ingress) from ${provisioner(service)}`;
    return undefined;
  },
  failure(service, snapshot, expected) {
    if (selectsSome(service, snapshot) || brokenBefore(service, snapshot, expected)) return undefined;
    const message = `its selector ${selectorText(service)} matches no pod in namespace ${service.metadata.namespace ?? ''}`;
    return { source: 'condition', reason: 'SelectsNoPods', message, rule: SELECTS_NO_POD };
  },
  note: (service, snapshot, expected) =>
    brokenBefore(service, snapshot, expected) ? brokenBeforeText(service) : undefined,
  atDeadline(service, snapshot, timeoutMs) {
    if (!selectsSome(service, snapshot) || !wantsAddress(service) || loadBalancerAddresses(service.status).length > 0)
      return undefined;
    const name = service.metadata.name;
    const namespace = service.metadata.namespace ?? '';
    const lbClass = service.spec?.loadBalancerClass;
    const nextStep = lbClass
      ? `check that a controller for loadBalancerClass "${lbClass}" runs in the cluster (the cloud provider's service controller leaves such Services alone) and read its events: kubectl describe service ${name} -n ${namespace}`
      : `read the service controller's events (SyncLoadBalancerFailed says why; quota, subnets, annotations): kubectl describe service ${name} -n ${namespace}; a cluster without a cloud load balancer needs another type (NodePort, an Ingress) or a controller such as MetalLB`;
    return noAddressCause(timeoutMs, nextStep);
  },
  progress(service, snapshot) {
    const pods = selected(service, snapshot.pods).length;
    const addresses = loadBalancerAddresses(service.status);
    const parts = [
      ...(hasSelector(service) ? [`selects ${pods} pod${pods === 1 ? '' : 's'}`] : []),
      ...(wantsAddress(service)
        ? [addresses.length > 0 ? `load-balancer address ${addresses.join(', ')}` : 'no load-balancer address yet']
        : []),
    ];
    return { desired: 0, updated: 0, ready: 0, available: 0, summary: parts.join(', ') };
  },
};

/**
 * It selected no pod before the apply either, and the apply did not cause that: kguard judges what
 * the apply changes and says what was already broken. Its selector is the one it had before the
 * apply, no workload of its namespace has a template it selects (no pods are coming), and no
 * object this apply changed had, before it, a pod template the selector matched (the apply did not
 * move pods away from it). A warning on its line, not a reason to undo the release.
 */
export function brokenBefore(
  service: Service,
  snapshot: { pods: readonly Pod[]; objects: readonly KubeObject[] },
  expected: Pick<Expectation, 'before' | 'templatesBefore'> | undefined,
): boolean {
  const before = expected?.before as Service | undefined;
  if (!before || !hasSelector(service) || selectsSome(service, snapshot)) return false;
  const selector = service.spec?.selector ?? {};
  if (!isDeepStrictEqual(before.spec?.selector ?? {}, selector)) return false;
  if ((expected?.templatesBefore ?? []).some((labels) => matches(selector, labels))) return false;
  return !snapshot.objects.some(
    (object) =>
      (object.metadata.namespace ?? '') === (service.metadata.namespace ?? '') &&
      matches(selector, (object as Workload).spec?.template?.metadata?.labels ?? {}) &&
      Object.keys((object as Workload).spec?.template?.metadata?.labels ?? {}).length > 0,
  );
}

/** The warning a Service broken before the apply gets on its line (its verdict stays healthy). */
export function brokenBeforeText(service: Service): string {
  return `warning: its selector ${selectorText(service)} matched no pod before the apply either, and the apply did not change that: not a failure of this apply. Fix it separately: ${SELECTS_NO_POD.nextStep.replace('NAMESPACE', service.metadata.namespace ?? '')}`;
}

function hasSelector(service: Service): boolean {
  return Object.keys(service.spec?.selector ?? {}).length > 0;
}

/** A LoadBalancer that is not reachable through spec.externalIPs already (Helm's serviceReady skips those). */
function wantsAddress(service: Service): boolean {
  return service.spec?.type === 'LoadBalancer' && (service.spec.externalIPs ?? []).length === 0;
}

function provisioner(service: Service): string {
  const lbClass = service.spec?.loadBalancerClass;
  return lbClass ? `the controller of loadBalancerClass "${lbClass}"` : "the cloud provider's service controller";
}

/** Nothing to select (no selector), or its selector matches a pod or exposes a workload scaled to 0. */
function selectsSome(service: Service, snapshot: { pods: readonly Pod[]; objects: readonly KubeObject[] }): boolean {
  return (
    !hasSelector(service) || selected(service, snapshot.pods).length > 0 || scaledToZero(service, snapshot.objects)
  );
}

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

function selected(service: Service, pods: readonly Pod[]): Pod[] {
  const selector = service.spec?.selector ?? {};
  return pods.filter(
    (pod) =>
      !pod.metadata.deletionTimestamp &&
      (pod.metadata.namespace ?? '') === (service.metadata.namespace ?? '') &&
      matches(selector, pod.metadata.labels),
  );
}

/** It exposes a Deployment or StatefulSet scaled to 0 (krane's exposes_zero_replica_workload?): no pods is right. */
function scaledToZero(service: Service, objects: readonly KubeObject[]): boolean {
  const selector = service.spec?.selector ?? {};
  return objects.some((object) => {
    if (object.apiVersion !== 'apps/v1' || (object.kind !== 'Deployment' && object.kind !== 'StatefulSet'))
      return false;
    const workload = object as Workload;
    return workload.spec?.replicas === 0 && matches(selector, workload.spec.template?.metadata?.labels);
  });
}

function selectorText(service: Service): string {
  return Object.entries(service.spec?.selector ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}
