// The names {{ workloads }} and {{ workload }} give a query: the workloads the apply changed (those
// kguard watched to a verdict); when it changed none of them (only a ConfigMap, a Secret, a
// Service), the workloads it holds: the release is then their new configuration, as Flagger
// analyses its target when a ConfigMap or Secret the target uses changes, `{{ target }}` still
// naming the Deployment. A workload it holds is an object of a kind that runs pods (Deployment,
// StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod: kinds/table.ts) or one kguard judges by a
// health rule or kstatus (a custom resource, such as an Argo Rollout). An apply that holds none
// leaves nothing to name: a query that names them is refused before the apply (check.ts). Pure.
import { hasOwnRow } from '../kinds/table.js';
import { runsPods, objectKey, type ObjectRef } from '../objects/model.js';
import { namesWorkloads } from './template.js';

/** The names of the workloads the apply holds (what --prune would delete aside), each once, in order. */
export function heldWorkloads(refs: readonly ObjectRef[], pruned: readonly ObjectRef[]): string[] {
  const deleted = new Set(pruned.map(objectKey));
  const names = refs
    .filter((ref) => !deleted.has(objectKey(ref)) && (runsPods(ref) || !hasOwnRow(ref)))
    .map((ref) => ref.name);
  return [...new Set(names)];
}

/** {{ workloads }}: the changed workloads' names, or when none changed, the held ones. */
export function analysisWorkloads(changed: readonly string[], held: readonly string[]): string[] {
  return changed.length > 0 ? [...changed] : [...held];
}

/** The metrics whose query names {{ workload }} or {{ workloads }}, when the apply holds no workload for them to name. */
export function namelessWorkloadQueries<Check extends { name: string; query: string }>(
  metrics: readonly Check[],
  held: readonly string[],
): Check[] {
  return held.length > 0 ? [] : metrics.filter((check) => namesWorkloads(check.query));
}
