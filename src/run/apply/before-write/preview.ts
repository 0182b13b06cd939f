// --dry-run: what the apply would create, change or leave alone, and --diff's per-object diffs.
import type { AppliedObject } from '../../../model/result.js';
import type { ApplyRequest } from '../../../kubectl/types.js';
import { changeOf } from '../../../objects/compare.js';
import { objectKey, refOf, type KubeObject, type ObjectRef } from '../../../objects/model.js';
import type { ObjectResult, RunResult } from '../../../model/result.js';
import type { ApplyOptions } from '../../../model/options.js';
import type { Deps } from '../deps.js';
import type { Understood } from '../understand.js';
import type { Reading } from './reading.js';

export async function preview(
  understood: Understood,
  before: Map<string, KubeObject>,
  request: ApplyRequest,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>,
  startedAt: number,
): Promise<RunResult> {
  const wouldBe = new Map<string, KubeObject>();
  if (understood.server.ok)
    for (const object of understood.server.objects) wouldBe.set(objectKey(refOf(object)), object);
  const actions =
    options.dryRun === 'client' ? clientActions(understood.refs, await deps.kubectl.dryRunActions(request)) : undefined;
  const objects: ObjectResult[] = understood.refs.map((ref) => {
    const key = objectKey(ref);
    const action = actions?.get(key);
    if (action)
      return {
        ref,
        changeKind: action === 'configured' ? 'configured' : action === 'created' ? 'created' : 'unchanged',
        changedFields: [],
      };
    const wouldBeObject = wouldBe.get(key);
    // An object missing from the server's answer had its dry run waived (its namespace is new).
    if (!wouldBeObject) return { ref, changeKind: before.has(key) ? 'unchanged' : 'created', changedFields: [] };
    const change = changeOf(before.get(key), wouldBeObject);
    return { ref, changeKind: change.change, changedFields: change.change === 'configured' ? change.paths : [] };
  });
  const pruned = understood.pruned;
  for (const ref of pruned) objects.push({ ref, changeKind: 'deleted', changedFields: [] });
  deps.reporter.emit({
    kind: 'preview',
    strategy: options.dryRun ?? 'server',
    objects: objects.map(({ ref, changeKind, changedFields }) => ({ ref, change: changeKind, changedFields })),
  });
  if (options.diff) {
    const diffs = await deps.kubectl.diff(request, understood.refs);
    for (const object of objects) {
      const lines = diffs.get(objectKey(object.ref));
      if (lines && (object.changeKind === 'created' || object.changeKind === 'configured'))
        deps.reporter.emit({ kind: 'diff', object: object.ref, lines });
    }
  }
  return {
    mode: 'preview',
    diff: options.diff === true,
    objects,
    applied: [],
    rollbackMode: options.rollback,
    outcome: 'previewed',
    applyMs: 0,
    totalMs: deps.clock.now() - startedAt,
    kubectlProcesses: deps.kubectl.spawned,
  };
}

/** kubectl prints one line per object in the order of its -o json output: pair them by name. */
export function clientActions(
  refs: readonly ObjectRef[],
  lines: readonly AppliedObject[],
): Map<string, AppliedObject['action']> {
  const actions = new Map<string, AppliedObject['action']>();
  let next = 0;
  for (const ref of refs) {
    const index = lines.findIndex((line, position) => position >= next && line.name === ref.name);
    if (index === -1) continue;
    actions.set(objectKey(ref), lines[index]!.action);
    next = index + 1;
  }
  return actions;
}

/** A signal before the apply: whatever failed on the way (a stopped read), nothing was applied. */

/** A --dry-run's result: what kubectl can read now is shown (parts read only once this apply's CRDs exist are said, not dry-run). */
export async function previewRun(
  { understood, plan, target }: Pick<Reading, 'understood' | 'plan' | 'target'>,
  before: Map<string, KubeObject>,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'clock' | 'reporter'>,
  startedAt: number,
): Promise<RunResult> {
  const readable = plan.parts.filter((part) => part.understood);
  const request = { ...readable[0]!.request, filenames: readable.flatMap((part) => part.request.filenames) };
  return { ...(await preview(understood, before, request, options, deps, startedAt)), target };
}
