// Which collections to watch for a set of tracked objects: one watch per namespace and type,
// narrowed to the objects being rolled out where the API allows it. Pure.
//   - the object's own type: by name (fieldSelector metadata.name=NAME), unless its row judges it
//     with its siblings (an Ingress: the whole type);
//   - the types it owns (its ReplicaSets, its pods): by its own label selector, the one its
//     controller uses to find them (spec.selector).
// Several objects of one type in a namespace share one watch: names cannot be OR-ed in a field
// selector, so that watch takes the whole type; label selectors `app=a` and `app=b` become
// `app in (a,b)`, anything else the whole type.
import type { CollectionQuery } from '../kubectl/types.js';
import { resourceTypeOf } from '../kubectl/resources.js';
import { groupOf, type ObjectRef } from '../objects/model.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface ScopedReads {
  workload: ObjectRef;
  /** The types its adapter reads (track/adapters.ts), as kubectl type arguments. */
  reads: readonly string[];
  /** Its label selector as a query string, when it has one. */
  selector?: string;
  /** It is judged with the other objects of its own type in its namespace (an Ingress by its class's other Ingresses): its own type is not narrowed to its name. */
  siblings?: boolean;
}

type Narrowing = { by: 'name'; value: string } | { by: 'label'; value: string } | { by: 'all' };

export function watchQueries(targets: readonly ScopedReads[]): CollectionQuery[] {
  const wanted = new Map<string, { namespace: string; type: string; narrowings: Narrowing[] }>();
  for (const target of targets) {
    for (const type of target.reads) {
      const key = `${target.workload.namespace}\u0000${type}`;
      const entry = wanted.get(key) ?? { namespace: target.workload.namespace, type, narrowings: [] };
      entry.narrowings.push(narrowingFor(type, target));
      wanted.set(key, entry);
    }
  }
  return [...wanted.values()].map(({ namespace, type, narrowings }) => ({
    namespace,
    type,
    ...selectorsFor(merged(narrowings)),
  }));
}

function narrowingFor(type: string, target: ScopedReads): Narrowing {
  const resource = resourceTypeOf(type);
  const own =
    resource !== undefined &&
    resource.kind === target.workload.kind &&
    resource.group === groupOf(target.workload.apiVersion);
  if (own && !target.siblings) return { by: 'name', value: target.workload.name };
  if (own) return { by: 'all' };
  return target.selector ? { by: 'label', value: target.selector } : { by: 'all' };
}

function merged(narrowings: readonly Narrowing[]): Narrowing {
  const [first, ...rest] = narrowings;
  if (!first || first.by === 'all') return { by: 'all' };
  if (rest.every((other) => other.by === first.by && other.value === first.value)) return first;
  if (narrowings.every((narrowing) => narrowing.by === 'label')) {
    const pairs = narrowings.map((narrowing) => /^([^=!,\s()]+)=([^=!,\s()]+)$/.exec(narrowing.value));
    const key = pairs[0]?.[1];
    if (pairs.every((pair) => pair !== null && pair[1] === key)) {
      const values = [...new Set(pairs.map((pair) => pair![2]))].sort();
      return { by: 'label', value: `${key} in (${values.join(',')})` };
    }
  }
  return { by: 'all' };
}

function selectorsFor(narrowing: Narrowing): Pick<CollectionQuery, 'labelSelector' | 'fieldSelector'> {
  if (narrowing.by === 'name') return { fieldSelector: `metadata.name=${narrowing.value}` };
  if (narrowing.by === 'label') return { labelSelector: narrowing.value };
  return {};
}

/**
 * A LabelSelector as the `labelSelector` query parameter (apimachinery metav1.LabelSelectorAsSelector):
 * matchLabels as `k=v`, matchExpressions as `k in (a,b)`, `k notin (a,b)`, `k`, `!k`. Undefined
 * for no selector or an empty one (it selects everything) or an operator it does not know.
 */
export function labelSelectorString(selector: LabelSelector | Record<string, string> | undefined): string | undefined {
  if (!selector) return undefined;
  // A Service's (or ReplicationController's) selector is the labels themselves.
  const structured = 'matchLabels' in selector || 'matchExpressions' in selector;
  if (!structured) selector = { matchLabels: selector as Record<string, string> };
  const { matchLabels, matchExpressions } = selector as LabelSelector;
  const parts = Object.entries(matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values = [] } of matchExpressions ?? []) {
    const list = [...values].sort().join(',');
    if (operator === 'In') parts.push(`${key} in (${list})`);
    else if (operator === 'NotIn') parts.push(`${key} notin (${list})`);
    else if (operator === 'Exists') parts.push(key);
    else if (operator === 'DoesNotExist') parts.push(`!${key}`);
    else return undefined;
  }
  return parts.length > 0 ? parts.sort().join(',') : undefined;
}
