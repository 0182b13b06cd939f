// Before the apply: may this user do what a restore of this apply would do? The restore's own plan
// (restore/plan.ts), of the whole apply as if it failed as a unit, from the pre-apply copies and the server dry
// run, names its writes: a put-back is an update (and its field owners a second one), an object
// the apply creates is deleted, one it prunes is created again, an immutable ConfigMap is deleted
// and created, a StatefulSet's stuck pods are deleted. One SelfSubjectAccessReview per verb,
// resource and namespace, all in one kubectl process; a verb the user lacks refuses the run before
// anything is applied (exit 2), naming the rule to add, unless --rollback none.
import { KubectlError } from '../../../errors.js';
import { rowFor } from '../../../kinds/table.js';
import type { AccessQuestion, ApiResource } from '../../../kubectl/types.js';
import type { ApplyOptions } from '../../../model/options.js';
import { changeOf } from '../../../objects/compare.js';
import {
  describeObject,
  groupOf,
  kindKey,
  objectKey,
  refOf,
  type KubeObject,
  type ObjectRef,
} from '../../../objects/model.js';
import { planWholeRestore, type PlannedObject } from '../../../restore/plan.js';
import type { RestoreStep } from '../../../restore/steps.js';
import type { Deps } from '../deps.js';
import type { Understood } from '../understand.js';

/** One verb a restore needs, on what, and why (for the message). */
export interface NeededAccess extends AccessQuestion {
  why: string;
}

/** What a restore of this apply would do, verb by verb (pure; deduplicated, first reason kept). */
export function restoreAccess(
  understood: Pick<Understood, 'refs' | 'pruned' | 'server' | 'current'>,
  options: Pick<ApplyOptions, 'keepCreated'>,
  resources: ReadonlyMap<string, ApiResource>,
): NeededAccess[] {
  const wouldBe = new Map<string, KubeObject>(
    understood.server.ok ? understood.server.objects.map((object) => [objectKey(refOf(object)), object]) : [],
  );
  const prunedCopies = new Map<string, KubeObject>(
    understood.server.ok ? understood.server.pruned.map((object) => [objectKey(refOf(object)), object]) : [],
  );
  const planned: PlannedObject[] = understood.refs.map((ref) => {
    const before = understood.current.get(objectKey(ref));
    const after = wouldBe.get(objectKey(ref));
    if (!before) return { ref, change: { change: 'created', after: after ?? stub(ref) } };
    // The dry run did not answer for it (its namespace is new): it may change, and would be put back.
    if (!after) return { ref, change: { change: 'configured', before, after: before, paths: [] } };
    return { ref, change: changeOf(before, after) };
  });
  for (const ref of understood.pruned) {
    const before = understood.current.get(objectKey(ref)) ?? prunedCopies.get(objectKey(ref));
    if (before) planned.push({ ref, change: { change: 'deleted', before } });
  }
  const needed = new Map<string, NeededAccess>();
  for (const step of planWholeRestore(planned, { keepCreated: options.keepCreated })) {
    for (const { verb, group, resource, namespace, why } of accessOf(step, resources)) {
      const key = `${verb} ${group}/${resource} ${namespace}`;
      if (!needed.has(key)) needed.set(key, { verb, group, resource, namespace, why });
    }
  }
  return [...needed.values()];
}

/** The verbs one restore step sends (restore.ts), on its own resource and on what its kind's extra step touches. */
function accessOf(step: RestoreStep, resources: ReadonlyMap<string, ApiResource>): NeededAccess[] {
  const group = groupOf(step.ref.apiVersion);
  const resource = resources.get(kindKey(step.ref));
  // A kind the apply itself defines (a CRD in the same apply) is not served yet: nothing to ask.
  if (!resource) return [];
  const on = (verb: string, why: string): NeededAccess => ({
    verb,
    group,
    resource: resource.name,
    namespace: resource.namespaced ? step.ref.namespace : '',
    why,
  });
  const name = describeObject(step.ref);
  switch (step.action) {
    case 'put-back': {
      const extra = (rowFor(step.ref).restoreNeeds ?? []).map((need) => ({
        ...need,
        namespace: step.ref.namespace,
        why: `${need.why} of ${name}`,
      }));
      return [on('update', `to put back ${name}`), ...extra];
    }
    case 'replace':
      return [
        on('delete', `to put back ${name} by deleting it and creating its pre-apply copy`),
        ...(step.copy
          ? [
              on('create', `to create ${name} again from its pre-apply copy`),
              on('update', `to put back the field owners of ${name}`),
            ]
          : []),
      ];
    case 'recreate':
      return [
        on('create', `to create ${name} again, which this apply deletes`),
        on('update', `to put back the field owners of ${name}`),
      ];
    case 'delete':
      return [on('delete', `to delete ${name}, which this apply creates`)];
    case 'keep':
      return [];
  }
}

function stub(ref: ObjectRef): KubeObject {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
  };
}

/**
 * Asks the API server (one kubectl process) whether this user may do all of it; refuses the run,
 * naming each missing rule, when not. Nothing has been applied when this throws.
 */
export async function checkPermissions(
  understood: Understood,
  options: Pick<ApplyOptions, 'keepCreated'>,
  deps: Pick<Deps, 'kubectl'>,
): Promise<void> {
  // Each group version's discovery is read once per run (kubectl/discovery.ts): checkRestorable read them already.
  const versions = [...new Set([...understood.refs, ...understood.pruned].map((ref) => ref.apiVersion))];
  const found = await Promise.all(
    versions.map((version) => deps.kubectl.apiResources([version]).catch(() => new Map<string, ApiResource>())),
  );
  const resources = new Map(found.flatMap((map) => [...map]));
  const needed = restoreAccess(understood, options, resources);
  if (needed.length === 0) return;
  const answers = await deps.kubectl.reviewAccess(needed).catch((error: unknown) => {
    throw new KubectlError(
      `kguard cannot tell whether it may restore this apply: ${error instanceof Error ? error.message : String(error)}. ` +
        'Next: check that the API server answers and run kguard again, or run with --rollback none to apply without a restore; nothing was applied.',
    );
  });
  const denied = needed.filter((_question, index) => answers[index]?.allowed !== true);
  if (denied.length > 0) throw new KubectlError(deniedMessage(denied));
}

/** What is missing, and the rules that would grant it: one line per Role (namespace) or ClusterRole. */
export function deniedMessage(denied: readonly NeededAccess[]): string {
  const missing = denied.map(
    ({ verb, group, resource, namespace, why }) =>
      `${verb} ${qualified(group, resource)}${namespace ? ` in namespace ${namespace}` : ''} (${why})`,
  );
  const rules = new Map<string, { namespace: string; group: string; resource: string; verbs: string[] }>();
  for (const { verb, group, resource, namespace } of denied) {
    const key = `${namespace}/${group}/${resource}`;
    const rule = rules.get(key) ?? { namespace, group, resource, verbs: [] };
    rule.verbs.push(verb);
    rules.set(key, rule);
  }
  const grants = [...rules.values()].map(
    ({ namespace, group, resource, verbs }) =>
      `${namespace ? `a Role in namespace ${namespace}` : 'a ClusterRole'} with: apiGroups: [${JSON.stringify(group)}], resources: [${JSON.stringify(resource)}], verbs: [${verbs.map((verb) => JSON.stringify(verb)).join(', ')}]`,
  );
  return (
    `kguard could not restore this apply if it failed: this user may not ${missing.join('; nor ')}. ` +
    `Next: grant ${grants.join('; and ')}, or run with --rollback none to apply without a restore; nothing was applied.`
  );
}

function qualified(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}
