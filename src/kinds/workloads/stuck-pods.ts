// After a failed StatefulSet is put back, the pods of its failed revision that are not Ready stay:
// with OrderedReady the controller waits for such a pod before it does anything else, so the
// restored template would never roll out (the "forced rollback" of the StatefulSet docs:
// revert the template, then delete the pods that tried to run the bad one). The pure choice of
// pods, then the small executor hook the restore runs right after the put-back.
import type { Clock } from '../../clock.js';
import type { Kubectl } from '../../kubectl/types.js';
import { conditionOf, isControlledBy, REVISION_HASH_LABEL, type Pod, type StatefulSet } from '../../kube.js';
import type { KubeObject } from '../../objects/model.js';

/**
 * The pods to delete: controlled by the set, labelled with the update revision its status named
 * for the applied generation (the failed one), not a revision that was live before the apply, not
 * already being deleted, and not Ready. Ready pods of that revision the controller replaces itself.
 */
export function stuckPods(failed: StatefulSet, before: StatefulSet, pods: readonly Pod[]): Pod[] {
  const status = failed.status ?? {};
  const failedRevision = status.updateRevision;
  // A status about an older generation names no pod of the applied template.
  if (!failedRevision || (status.observedGeneration ?? 0) < (failed.metadata.generation ?? 0)) return [];
  if (failedRevision === before.status?.updateRevision || failedRevision === before.status?.currentRevision) return [];
  return pods.filter(
    (pod) =>
      isControlledBy(pod, failed.metadata.uid) &&
      pod.metadata.labels?.[REVISION_HASH_LABEL] === failedRevision &&
      !pod.metadata.deletionTimestamp &&
      conditionOf(pod, 'Ready')?.status !== 'True',
  );
}

export interface RestoreHookContext {
  /** The object as it was right before the pre-apply copy was written back: status of the failed rollout. */
  failed: KubeObject;
  before: KubeObject;
  restored: KubeObject;
}

export interface RestoreHookDeps {
  kubectl: Pick<Kubectl, 'getObject' | 'workloadSnapshot' | 'deleteExact'>;
  clock: Clock;
  deadlineMs: number;
}

/** Runs after a put-back; returns what it did, one line each, for the report. */
export type RestoreHook = (context: RestoreHookContext, deps: RestoreHookDeps) => Promise<string[]>;

const OBSERVE_POLL_MS = 500;

/**
 * Waits (within the deadline) for the controller to observe the restored generation, so the pods
 * it makes again come from the restored template, then deletes the stuck pods by uid.
 */
export const deleteStuckPods: RestoreHook = async ({ failed, before, restored }, deps) => {
  const namespace = restored.metadata.namespace ?? '';
  const name = restored.metadata.name;
  const started = deps.clock.now();
  for (;;) {
    const live = (await deps.kubectl.getObject('StatefulSet.v1.apps', namespace, name)) as unknown as
      | StatefulSet
      | undefined;
    if (!live || live.metadata.uid !== restored.metadata.uid) return [];
    if ((live.status?.observedGeneration ?? 0) >= (restored.metadata.generation ?? 0)) break;
    if (deps.clock.now() - started >= deps.deadlineMs)
      return [
        `the statefulset controller did not observe the restored template in time; pods of the failed revision were left in place`,
      ];
    await deps.clock.sleep(OBSERVE_POLL_MS);
  }
  const { pods } = await deps.kubectl.workloadSnapshot(namespace, ['pods']);
  const lines: string[] = [];
  const revision = (failed as unknown as StatefulSet).status?.updateRevision;
  for (const pod of stuckPods(failed as unknown as StatefulSet, before as unknown as StatefulSet, pods)) {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.metadata.name)}`;
    const deleted = await deps.kubectl.deleteExact(path, { uid: pod.metadata.uid ?? '' }, deps.deadlineMs);
    lines.push(
      deleted.ok || deleted.notFound
        ? `deleted pod ${pod.metadata.name} (failed revision ${revision}, not Ready) so the controller recreates it from the restored template`
        : `could not delete pod ${pod.metadata.name} of the failed revision ${revision}: ${deleted.message}; delete it by hand so the restored template can roll out`,
    );
  }
  return lines;
};
