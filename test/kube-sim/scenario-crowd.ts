// The other writers and refusals of a crowded real cluster, as scenario knobs. Every one is off
// unless the scenario names it (or, for the HPA, TTL and PV binder, an object the test creates
// asks for it), so a scenario without these keys behaves as before; the exception is the cloud's
// load balancers (`loadBalancers`), on as in a cloud cluster: only LoadBalancer Services and the
// Ingresses of the simulator's own IngressClass get an address. See README.md, "A crowded
// cluster".

/** A controller that puts a finalizer on objects it manages and takes it off when they go. */
export interface FinalizerWriter {
  /** The Kind it watches ('Service'). */
  kind: string;
  /** The finalizer ('service.kubernetes.io/load-balancer-cleanup'). */
  finalizer: string;
  /** Only objects whose fields equal these values, by dotted path ({ 'spec.type': 'LoadBalancer' }); absent: every object of the kind. */
  match?: Record<string, string>;
  /** Its field manager in managedFields (default `kube-controller-manager`). */
  manager?: string;
  /** Simulated ms after a create/update before the finalizer is added (default 500). */
  addAfterMs?: number;
  /** Simulated ms after the deletion starts before the finalizer is removed (default 1000); -1: never (a stuck controller). */
  removeAfterMs?: number;
}

/** What the metrics would make the HPA controller want, since there is no metrics server. */
export interface AutoscalingKnobs {
  /** Desired replicas by HPA, keyed `namespace/name` or `name`; clamped to min/max. An HPA not listed keeps its target's replicas (metrics at target). */
  desiredReplicas: Record<string, number>;
  /** The controller's sync period (kube-controller-manager --horizontal-pod-autoscaler-sync-period, default 15 s). */
  syncPeriodMs: number;
}

export interface CaInjectorKnobs {
  /** The base64 PEM bundle written (default: a fixed test CA). */
  caBundle: string;
  /** Simulated ms after a create/update before the bundle is written (default 500). */
  delayMs: number;
}

/** An APIService registered for an aggregated API server whose backend does not answer, e.g. v1beta1.metrics.k8s.io. */
export interface AggregatedApiService {
  /** `<version>.<group>`. */
  name: string;
  /** The Service behind it, for the Available condition's message (default `<group's first label>-apiserver` in kube-system). */
  service?: { namespace: string; name: string };
}

/** A node autoscaler that adds a node when pods cannot be scheduled for their node selector/affinity. */
export interface NodeAutoscalerKnobs {
  /** Whose events the pods get: cluster-autoscaler's TriggeredScaleUp, or Karpenter's Nominated. */
  flavour: 'cluster-autoscaler' | 'karpenter';
  /** Simulated ms from the scale-up decision until the node has joined and is Ready (default 60 s). */
  joinAfterMs: number;
  /** The node group (cluster-autoscaler) / node pool (Karpenter) name. */
  nodeGroup: string;
  /** The group's max size, printed in TriggeredScaleUp (default 10). */
  maxSize: number;
  /** The nodes it can add, in order: only those whose labels satisfy a pending pod's selector are used. */
  nodes: { name: string; labels: Record<string, string>; cpu?: string; memory?: string }[];
}

/**
 * Who writes status.loadBalancer.ingress (controllers/load-balancers.ts): the cloud provider's
 * service controller for Services of type LoadBalancer without a loadBalancerClass, and the
 * simulator's ingress controller for Ingresses of an IngressClass whose spec.controller is
 * `kube-sim.kguard.dev/ingress-controller`. On by default (a cloud cluster).
 */
export interface LoadBalancerKnobs {
  /** false: no cloud provider (a bare-metal cluster): LoadBalancer Services stay without an address. */
  cloud: boolean;
  /** Simulated ms from a create or update to the address (default 2 s). */
  provisionMs: number;
}

export interface CrowdKnobs {
  finalizers: FinalizerWriter[];
  loadBalancers: LoadBalancerKnobs;
  autoscaling: AutoscalingKnobs;
  /** cainjector: writes caBundle on objects annotated cert-manager.io/inject-ca-from. Off when undefined. */
  caInjector?: CaInjectorKnobs;
  /** Registered and unavailable: discovery lists them Stale (aggregated) or answers 503 for them (legacy). */
  apiServices: AggregatedApiService[];
  /** false: /api and /apis answer only the legacy documents, as a server before 1.27 (or a proxy) does. */
  aggregatedDiscovery: boolean;
  nodeAutoscaler?: NodeAutoscalerKnobs;
}

export interface CrowdInput {
  finalizers?: FinalizerWriter[];
  loadBalancers?: Partial<LoadBalancerKnobs>;
  autoscaling?: Partial<AutoscalingKnobs>;
  caInjector?: Partial<CaInjectorKnobs> | boolean;
  apiServices?: (AggregatedApiService | string)[];
  aggregatedDiscovery?: boolean;
  nodeAutoscaler?: Partial<NodeAutoscalerKnobs>;
}

/** A self-signed test CA, base64 of its PEM, as cainjector writes caBundle. */
export const TEST_CA_BUNDLE = Buffer.from(
  '-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKsimulatedCAMA0GCSqGSIb3DQEBCwUAMA0xCzAJBgNVBAMMAmNh\n-----END CERTIFICATE-----\n',
).toString('base64');

export function resolveCrowd(input: CrowdInput): CrowdKnobs {
  for (const writer of input.finalizers ?? []) {
    if (!writer.kind || !writer.finalizer) throw new Error('scenario.finalizers[]: kind and finalizer are required');
  }
  const injector = input.caInjector;
  const autoscaler = input.nodeAutoscaler;
  if (
    autoscaler?.flavour !== undefined &&
    autoscaler.flavour !== 'cluster-autoscaler' &&
    autoscaler.flavour !== 'karpenter'
  ) {
    throw new Error(`scenario.nodeAutoscaler.flavour: unknown value ${JSON.stringify(autoscaler.flavour)}`);
  }
  return {
    finalizers: [...(input.finalizers ?? [])],
    loadBalancers: { cloud: true, provisionMs: 2_000, ...(input.loadBalancers ?? {}) },
    autoscaling: {
      desiredReplicas: { ...(input.autoscaling?.desiredReplicas ?? {}) },
      syncPeriodMs: input.autoscaling?.syncPeriodMs ?? 15_000,
    },
    caInjector: injector
      ? { caBundle: TEST_CA_BUNDLE, delayMs: 500, ...(injector === true ? {} : injector) }
      : undefined,
    apiServices: (input.apiServices ?? []).map((entry) => (typeof entry === 'string' ? { name: entry } : { ...entry })),
    aggregatedDiscovery: input.aggregatedDiscovery ?? true,
    nodeAutoscaler: autoscaler
      ? {
          flavour: autoscaler.flavour ?? 'cluster-autoscaler',
          joinAfterMs: autoscaler.joinAfterMs ?? 60_000,
          nodeGroup: autoscaler.nodeGroup ?? 'pool-1',
          maxSize: autoscaler.maxSize ?? 10,
          nodes: [...(autoscaler.nodes ?? [])],
        }
      : undefined,
  };
}
