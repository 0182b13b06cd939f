// Pod templates compared the way the deployment controller compares them: equal but for the
// pod-template-hash label that the controller adds to each ReplicaSet's copy.
import type { Deployment, PodTemplate, ReplicaSet } from '../../kube.js';
import { isControlledBy } from '../../kube.js';
import { perCopy } from '../../objects/per-copy.js';

const HASH_LABEL = 'pod-template-hash';

/**
 * Each template's canonical form, once per copy (objects/per-copy.ts): a look judges every pending
 * Deployment against every ReplicaSet it owns, several times, and 100 Deployments took 12 s of
 * CPU a run recomputing the same forms (measured, docs/performance.md).
 */
const canonicalOf = perCopy((template: PodTemplate) => canonicalForm(template));

export function canonicalTemplate(template: PodTemplate | undefined): string {
  return template ? canonicalOf(template) : canonicalForm(undefined);
}

function canonicalForm(template: PodTemplate | undefined): string {
  const copy = structuredClone(template ?? {});
  if (copy.metadata?.labels) delete copy.metadata.labels[HASH_LABEL];
  return stableStringify(withoutEmpty(copy) ?? {});
}

/**
 * The controller compares Go structs, where null, {} and [] are all "unset". JSON clients differ:
 * `kubectl rollout undo` sends `creationTimestamp: null` and `resources: {}` back, for instance.
 */
function withoutEmpty(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutEmpty(item) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .map(([key, entry]) => [key, withoutEmpty(entry)] as const)
      .filter(([, entry]) => entry !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
}

/** The ReplicaSet that runs the Deployment's current template, if the controller has made it. */
export function newReplicaSetFor(deployment: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet | undefined {
  const wanted = canonicalTemplate(deployment.spec?.template);
  const owned = replicaSets.filter((replicaSet) => isControlledBy(replicaSet, deployment.metadata.uid));
  const matching = owned.filter((replicaSet) => canonicalTemplate(replicaSet.spec?.template) === wanted);
  // The controller picks the oldest on a (rare) tie; so do we.
  return matching.sort((a, b) =>
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
  )[0];
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${stableStringify(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
