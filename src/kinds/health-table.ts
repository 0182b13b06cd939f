// The built-in health rules (model/health-rules.ts) for common custom resources, each from its
// upstream source. --health-rules FILE adds rules and replaces one of the same id. Kinds without
// a rule are judged by kstatus (generic.ts). Data only.
import type { HealthRule } from '../model/health-rules.js';

const ARGO_CD = 'https://github.com/argoproj/argo-cd/blob/master/resource_customizations';

export const BUILT_IN_HEALTH_RULES: readonly HealthRule[] = [
  {
    // Argo Rollouts writes status.phase (Healthy, Progressing, Paused, Degraded) and status.message
    // since v1.0, and status.observedGeneration as a string. Argo CD's check also fails an
    // InvalidSpec condition and a Progressing condition of reason RolloutAborted or
    // ProgressDeadlineExceeded. Paused waits for a promotion (Argo CD: Suspended).
    id: 'argoproj.io/Rollout',
    match: [{ group: 'argoproj.io', kind: 'Rollout' }],
    source: `${ARGO_CD}/argoproj.io/Rollout/health.lua; https://github.com/argoproj/argo-rollouts/blob/master/pkg/apis/rollouts/v1alpha1/types.go (RolloutPhase)`,
    failed: [
      { condition: 'InvalidSpec', status: 'True' },
      { condition: 'Progressing', reason: ['RolloutAborted', 'ProgressDeadlineExceeded'] },
      { field: 'status.phase', equals: 'Degraded', message: 'status.message' },
    ],
    progressing: [{ field: 'status.phase', equals: 'Paused', message: 'status.message' }],
    healthy: [{ field: 'status.phase', equals: 'Healthy' }],
  },
  {
    // cert-manager: Issuing True while a certificate is (re)issued; Issuing False reason Failed
    // after a failed issuance (it backs off and retries later); Ready True once the Secret holds a
    // valid certificate. Conditions carry observedGeneration.
    id: 'cert-manager.io/Certificate',
    match: [{ group: 'cert-manager.io', kind: 'Certificate' }],
    source: `${ARGO_CD}/cert-manager.io/Certificate/health.lua; https://cert-manager.io/docs/usage/certificate/ (Issuing, Ready)`,
    failed: [{ condition: 'Issuing', status: 'False', reason: 'Failed' }],
    progressing: [{ condition: 'Issuing', status: 'True' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // cert-manager Issuers: Ready True once the issuer is set up (ACME account registered, CA
    // Secret read); Ready False with the error otherwise.
    id: 'cert-manager.io/Issuer',
    match: [
      { group: 'cert-manager.io', kind: 'Issuer' },
      { group: 'cert-manager.io', kind: 'ClusterIssuer' },
    ],
    source: `${ARGO_CD}/cert-manager.io/Issuer/health.lua; ${ARGO_CD}/cert-manager.io/ClusterIssuer/health.lua`,
    failed: [{ condition: 'Ready', status: 'False' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // External Secrets Operator: Ready True reason SecretSynced; Ready False reason
    // SecretSyncedError (the provider refused, the key is missing) is a failure, as Argo CD's check
    // says Degraded.
    id: 'external-secrets.io/ExternalSecret',
    match: [{ group: 'external-secrets.io', kind: 'ExternalSecret' }],
    source: `${ARGO_CD}/external-secrets.io/ExternalSecret/health.lua; https://github.com/external-secrets/external-secrets/blob/main/apis/externalsecrets/v1beta1/externalsecret_types.go (ConditionReasonSecretSyncedError)`,
    failed: [{ condition: 'Ready', status: 'False' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // Flux toolkit objects follow kstatus: Reconciling True while it works, Stalled True when it
    // cannot go on, Ready False when the last attempt failed (it retries on its interval), Ready
    // True when the applied generation is reconciled.
    id: 'toolkit.fluxcd.io/Flux',
    match: [
      { group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization' },
      { group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease' },
      { group: 'source.toolkit.fluxcd.io', kind: 'GitRepository' },
      { group: 'source.toolkit.fluxcd.io', kind: 'OCIRepository' },
      { group: 'source.toolkit.fluxcd.io', kind: 'HelmRepository' },
      { group: 'source.toolkit.fluxcd.io', kind: 'HelmChart' },
      { group: 'source.toolkit.fluxcd.io', kind: 'Bucket' },
    ],
    source: 'https://github.com/fluxcd/pkg/blob/main/apis/meta/conditions.go (Ready, Reconciling, Stalled); https://fluxcd.io/flux/components/kustomize/kustomizations/#conditions',
    failed: [
      { condition: 'Stalled', status: 'True' },
      { condition: 'Ready', status: 'False' },
    ],
    progressing: [{ condition: 'Reconciling', status: 'True' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // Knative: Ready Unknown while it works, False when it failed, with the failing sub-condition
    // (ConfigurationsReady, RoutesReady) saying why.
    id: 'serving.knative.dev/Service',
    match: [{ group: 'serving.knative.dev', kind: 'Service' }],
    source: `${ARGO_CD}/serving.knative.dev/Service/health.lua; https://github.com/knative/pkg/blob/main/apis/condition_set.go (happy condition, Unknown while in progress)`,
    failed: [
      { condition: 'ConfigurationsReady', status: 'False' },
      { condition: 'RoutesReady', status: 'False' },
      { condition: 'Ready', status: 'False' },
    ],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // Crossplane managed resources (Upbound providers): Synced False (ReconcileError) when the
    // provider cannot reconcile it; Ready True (Available) once the external resource exists.
    id: 'crossplane.io/Managed',
    match: [{ group: '*.upbound.io', kind: '*' }],
    source: 'https://docs.crossplane.io/latest/managed-resources/managed-resources/#conditions; https://github.com/crossplane/crossplane-runtime/blob/main/apis/common/v1/condition.go',
    failed: [{ condition: 'Synced', status: 'False' }],
    healthy: [
      { condition: 'Synced', status: 'True' },
      { condition: 'Ready', status: 'True' },
    ],
  },
  {
    // Crossplane claims and composite resources (their group is the XRD's own): pick with
    // kguard.dev/health-rule: crossplane.io/Claim, or add a match in --health-rules.
    id: 'crossplane.io/Claim',
    match: [],
    source: 'https://docs.crossplane.io/latest/composition/claims/ (Synced, Ready); https://github.com/crossplane/crossplane-runtime/blob/main/apis/common/v1/condition.go',
    failed: [{ condition: 'Synced', status: 'False' }],
    healthy: [
      { condition: 'Synced', status: 'True' },
      { condition: 'Ready', status: 'True' },
    ],
  },
  {
    // Gateway API: Accepted False with a configuration reason is the user's to fix; Programmed
    // True once the data plane serves it. Conditions carry observedGeneration.
    id: 'gateway.networking.k8s.io/Gateway',
    match: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway' }],
    source: 'https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/gateway_types.go (GatewayConditionType, GatewayConditionReason)',
    failed: [
      { condition: 'Accepted', status: 'False', reason: ['Invalid', 'InvalidParameters', 'UnsupportedAddress', 'ListenersNotValid'] },
      { condition: 'Programmed', status: 'False', reason: 'Invalid' },
    ],
    healthy: [
      { condition: 'Accepted', status: 'True' },
      { condition: 'Programmed', status: 'True' },
    ],
  },
  {
    // Routes report per parent (status.parents[].conditions): accepted by every parent with every
    // backend reference resolved.
    id: 'gateway.networking.k8s.io/Route',
    match: [
      { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
      { group: 'gateway.networking.k8s.io', kind: 'GRPCRoute' },
    ],
    source: 'https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/shared_types.go (RouteConditionType, RouteConditionReason, RouteParentStatus)',
    failed: [
      { condition: 'Accepted', status: 'False', reason: ['NotAllowedByListeners', 'NoMatchingListenerHostname', 'NoMatchingParent', 'UnsupportedValue'], each: 'status.parents' },
      { condition: 'ResolvedRefs', status: 'False', reason: ['RefNotPermitted', 'InvalidKind', 'BackendNotFound', 'UnsupportedProtocol'], each: 'status.parents' },
    ],
    healthy: [
      { condition: 'Accepted', status: 'True', each: 'status.parents' },
      { condition: 'ResolvedRefs', status: 'True', each: 'status.parents' },
    ],
  },
  {
    // KEDA: Ready False when the ScaledObject cannot work (ScaledObjectCheckFailed), Fallback True
    // when its scaler fails and fallback replicas are in use. Active only says whether it scales
    // now: not a health signal.
    id: 'keda.sh/ScaledObject',
    match: [{ group: 'keda.sh', kind: 'ScaledObject' }],
    source: `${ARGO_CD}/keda.sh/ScaledObject/health.lua; https://keda.sh/docs/latest/reference/scaledobject-spec/`,
    failed: [
      { condition: 'Ready', status: 'False' },
      { condition: 'Fallback', status: 'True' },
    ],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
];
