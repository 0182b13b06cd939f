// The table of kinds: for each kind, what the tracker reads, whether there is anything to watch,
// the rules the shared engine (engine.ts) judges it by, and any extra step after a restore. A new
// kind is a row here; the tracker, the classifier, the restore and the reporters never branch on a kind.
//
// | kind                  | new pods                               | done (as)                                        | failed by                                  |
// |-----------------------|----------------------------------------|--------------------------------------------------|--------------------------------------------|
// | apps Deployment       | the new ReplicaSet's                   | DeploymentStatusViewer (paused: applied)         | ProgressDeadlineExceeded, ReplicaFailure, pods |
// | apps StatefulSet      | controller-revision-hash = updateRevision | StatefulSetStatusViewer (OnDelete: applied)   | pods                                       |
// | apps DaemonSet        | pod-template-generation = template gen. | DaemonSetStatusViewer (OnDelete: applied)       | pods                                       |
// | apps ReplicaSet       | its own                                | every replica available                          | ReplicaFailure, pods                       |
// | batch Job             | its own                                | Complete (must-succeed "false": a pod runs)      | Failed/FailureTarget, pods that cannot start |
// | batch CronJob         | -                                      | applied (it only schedules Jobs)                 | -                                          |
// | core Pod              | itself                                 | Ready, or Succeeded                              | phase Failed, its own reasons              |
// | core PersistentVolumeClaim | -                                 | Bound                                            | phase Lost                                 |
// | apiextensions CustomResourceDefinition | -                     | Established (kstatus crdConditions)              | NamesAccepted False                        |
// | core Service (with a selector) | -                             | its selector matches a pod (krane)               | matches none for 30 s                      |
// | core Service LoadBalancer | -                                  | status.loadBalancer.ingress (krane, Helm, Argo CD) | no address at its deadline               |
// | networking Ingress    | -                                      | an address, when another Ingress of its class has one (Argo CD); else applied | no address at its deadline |
// | no status (ConfigMap, Service, RBAC...) | -                    | applied                                          | -                                          |
//
// Restore rules (refusals.ts): an immutable ConfigMap or Secret goes back by delete and create; a
// claim's grown storage request cannot go back; a finished Job is never created again, any other
// Job without its old generated selector.
// | anything else (CRs)   | -                                      | kstatus: generation observed, Ready/Available True; a first status waited for (--status-grace) when the kind serves /status | Stalled True |
import { unsettledDaemonSet, unsettledDeployment, unsettledStatefulSet } from './workloads/unsettled.js';
import type { Verdict } from '../model/verdict.js';
import type { Job, KubeEvent } from '../kube.js';
import { groupOf, kindKey, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import { claimPutBack, claimRules } from './claim.js';
import { crdRules } from './crd.js';
import { unwatchedService, serviceRules } from './network/service.js';
import { ingressRules } from './network/ingress.js';
import { daemonSetRules } from './workloads/daemonset.js';
import { unwatchedOnDelete } from './workloads/on-delete.js';
import { deploymentRules, unwatchedDeployment } from './workloads/deployment.js';
import type { RolloutRules } from './engine.js';
import { genericRules } from './health/generic.js';
import { findHealthRule, healthRuleRules } from './health/health-rules.js';
import { BUILT_IN_HEALTH_RULES } from './health/health-table.js';
import type { HealthRule } from '../model/health-rules.js';
import { completedThenDeleted, jobRecreate, jobRules, mayVanishWhenDone, unwatchedJob } from './workloads/job.js';
import { HEALTH_ANNOTATION, HEALTH_RULE_ANNOTATION, type Overrides } from './overrides.js';
import { podRules } from './workloads/pod.js';
import { replicaSetRules } from './workloads/replicaset.js';
import { statefulSetRules } from './workloads/statefulset.js';
import { immutablePutBack, type PutBackRule, type RecreateRule } from './refusals.js';
import { deleteStuckPods, type RestoreHook } from './workloads/stuck-pods.js';

export interface KindRow {
  /** What one look reads in the object's namespace, as kubectl type arguments (one `kubectl get` for all). */
  reads(ref: ObjectRef): readonly string[];
  /** Before any look: an object with nothing to watch gets its verdict now (undefined: watch it). */
  unwatched(applied: KubeObject, overrides: Overrides): Extract<Verdict, { state: 'applied' }> | undefined;
  /** The rules the shared engine judges it by; undefined for a kind that is never watched. */
  rules(overrides: Overrides): RolloutRules<unknown> | undefined;
  /** An extra step right after this kind's pre-apply copy was put back. */
  afterRestore?: RestoreHook;
  /** What that extra step writes, in the object's namespace: checked before the apply (run/apply/before-write/permissions.ts). */
  restoreNeeds?: ReadonlyArray<{ verb: string; group: string; resource: string; why: string }>;
  /** It is judged with the other objects of its own type in its namespace (an Ingress): its watch is not narrowed to its name. */
  readsSiblings?: boolean;
  /** Its last rollout is not complete, from the object alone (what it waits for); undefined when settled (workloads/unsettled.ts). */
  unsettled?(live: KubeObject): string | undefined;
  /** Where its pod spec is (its images are asked of their registries before the apply: images/check.ts). */
  podSpecAt?: readonly string[];
  /**
   * What the API server refuses to write back (refusals.ts): undefined, a plain write of the
   * pre-apply copy over `current` (the object as applied, or as it is now); otherwise delete and
   * create, or no write at all.
   */
  putBack?(before: KubeObject, current: KubeObject): PutBackRule | undefined;
  /** What a restore creates from the pre-apply copy of an object the apply deleted; undefined: the copy as it is. */
  recreate?(before: KubeObject): RecreateRule;
  /**
   * Its disappearance may be its success (a Job the TTL-after-finished controller deleted once it
   * completed): when it is gone, `mayVanish` says whether its events are worth a read, and `judge`
   * says how it ended healthy (undefined: someone else deleted it).
   */
  goneWhenDone?: {
    mayVanish(applied: KubeObject): boolean;
    judge(applied: KubeObject, lastSeen: KubeObject | undefined, events: readonly KubeEvent[]): string | undefined;
  };
}

function watched<T>(
  rules: (overrides: Overrides) => RolloutRules<T>,
  reads: (ref: ObjectRef) => readonly string[],
  unwatched: (applied: T) => Verdict | undefined = () => undefined,
  afterRestore?: RestoreHook,
): KindRow {
  return {
    reads,
    unwatched: (applied) => unwatched(applied as unknown as T) as Extract<Verdict, { state: 'applied' }> | undefined,
    rules: (overrides) => rules(overrides) as unknown as RolloutRules<unknown>,
    afterRestore,
  };
}

const applied = (detail?: string): KindRow => ({
  reads: () => [],
  unwatched: () => ({ state: 'applied', detail }),
  rules: () => undefined,
});

const NO_STATUS = applied();

const TEMPLATE = ['spec', 'template', 'spec'];
/** A row of a kind that runs pods (objects/model.ts runsPods), with where its pod spec is. */
const runningPods = (row: KindRow, podSpecAt: readonly string[] = TEMPLATE): KindRow => ({
  ...row,
  podSpecAt,
});

const ROWS: Readonly<Record<string, KindRow>> = {
  'apps/Deployment': {
    ...runningPods(
      watched(
        () => deploymentRules,
        () => ['deployments.apps', 'replicasets.apps', 'pods'],
        unwatchedDeployment,
      ),
    ),
    unsettled: unsettledDeployment,
  },
  'apps/StatefulSet': {
    ...runningPods(
      watched(
        () => statefulSetRules,
        () => ['statefulsets.apps', 'pods'],
        unwatchedOnDelete,
        deleteStuckPods,
      ),
    ),
    restoreNeeds: [{ verb: 'delete', group: '', resource: 'pods', why: 'to delete the pods of the failed revision' }],
    unsettled: unsettledStatefulSet,
  },
  'apps/DaemonSet': {
    ...runningPods(
      watched(
        () => daemonSetRules,
        () => ['daemonsets.apps', 'pods'],
        unwatchedOnDelete,
      ),
    ),
    unsettled: unsettledDaemonSet,
  },
  'apps/ReplicaSet': runningPods(
    watched(
      () => replicaSetRules,
      () => ['replicasets.apps', 'pods'],
    ),
  ),
  'batch/Job': {
    ...runningPods(watched(jobRules, () => ['jobs.batch', 'pods'], unwatchedJob)),
    goneWhenDone: {
      mayVanish: (applied) => mayVanishWhenDone(applied as unknown as Job),
      judge: (applied, lastSeen, events) =>
        completedThenDeleted(applied as unknown as Job, lastSeen as unknown as Job | undefined, events),
    },
    recreate: jobRecreate,
  },
  'batch/CronJob': runningPods(applied('a CronJob only schedules Jobs: kguard does not wait for its next run'), [
    'spec',
    'jobTemplate',
    'spec',
    'template',
    'spec',
  ]),
  '/Pod': runningPods(
    watched(
      () => podRules,
      () => ['pods'],
    ),
    ['spec'],
  ),
  // A PodTemplate only holds a template (controllers outside the cluster's own read it).
  '/PodTemplate': { ...NO_STATUS, podSpecAt: ['template', 'spec'] },
  '/PersistentVolumeClaim': {
    ...watched(
      () => claimRules,
      () => ['persistentvolumeclaims'],
    ),
    putBack: claimPutBack,
  },
  // Objects with no status to judge: applying them is all there is.
  '/ConfigMap': { ...NO_STATUS, putBack: immutablePutBack },
  '/Secret': { ...NO_STATUS, putBack: immutablePutBack },
  '/ServiceAccount': NO_STATUS,
  '/Service': watched(
    () => serviceRules,
    () => ['services', 'pods', 'deployments.apps', 'statefulsets.apps'],
    unwatchedService,
  ),
  '/Endpoints': NO_STATUS,
  '/LimitRange': NO_STATUS,
  '/ResourceQuota': NO_STATUS,
  '/Namespace': NO_STATUS,
  '/PersistentVolume': NO_STATUS,
  'networking.k8s.io/NetworkPolicy': NO_STATUS,
  'networking.k8s.io/Ingress': {
    ...watched(
      () => ingressRules,
      () => ['ingresses.networking.k8s.io'],
    ),
    readsSiblings: true,
  },
  'networking.k8s.io/IngressClass': NO_STATUS,
  'policy/PodDisruptionBudget': NO_STATUS,
  'autoscaling/HorizontalPodAutoscaler': NO_STATUS,
  'storage.k8s.io/StorageClass': NO_STATUS,
  'scheduling.k8s.io/PriorityClass': NO_STATUS,
  'apiextensions.k8s.io/CustomResourceDefinition': watched(
    () => crdRules,
    () => ['customresourcedefinitions.apiextensions.k8s.io'],
  ),
  'discovery.k8s.io/EndpointSlice': NO_STATUS,
  'coordination.k8s.io/Lease': NO_STATUS,
  'node.k8s.io/RuntimeClass': NO_STATUS,
};

/** Groups whose kinds all have no status worth judging (RBAC, admission webhooks). */
const NO_STATUS_GROUPS = new Set(['rbac.authorization.k8s.io', 'admissionregistration.k8s.io']);

export function rowFor(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>, statusGraceMs?: number): KindRow {
  const group = groupOf(ref.apiVersion);
  const row = ROWS[kindKey(ref)];
  if (row) return row;
  if (NO_STATUS_GROUPS.has(group)) return NO_STATUS;
  return watched(
    () => genericRules(ref.kind, statusGraceMs === undefined ? undefined : statusGraceMs / 1000),
    (target) => [typeArg(target)],
  );
}

/** Whether the kstatus fallback judges this kind (no row of its own, no health rule matches it): only then does its status subresource matter. */
export function judgedByKstatus(
  ref: Pick<ObjectRef, 'apiVersion' | 'kind'>,
  rules: readonly HealthRule[] = BUILT_IN_HEALTH_RULES,
): boolean {
  return !hasOwnRow(ref) && findHealthRule(ref, rules) === undefined;
}

/** A kind with a row of its own (or of a group with no status): any other is judged by a health rule or kstatus. */
export function hasOwnRow(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): boolean {
  return ROWS[kindKey(ref)] !== undefined || NO_STATUS_GROUPS.has(groupOf(ref.apiVersion));
}

/** How long a judged object may take: --readiness-grace, and (for a kind whose API serves a status subresource) --status-grace. */
export interface Graces {
  readinessGraceMs?: number;
  /** Set only when the kind's API serves a status subresource: how long its first status is waited for. */
  statusGraceMs?: number;
}

/**
 * The row that judges one applied object: kguard.dev/health: "ignore" is applied and done; a kind
 * with a row of its own keeps it; any other kind is judged by its health rule (picked by
 * kguard.dev/health-rule, else matched by group and kind; `rules`: --health-rules merged over the
 * built-in table), else by kstatus. `problems` gets what could not be followed.
 */
export function judgingRow(
  ref: Pick<ObjectRef, 'apiVersion' | 'kind'>,
  overrides: Overrides,
  rules: readonly HealthRule[] = BUILT_IN_HEALTH_RULES,
  problems: string[] = [],
  { readinessGraceMs, statusGraceMs }: Graces = {},
): KindRow {
  const row = chooseRow(ref, overrides, rules, problems, statusGraceMs);
  const tolerance = {
    ...(overrides.failuresAllowed !== undefined ? { failuresAllowed: overrides.failuresAllowed } : {}),
    ...(readinessGraceMs !== undefined ? { readinessGraceSeconds: readinessGraceMs / 1000 } : {}),
  };
  if (Object.keys(tolerance).length === 0) return row;
  return {
    ...row,
    rules: (given) => {
      const judged = row.rules(given);
      return judged && { ...judged, ...tolerance };
    },
  };
}

function chooseRow(
  ref: Pick<ObjectRef, 'apiVersion' | 'kind'>,
  overrides: Overrides,
  rules: readonly HealthRule[],
  problems: string[],
  statusGraceMs?: number,
): KindRow {
  if (overrides.ignoreHealth) return applied(`${HEALTH_ANNOTATION}: "ignore": not judged`);
  const group = groupOf(ref.apiVersion);
  const own = ROWS[kindKey(ref)] ?? (NO_STATUS_GROUPS.has(group) ? NO_STATUS : undefined);
  if (own) {
    if (overrides.healthRule !== undefined)
      problems.push(`${HEALTH_RULE_ANNOTATION}: kguard judges ${ref.kind} by its own rules; ignored`);
    return own;
  }
  const rule = findHealthRule(ref, rules, overrides.healthRule);
  if (overrides.healthRule !== undefined && !rule)
    problems.push(
      `${HEALTH_RULE_ANNOTATION}: ${JSON.stringify(overrides.healthRule)} names no health rule; kstatus judges it`,
    );
  const found = rule ?? findHealthRule(ref, rules);
  if (found)
    return watched(
      () => healthRuleRules(found, ref.kind, statusGraceMs === undefined ? undefined : statusGraceMs / 1000),
      (target) => [typeArg(target)],
    );
  return rowFor(ref, statusGraceMs);
}
