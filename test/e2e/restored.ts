// The restore check every rollback test gets: after kguard says it restored the cluster (exit 3),
// every object a person made is back exactly as it was before the run, field by field, and every
// object the run created is gone. Independent of kguard's own comparison code on purpose.
import type { KubeObject } from '../kube-sim/types.js';
import type { Store } from '../kube-sim/store.js';

/** Kinds the cluster makes for itself; a restore is judged on the objects people apply. */
const MADE_BY_THE_CLUSTER = new Set([
  'Pod',
  'ReplicaSet',
  'ControllerRevision',
  'Event',
  'Endpoints',
  'EndpointSlice',
  'Node',
]);

/**
 * What may differ after a restore, with the reason:
 * - status: the controllers' report, not the object;
 * - uid and creationTimestamp of an object the apply deleted (--prune) and the restore created again;
 * - metadata.resourceVersion and generation: every write moves them, a restore is a write;
 * - the Deployment's deployment.kubernetes.io/revision annotation: the deployment controller
 *   numbers revisions itself and renumbers the restored one (deployment/util/deployment_util.go);
 * - the DaemonSet's deprecated.daemonset.template.generation annotation: the API server counts
 *   every template change there, whatever the client sends (pkg/registry/apps/daemonset/strategy.go),
 *   and putting the old template back is one.
 */
function comparable(object: KubeObject): unknown {
  const { status: _status, ...rest } = object as KubeObject & { status?: unknown };
  // uid and creationTimestamp are checked apart (recreatedObjects): only an object the apply
  // deleted and the restore created again may have new ones.
  const {
    resourceVersion: _rv,
    generation: _generation,
    uid: _uid,
    creationTimestamp: _created,
    ...metadata
  } = object.metadata;
  const annotations = { ...(metadata.annotations ?? {}) };
  delete annotations['deployment.kubernetes.io/revision'];
  delete annotations['deprecated.daemonset.template.generation'];
  return sortKeys({
    ...rest,
    metadata: { ...metadata, annotations: Object.keys(annotations).length > 0 ? annotations : undefined },
  });
}

export type ClusterState = Map<string, KubeObject>;

export function peopleMadeObjects(store: Store): ClusterState {
  const state: ClusterState = new Map();
  for (const object of store.everything()) {
    if (MADE_BY_THE_CLUSTER.has(object.kind)) continue;
    if (object.metadata.ownerReferences?.some((owner) => owner.controller)) continue;
    state.set(`${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`, object);
  }
  return state;
}

/** Every way the cluster now differs from `before`; empty when the restore was exact. */
export function differencesFrom(before: ClusterState, now: ClusterState): string[] {
  const differences: string[] = [];
  for (const [key, object] of before) {
    const live = now.get(key);
    if (!live) {
      differences.push(`${key}: missing after the restore`);
      continue;
    }
    const was = JSON.stringify(comparable(object));
    const is = JSON.stringify(comparable(live));
    if (was !== is) differences.push(`${key}: differs from its pre-apply copy:\n  before: ${was}\n  after:  ${is}`);
  }
  for (const key of now.keys()) if (!before.has(key)) differences.push(`${key}: created by the run and still there`);
  return differences;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([key, entry]) => [key, sortKeys(entry)]),
  );
}

/** Objects that exist before and after under the same name but with a new uid. */
export function recreatedObjects(before: ClusterState, now: ClusterState): string[] {
  return [...before]
    .filter(([key, object]) => now.has(key) && now.get(key)!.metadata.uid !== object.metadata.uid)
    .map(([key]) => key);
}
