// The table of kind adapters: for each kind, what the tracker reads, whether there is anything to
// watch, the verdict of one poll, and any extra step after a restore. A new kind is a row here;
// the tracker, the classifier and the reporters never branch on a kind.
//
// | kind                  | new pods                               | done (as)                                        | failed by                                  |
// |-----------------------|----------------------------------------|--------------------------------------------------|--------------------------------------------|
// | apps Deployment       | the new ReplicaSet's                   | DeploymentStatusViewer                           | ProgressDeadlineExceeded, ReplicaFailure, pods |
// | apps StatefulSet      | controller-revision-hash = updateRevision | StatefulSetStatusViewer (OnDelete: applied)   | pods                                       |
// | apps DaemonSet        | pod-template-generation = template gen. | DaemonSetStatusViewer (OnDelete: applied)       | pods                                       |
// | apps ReplicaSet       | its own                                | every replica available                          | ReplicaFailure, pods                       |
// | batch Job             | its own                                | Complete (must-succeed "false": a pod runs)      | Failed/FailureTarget, pods that cannot start |
// | batch CronJob         | -                                      | applied (it only schedules Jobs)                 | -                                          |
// | core Pod              | itself                                 | Ready, or Succeeded                              | phase Failed, its own reasons              |
// | core PersistentVolumeClaim | -                                 | Bound                                            | phase Lost                                 |
// | no status (ConfigMap, Service, RBAC...) | -                    | applied                                          | -                                          |
// | anything else (CRs)   | -                                      | kstatus: generation observed, Ready/Available True | Stalled True                            |
import type { Deployment } from '../kube.js';
import { DEPLOYMENT_TYPES, type WorkloadSnapshot } from '../kubectl/client.js';
import { groupOf, typeArg, type KubeObject, type ObjectRef } from '../objects/model.js';
import { deleteStuckPods, type RestoreHook } from '../rollback/stuck-pods.js';
import type { ObjectVerdict } from '../run/result.js';
import { judge, rememberSeen, type KindObservation, type RolloutRules } from './judge.js';
import { claimRules } from './kinds/claim.js';
import { daemonSetRules, planDaemonSet } from './kinds/daemonset.js';
import { genericRules } from './kinds/generic.js';
import { jobRules, planJob } from './kinds/job.js';
import { podRules } from './kinds/pod.js';
import { replicaSetRules } from './kinds/replicaset.js';
import { planStatefulSet, statefulSetRules } from './kinds/statefulset.js';
import type { Overrides } from './overrides.js';
import { rememberFindings, verdictFor, type Expectation, type FirstSeen, type Moment, type Verdict } from './verdict.js';

export interface KindAdapter {
  /** What one poll reads in the object's namespace, as kubectl type arguments (one `kubectl get` for all). */
  reads(ref: ObjectRef): readonly string[];
  /** Before any poll: an object with nothing to watch gets its verdict now (undefined: watch it). */
  plan(applied: KubeObject, overrides: Overrides): ObjectVerdict | undefined;
  /** One poll. Pure. */
  verdict(observation: KindObservation, expected: Expectation, firstSeen: FirstSeen, moment: Moment, overrides: Overrides): Verdict;
  /** What to remember until the next poll: when each finding and failing condition was first seen. */
  remember(firstSeen: FirstSeen, verdict: Verdict, now: number, observation: KindObservation, overrides: Overrides): Map<string, number>;
  /** An extra step right after this kind's pre-apply copy was put back. */
  afterRestore?: RestoreHook;
}

/** Deployment keeps its own verdict (verdict.ts), read through the same interface. */
const DEPLOYMENT: KindAdapter = {
  reads: () => DEPLOYMENT_TYPES,
  plan: () => undefined,
  verdict: ({ object, snapshot, clues }, expected, firstSeen, moment) =>
    verdictFor(
      { deployment: object as unknown as Deployment | undefined, replicaSets: snapshot.replicaSets, pods: snapshot.pods, clues },
      expected,
      firstSeen,
      moment,
    ),
  remember: (firstSeen, verdict, now, { object, snapshot }) =>
    rememberFindings(firstSeen, verdict, now, object as unknown as Deployment | undefined, snapshot.pods),
};

function withRules<T>(
  rules: (overrides: Overrides) => RolloutRules<T>,
  reads: (ref: ObjectRef) => readonly string[],
  plan: (applied: T) => ObjectVerdict | undefined = () => undefined,
  afterRestore?: RestoreHook,
): KindAdapter {
  return {
    reads,
    plan: (applied) => plan(applied as unknown as T),
    verdict: (observation, expected, firstSeen, moment, overrides) => judge(rules(overrides), observation, expected, firstSeen, moment),
    remember: (firstSeen, verdict, now, observation, overrides) => rememberSeen(rules(overrides), firstSeen, verdict, now, observation),
    afterRestore,
  };
}

const applied = (detail?: string): KindAdapter => ({
  reads: () => [],
  plan: () => ({ state: 'applied', detail }),
  verdict: () => {
    throw new Error('an applied-only kind is never polled');
  },
  remember: () => new Map(),
});

const NO_STATUS = applied();

const ADAPTERS: Readonly<Record<string, KindAdapter>> = {
  'apps/Deployment': DEPLOYMENT,
  'apps/StatefulSet': withRules(() => statefulSetRules, () => ['statefulsets.apps', 'pods'], planStatefulSet, deleteStuckPods),
  'apps/DaemonSet': withRules(() => daemonSetRules, () => ['daemonsets.apps', 'pods'], planDaemonSet),
  'apps/ReplicaSet': withRules(() => replicaSetRules, () => ['replicasets.apps', 'pods']),
  'batch/Job': withRules(jobRules, () => ['jobs.batch', 'pods'], planJob),
  'batch/CronJob': applied('a CronJob only schedules Jobs: kguard does not wait for its next run'),
  '/Pod': withRules(() => podRules, () => ['pods']),
  '/PersistentVolumeClaim': withRules(() => claimRules, () => ['persistentvolumeclaims']),
  // Objects with no status to judge: applying them is all there is.
  '/ConfigMap': NO_STATUS,
  '/Secret': NO_STATUS,
  '/ServiceAccount': NO_STATUS,
  '/Service': NO_STATUS,
  '/Endpoints': NO_STATUS,
  '/LimitRange': NO_STATUS,
  '/ResourceQuota': NO_STATUS,
  '/Namespace': NO_STATUS,
  '/PersistentVolume': NO_STATUS,
  'networking.k8s.io/NetworkPolicy': NO_STATUS,
  'networking.k8s.io/Ingress': NO_STATUS,
  'networking.k8s.io/IngressClass': NO_STATUS,
  'policy/PodDisruptionBudget': NO_STATUS,
  'autoscaling/HorizontalPodAutoscaler': NO_STATUS,
  'storage.k8s.io/StorageClass': NO_STATUS,
  'scheduling.k8s.io/PriorityClass': NO_STATUS,
  'apiextensions.k8s.io/CustomResourceDefinition': NO_STATUS,
  'discovery.k8s.io/EndpointSlice': NO_STATUS,
  'coordination.k8s.io/Lease': NO_STATUS,
  'node.k8s.io/RuntimeClass': NO_STATUS,
};

/** Groups whose kinds all have no status worth judging (RBAC, admission webhooks). */
const NO_STATUS_GROUPS = new Set(['rbac.authorization.k8s.io', 'admissionregistration.k8s.io']);

export function adapterFor(ref: Pick<ObjectRef, 'apiVersion' | 'kind'>): KindAdapter {
  const group = groupOf(ref.apiVersion);
  const row = ADAPTERS[`${group}/${ref.kind}`];
  if (row) return row;
  if (NO_STATUS_GROUPS.has(group)) return NO_STATUS;
  return withRules(() => genericRules(ref.kind), (target) => [typeArg(target)]);
}

/** The object a poll read for `ref`, if it is still there. */
export function findObject(snapshot: WorkloadSnapshot, ref: ObjectRef): KubeObject | undefined {
  const group = groupOf(ref.apiVersion);
  const named = (object: { metadata: { name: string } }) => object.metadata.name === ref.name;
  if (group === 'apps' && ref.kind === 'Deployment') return snapshot.deployments.find(named) as unknown as KubeObject | undefined;
  if (group === 'apps' && ref.kind === 'ReplicaSet') return snapshot.replicaSets.find(named) as unknown as KubeObject | undefined;
  if (group === '' && ref.kind === 'Pod') return snapshot.pods.find(named) as unknown as KubeObject | undefined;
  return (snapshot.others ?? []).find((object) => object.kind === ref.kind && groupOf(object.apiVersion) === group && named(object));
}
