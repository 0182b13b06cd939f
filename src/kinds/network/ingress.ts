// Ingress: judged by its load-balancer status (status.loadBalancer.ingress) when its class reports
// one, else applied is done.
//
// Argo CD judges every Ingress by that status (gitops-engine pkg/health/health_ingress.go:
// Healthy once status.loadBalancer.ingress is non-empty, Progressing otherwise), and its FAQ
// ("Why is my application stuck in Progressing state?") warns that some ingress controllers
// (Contour, Traefik) never write it, so such an Ingress stays Progressing forever. krane
// (lib/krane/kubernetes_resource/networking_k8s_io/ingress.rb) and Helm (pkg/kube/ready.go
// judges no Ingress; kstatus has no rule for it) take it as done once it exists. kguard waits
// only where the wait can end: when its class is seen to report addresses, that is, another
// Ingress of the same class in its namespace has one. Its class is spec.ingressClassName, else
// the deprecated kubernetes.io/ingress.class annotation; an Ingress created without either gets
// the default IngressClass's name written in by the API server (the DefaultIngressClass admission
// plugin), so the default class needs no lookup. An Ingress with neither is of "no class" and is
// compared with the others of no class. An Ingress of a reporting class with no address at its
// deadline fails (load-balancer.ts). Pure.
import type { KubeObject } from '../../objects/model.js';
import type { RolloutRules } from '../engine.js';
import { loadBalancerAddresses, noAddressCause, type LoadBalancerStatus } from './load-balancer.js';

interface Ingress extends KubeObject {
  spec?: { ingressClassName?: string };
  status?: LoadBalancerStatus;
}

/** The deprecated class annotation, still read by ingress-nginx and others (networking/v1 IngressSpec.ingressClassName doc). */
export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Its class: spec.ingressClassName, else the legacy annotation; undefined: no class. */
export function ingressClassOf(ingress: Ingress): string | undefined {
  return ingress.spec?.ingressClassName ?? ingress.metadata.annotations?.[LEGACY_CLASS_ANNOTATION];
}

/** Another Ingress of its class in its namespace that has an address: the class reports one. */
export function reportingSibling(ingress: Ingress, objects: readonly KubeObject[]): Ingress | undefined {
  const ownClass = ingressClassOf(ingress);
  return (objects as Ingress[]).find(
    (other) =>
      other.kind === 'Ingress' &&
      other.apiVersion === 'networking.k8s.io/v1' &&
      other.metadata.name !== ingress.metadata.name &&
      (other.metadata.namespace ?? '') === (ingress.metadata.namespace ?? '') &&
      !other.metadata.deletionTimestamp &&
      ingressClassOf(other) === ownClass &&
      loadBalancerAddresses(other.status).length > 0,
  );
}

function classText(ingress: Ingress): string {
  const name = ingressClassOf(ingress);
  return name === undefined ? 'no ingress class' : `class "${name}"`;
}

export const ingressRules: RolloutRules<Ingress> = {
  controller: 'ingress controller',
  observed: () => true,
  newPods: () => [],
  wait(ingress, snapshot) {
    if (loadBalancerAddresses(ingress.status).length > 0) return undefined;
    const sibling = reportingSibling(ingress, snapshot.objects);
    if (!sibling) return undefined;
    return `waiting for a load-balancer address (status.loadBalancer.ingress) from the ingress controller of ${classText(ingress)} (ingress/${sibling.metadata.name} of that class has one)`;
  },
  failure: () => undefined,
  atDeadline(ingress, snapshot, timeoutMs) {
    if (loadBalancerAddresses(ingress.status).length > 0 || !reportingSibling(ingress, snapshot.objects))
      return undefined;
    const name = ingress.metadata.name;
    const namespace = ingress.metadata.namespace ?? '';
    return noAddressCause(
      timeoutMs,
      `read its events and its ingress controller's logs (a rule the controller rejects, a missing TLS Secret or backend Service): kubectl describe ingress ${name} -n ${namespace}`,
    );
  },
  progress(ingress, snapshot) {
    const addresses = loadBalancerAddresses(ingress.status);
    if (addresses.length > 0)
      return {
        desired: 0,
        updated: 0,
        ready: 0,
        available: 0,
        summary: `load-balancer address ${addresses.join(', ')}`,
      };
    const summary = reportingSibling(ingress, snapshot.objects)
      ? 'no load-balancer address yet'
      : `judged applied: no other Ingress of ${classText(ingress)} in namespace ${ingress.metadata.namespace ?? ''} has a load-balancer address, so none is waited for`;
    return { desired: 0, updated: 0, ready: 0, available: 0, summary };
  },
};
