// The built-in health rules (model/health-rules.ts) for common custom resources, each from its
// upstream source. --health-rules FILE adds rules and replaces one of the same id. Kinds without
// a rule are judged by kstatus (generic.ts). Data only.
import type { HealthRule } from '../../model/health-rules.js';

const ARGO_CD = 'https://github.com/argoproj/argo-cd/blob/master/resource_customizations';

/** The rule judged by its own code (rollout.ts) while it is the built-in one. */
export const ROLLOUT_RULE_ID = 'argoproj.io/Rollout';

export const BUILT_IN_HEALTH_RULES: readonly HealthRule[] = [
  {
    // Argo Rollouts: judged by code (rollout.ts), as Argo CD's health.lua and Argo Rollouts'
    // GetRolloutPhase decide: observedGeneration (and the workload's), status.phase where written,
    // else the conditions, pause, currentPodHash, replicas, the active selector and the stable
    // ReplicaSet. This entry names the kinds and the source; --health-rules replaces it by id.
    id: ROLLOUT_RULE_ID,
    match: [{ group: 'argoproj.io', kind: 'Rollout' }],
    source: `${ARGO_CD}/argoproj.io/Rollout/health.lua; https://github.com/argoproj/argo-rollouts/blob/master/utils/rollout/rolloututil.go (GetRolloutPhase); https://github.com/argoproj/argo-rollouts/blob/master/pkg/apis/rollouts/v1alpha1/types.go (RolloutPhase)`,
    healthy: [],
  },
  {
    // cert-manager: Issuing True while a certificate is (re)issued. An issuance that fails sets
    // Issuing False with the reason of the CertificateRequest condition that ended it
    // (pkg/controller/certificates/issuing/issuing_controller.go failIssueCertificate: the Denied
    // condition's reason (the approver's), the InvalidRequest one's, or Ready's "Failed"), with
    // "The certificate request has failed to complete and will be retried: …", and backs off
    // before the next try. A success removes Issuing, or, with the ServerSideApply feature gate,
    // sets it False with reason "Issued" (updateOrApplyStatus): so Issuing False is a failure
    // unless its reason is Issued. Ready True once the Secret holds a valid certificate. Argo CD's
    // check (health.lua) looks at Issuing True first, then calls any Ready False Degraded (its
    // degraded_configError.yaml: Ready False ConfigError, no issuance): so Ready False is a failure
    // unless Issuing is True. The readiness and trigger controllers write Ready False and Issuing
    // True in two writes (pkg/controller/certificates/readiness, trigger): 5 s lets the second land.
    // Conditions carry observedGeneration.
    id: 'cert-manager.io/Certificate',
    match: [{ group: 'cert-manager.io', kind: 'Certificate' }],
    source: `https://github.com/cert-manager/cert-manager/blob/master/pkg/controller/certificates/issuing/issuing_controller.go (failIssueCertificate, updateOrApplyStatus); ${ARGO_CD}/cert-manager.io/Certificate/health.lua`,
    failed: [
      { condition: 'Issuing', status: 'False', reasonNot: 'Issued' },
      { condition: 'Ready', status: 'False', unless: { condition: 'Issuing', status: 'True' }, afterSeconds: 5 },
    ],
    progressing: [{ condition: 'Issuing', status: 'True' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // cert-manager Issuers: Ready True once the issuer is set up (ACME account registered, CA
    // Secret read); Ready False with the error otherwise (IssuerConditionReady, types_issuer.go).
    // As Argo CD's Issuer and ClusterIssuer health.lua: Ready False Degraded, Ready True Healthy.
    id: 'cert-manager.io/Issuer',
    match: [
      { group: 'cert-manager.io', kind: 'Issuer' },
      { group: 'cert-manager.io', kind: 'ClusterIssuer' },
    ],
    source: `${ARGO_CD}/cert-manager.io/Issuer/health.lua; ${ARGO_CD}/cert-manager.io/ClusterIssuer/health.lua; https://github.com/cert-manager/cert-manager/blob/master/pkg/apis/certmanager/v1/types_issuer.go (IssuerConditionReady)`,
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
    // Flux toolkit objects follow kstatus (fluxcd/pkg apis/meta/conditions.go: ReadyCondition;
    // StalledCondition and ReconcilingCondition "abnormal-true", present only when True):
    // Reconciling True while it works, Stalled True when it cannot go on, Ready False when the
    // last attempt failed (it retries on its interval), Ready True when the applied generation is
    // reconciled. Argo CD's Kustomization health.lua agrees: Progressing only while Ready is
    // Unknown and Reconciling True, Healthy at Ready True, Degraded otherwise.
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
    source: `https://github.com/fluxcd/pkg/blob/main/apis/meta/conditions.go (Ready, Reconciling, Stalled); ${ARGO_CD}/kustomize.toolkit.fluxcd.io/Kustomization/health.lua (spec.suspend: Suspended); https://fluxcd.io/flux/components/kustomize/kustomizations/#conditions; ${ARGO_CD}/source.toolkit.fluxcd.io/HelmRepository/health.lua (type oci); https://fluxcd.io/flux/components/source/helmrepositories/#helmrepository-status`,
    // spec.suspend: true stops the controller's reconciliation (its status, observedGeneration
    // included, stays as it was): nothing would end a wait. Argo CD says Suspended.
    // A HelmRepository of spec.type "oci" writes no status at all (Flux docs, HelmRepository
    // status; Argo CD's HelmRepository health.lua calls it Healthy): applied is done.
    applied: [
      { field: 'spec.suspend', equals: 'true' },
      { field: 'spec.type', equals: 'oci' },
    ],
    failed: [
      { condition: 'Stalled', status: 'True' },
      { condition: 'Ready', status: 'False' },
    ],
    progressing: [{ condition: 'Reconciling', status: 'True' }],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // Knative: Ready Unknown while it works, False when it failed, with the failing sub-condition
    // (ConfigurationsReady, RoutesReady) saying why. Ready is the happy condition of the living
    // condition set over ConfigurationsReady and RoutesReady (knative/serving
    // pkg/apis/serving/v1/service_lifecycle.go serviceCondSet), so Ready True means both are, as
    // Argo CD's health.lua asks of all three.
    id: 'serving.knative.dev/Service',
    match: [{ group: 'serving.knative.dev', kind: 'Service' }],
    source: `${ARGO_CD}/serving.knative.dev/Service/health.lua; https://github.com/knative/serving/blob/main/pkg/apis/serving/v1/service_lifecycle.go (serviceCondSet); https://github.com/knative/pkg/blob/main/apis/condition_set.go (happy condition, Unknown while in progress)`,
    failed: [
      { condition: 'ConfigurationsReady', status: 'False' },
      { condition: 'RoutesReady', status: 'False' },
      { condition: 'Ready', status: 'False' },
    ],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
  {
    // Upbound providers' ProviderConfig and its usages have no conditions (Argo CD's
    // _.upbound.io/_/health.lua calls them Healthy without a status): applied is done. Matched
    // before the rule for every *.upbound.io kind, which would wait for a Ready that never comes.
    id: 'crossplane.io/ProviderConfig',
    match: ['ProviderConfig', 'ClusterProviderConfig', 'ProviderConfigUsage', 'ClusterProviderConfigUsage'].map(
      (kind) => ({ group: '*.upbound.io', kind }),
    ),
    source: `${ARGO_CD}/_.upbound.io/_/health.lua (has_no_status); ${ARGO_CD}/_.upbound.io/_/testdata/providerconfig_healthy.yaml`,
    healthy: [],
  },
  {
    // Crossplane managed resources (Upbound providers): Synced False reason ReconcileError when the
    // provider cannot reconcile it; Synced False reason ReconcilePaused is the crossplane.io/paused
    // annotation, the user's pause, not a failure: judged applied. Upjet providers also report the last
    // Terraform operation: LastAsyncOperation False (AsyncCreateFailure, AsyncUpdateFailure…) is a
    // failure, as Argo CD's check says Degraded. Ready True (Available) once the external resource
    // exists; Ready False Creating/Unavailable waits.
    id: 'crossplane.io/Managed',
    match: [{ group: '*.upbound.io', kind: '*' }],
    source: `https://github.com/crossplane/crossplane-runtime/blob/main/apis/common/v1/condition.go (TypeSynced, ReasonReconcileError, ReasonReconcilePaused); ${ARGO_CD}/_.upbound.io/_/health.lua (LastAsyncOperation, Synced); https://docs.crossplane.io/latest/managed-resources/managed-resources/#conditions`,
    // The crossplane.io/paused annotation: the reconciler stops and says Synced False
    // ReconcilePaused (crossplane-runtime ReconcilePaused()); nothing would end a wait.
    applied: [{ condition: 'Synced', status: 'False', reason: 'ReconcilePaused' }],
    // Any other Synced False is a failure too, as Argo CD's health.lua says Degraded for every one.
    failed: [
      { condition: 'Synced', status: 'False', reasonNot: 'ReconcilePaused' },
      { condition: 'LastAsyncOperation', status: 'False' },
    ],
    healthy: [
      { condition: 'Synced', status: 'True' },
      { condition: 'Ready', status: 'True' },
    ],
  },
  {
    // Crossplane claims and composite resources (their group is the XRD's own): pick with
    // kguard.dev/health-rule: crossplane.io/Claim, or add a match in --health-rules. Synced False
    // ReconcileError fails; ReconcilePaused (crossplane.io/paused) is judged applied.
    id: 'crossplane.io/Claim',
    match: [],
    source:
      'https://github.com/crossplane/crossplane-runtime/blob/main/apis/common/v1/condition.go (TypeSynced, ReasonReconcileError, ReasonReconcilePaused); https://docs.crossplane.io/latest/composition/claims/ (Synced, Ready)',
    applied: [{ condition: 'Synced', status: 'False', reason: 'ReconcilePaused' }],
    failed: [{ condition: 'Synced', status: 'False', reason: 'ReconcileError' }],
    healthy: [
      { condition: 'Synced', status: 'True' },
      { condition: 'Ready', status: 'True' },
    ],
  },
  {
    // Gateway API (apis/v1/gateway_types.go): Accepted False with any reason but Pending (the
    // controller has not reconciled it yet; NotReconciled is its deprecated name) fails: the
    // named reasons (Invalid, InvalidParameters, UnsupportedAddress, ListenersNotValid) and an
    // implementation's own ("implementation-specific reasons are allowed", e.g. NoControllerFound),
    // as Argo CD's Gateway health.lua fails any Accepted False. ResolvedRefs False fails (Argo CD).
    // Programmed False Invalid, or AddressNotUsable (a static address in the spec cannot be used);
    // Programmed False Pending, NoResources or AddressNotAssigned (IPAM still working) waits. Each
    // listener (status.listeners[].conditions) likewise: Accepted False (not Pending) or
    // ResolvedRefs False fails, Programmed not True waits (Argo CD's listener_degraded.yaml).
    // Programmed True once the data plane serves it. Conditions carry observedGeneration.
    id: 'gateway.networking.k8s.io/Gateway',
    match: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway' }],
    source: `https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/gateway_types.go (GatewayConditionType, GatewayConditionReason, ListenerConditionType); ${ARGO_CD}/gateway.networking.k8s.io/Gateway/health.lua`,
    failed: [
      { condition: 'Accepted', status: 'False', reasonNot: ['Pending', 'NotReconciled'] },
      { condition: 'ResolvedRefs', status: 'False' },
      { condition: 'Programmed', status: 'False', reason: ['Invalid', 'AddressNotUsable'] },
      { condition: 'Accepted', status: 'False', reasonNot: 'Pending', each: 'status.listeners' },
      { condition: 'ResolvedRefs', status: 'False', each: 'status.listeners' },
    ],
    progressing: [{ condition: 'Programmed', status: ['False', 'Unknown'], each: 'status.listeners' }],
    healthy: [
      { condition: 'Accepted', status: 'True' },
      { condition: 'Programmed', status: 'True' },
    ],
  },
  {
    // Routes report per parent (status.parents[].conditions, apis/v1/shared_types.go
    // RouteParentStatus): accepted by every parent that answered for this generation, with every
    // backend reference resolved. A parent entry whose conditions name an older generation is
    // skipped (Argo CD's isParentGenerationObserved; Envoy Gateway keeps one for a removed
    // parentRef). Accepted False with any reason but Pending fails (NotAllowedByListeners,
    // NoMatchingListenerHostname, NoMatchingParent, UnsupportedValue, IncompatibleFilters, or an
    // implementation's own), as Argo CD fails any. ResolvedRefs False fails (RefNotPermitted,
    // InvalidKind, UnsupportedProtocol, BackendNotFound); BackendNotFound after 30 s: the backend
    // Service often comes in the same apply, and the route controller resolves it at its next
    // reconcile (implementations watch Services). Argo CD calls it Degraded at once.
    id: 'gateway.networking.k8s.io/Route',
    match: [
      { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
      { group: 'gateway.networking.k8s.io', kind: 'GRPCRoute' },
    ],
    source: `https://github.com/kubernetes-sigs/gateway-api/blob/main/apis/v1/shared_types.go (RouteConditionType, RouteConditionReason, RouteParentStatus); ${ARGO_CD}/gateway.networking.k8s.io/HTTPRoute/health.lua`,
    failed: [
      { condition: 'Accepted', status: 'False', reasonNot: 'Pending', each: 'status.parents' },
      { condition: 'ResolvedRefs', status: 'False', reasonNot: 'BackendNotFound', each: 'status.parents' },
      {
        condition: 'ResolvedRefs',
        status: 'False',
        reason: 'BackendNotFound',
        each: 'status.parents',
        afterSeconds: 30,
      },
    ],
    // An implementation's own Programmed condition on a parent (Argo CD's progressing.yaml) waits.
    progressing: [{ condition: 'Programmed', status: ['False', 'Unknown'], each: 'status.parents' }],
    healthy: [
      { condition: 'Accepted', status: 'True', each: 'status.parents' },
      { condition: 'ResolvedRefs', status: 'True', each: 'status.parents' },
    ],
  },
  {
    // KEDA (apis/keda/v1alpha1/condition_types.go: Ready, Active, Fallback, Paused, all Unknown
    // at first): Ready False when the ScaledObject cannot work (the controller's
    // ScaledObjectCheckFailed), Fallback True when its scaler fails and fallback replicas are in
    // use; both Degraded in Argo CD's health.lua. Active only says whether it scales now: not a
    // health signal. Paused True with Ready True (Argo CD: Suspended) is healthy: the pause is the
    // user's.
    id: 'keda.sh/ScaledObject',
    match: [{ group: 'keda.sh', kind: 'ScaledObject' }],
    source: `${ARGO_CD}/keda.sh/ScaledObject/health.lua; https://github.com/kedacore/keda/blob/main/apis/keda/v1alpha1/condition_types.go; https://github.com/kedacore/keda/blob/main/controllers/keda/scaledobject_controller.go (ScaledObjectCheckFailed)`,
    failed: [
      { condition: 'Ready', status: 'False' },
      { condition: 'Fallback', status: 'True' },
    ],
    healthy: [{ condition: 'Ready', status: 'True' }],
  },
];
