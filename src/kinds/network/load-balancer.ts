// The load-balancer address a Service of type LoadBalancer and an Ingress share: status.loadBalancer
// .ingress (core/v1 LoadBalancerStatus; networking/v1 IngressLoadBalancerStatus), each entry an ip
// or a hostname. Whoever provisions the load balancer writes it: the cloud provider's service
// controller (k8s.io/cloud-provider controllers/service/controller.go, syncLoadBalancerIfNeeded →
// patchStatus), another controller for a Service's spec.loadBalancerClass, the ingress controller
// of an Ingress's class. An empty list at the deadline is a failure, not a slow rollout: krane's
// Service#deploy_succeeded? waits for `published?` (status.loadBalancer.ingress present) and Helm's
// ReadyChecker.serviceReady (pkg/kube/ready.go) for Status.LoadBalancer.Ingress; nothing is
// reachable from outside the cluster through it. Pure.
import { formatDuration } from '../../duration.js';
import type { ReasonRule } from '../../model/findings.js';
import type { ConditionCause } from '../engine.js';

export interface LoadBalancerStatus {
  loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> | null };
}

/** The addresses in status.loadBalancer.ingress (ip, else hostname), in order. */
export function loadBalancerAddresses(status: LoadBalancerStatus | undefined): string[] {
  return (status?.loadBalancer?.ingress ?? [])
    .map((entry) => entry.ip ?? entry.hostname ?? '')
    .filter((address) => address !== '');
}

/** kguard's own reason for it (Kubernetes has none: the status just stays empty). */
export const NO_ADDRESS_REASON = 'NoLoadBalancerAddress';

/** The failure at the deadline: "no load-balancer address after 5m", and what a person does next. */
export function noAddressCause(timeoutMs: number, nextStep: string): ConditionCause {
  const rule: ReasonRule = {
    category: 'stalled',
    family: 'other',
    policy: { when: 'now' },
    cannot: 'be reached from outside the cluster',
    nextStep,
  };
  return {
    source: 'condition',
    reason: NO_ADDRESS_REASON,
    message: `no load-balancer address after ${formatDuration(timeoutMs)}: status.loadBalancer.ingress is still empty`,
    rule,
  };
}
